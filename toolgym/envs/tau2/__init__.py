from toolgym.envs.tau2.env import Tau2Env
from toolgym.envs.tau2.user_env import Tau2UserEnv

__all__ = ["Tau2Env", "Tau2UserEnv"]
