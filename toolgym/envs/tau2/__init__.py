from toolgym.envs.tau2.env import Tau2Env

__all__ = ["Tau2Env"]
