"""BFCL-v0: the Berkeley Function Calling Leaderboard."""

from toolgym.envs.bfcl.env import BFCLEnv

__all__ = ["BFCLEnv"]
