"""τ-bench (v1)'s airline and retail domains: τ²'s tables with v1's tools."""
