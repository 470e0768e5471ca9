"""Tabletop-v0: ToolBench's tabletop manipulation programs."""

from toolgym.envs.tabletop.env import TabletopEnv

__all__ = ["TabletopEnv"]
