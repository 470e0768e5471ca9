"""What the envs share besides the base env: the action parser, metric helpers, text similarity,
the ToolBench prompt format."""
