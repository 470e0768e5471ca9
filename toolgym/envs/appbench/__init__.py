from toolgym.envs.appbench.env import AppBenchEnv

__all__ = ["AppBenchEnv"]
