from toolgym.envs.taubench.env import TauBenchEnv

__all__ = ["TauBenchEnv"]
