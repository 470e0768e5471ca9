from toolgym.envs.tooltalk.env import ToolTalkEnv

__all__ = ["ToolTalkEnv"]
