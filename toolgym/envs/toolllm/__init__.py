"""ToolLLM-v0: ToolLLM / StableToolBench's RapidAPI tool use over a simulated, deterministic world."""

from toolgym.envs.toolllm.env import ToolLLMEnv

__all__ = ["ToolLLMEnv"]
