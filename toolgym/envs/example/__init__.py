"""Example-v0: the small complete env of docs/adding-an-env.md."""

from toolgym.envs.example.env import ExampleEnv

__all__ = ["ExampleEnv"]
