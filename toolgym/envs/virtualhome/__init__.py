"""VirtualHome-v0: household action programs."""

from toolgym.envs.virtualhome.env import VirtualHomeEnv

__all__ = ["VirtualHomeEnv"]
