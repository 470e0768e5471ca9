"""toolgym: Gymnasium environments for LLM agents that use tools.

Importing the package registers the envs; it imports no heavy dependency (torch,
transformers, pybullet are loaded only by the parts that need them).
"""

from __future__ import annotations

from gymnasium.envs.registration import register

__version__ = "0.1.0"

# env id -> entry point; the modules are imported only when an env is made.
_ENTRY_POINTS = {
    "ToolTalk-v0": "toolgym.envs.tooltalk:ToolTalkEnv",
    "AppBench-v0": "toolgym.envs.appbench:AppBenchEnv",
    "HomeSearch-v0": "toolgym.envs.api_program:HomeSearchEnv",
    "TripBooking-v0": "toolgym.envs.api_program:TripBookingEnv",
    "OpenWeather-v0": "toolgym.envs.rest_api:OpenWeatherEnv",
    "CatAPI-v0": "toolgym.envs.rest_api:CatAPIEnv",
    "Tabletop-v0": "toolgym.envs.tabletop:TabletopEnv",
}

ENV_IDS = tuple(_ENTRY_POINTS)

# Every env answers a step before reset (or after the end) with an observation saying so;
# gymnasium's OrderEnforcing wrapper would raise ResetNeeded instead.
for _env_id, _entry in _ENTRY_POINTS.items():
    register(id=_env_id, entry_point=_entry, disable_env_checker=True, order_enforce=False)
