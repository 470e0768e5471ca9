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
    "GoogleSheets-v0": "toolgym.envs.google_sheets:GoogleSheetsEnv",
    "VirtualHome-v0": "toolgym.envs.virtualhome:VirtualHomeEnv",
    "ToolLLM-v0": "toolgym.envs.toolllm:ToolLLMEnv",
    "WebShop-v0": "toolgym.envs.webshop:WebShopEnv",
    "Tau2-v0": "toolgym.envs.tau2:Tau2Env",
    "Tau2User-v0": "toolgym.envs.tau2:Tau2UserEnv",
    "TauBench-v0": "toolgym.envs.taubench:TauBenchEnv",
    "BFCL-v0": "toolgym.envs.bfcl:BFCLEnv",
    # The example env of docs/adding-an-env.md: a small complete env to copy.
    "Example-v0": "toolgym.envs.example:ExampleEnv",
}

ENV_IDS = tuple(_ENTRY_POINTS)

# Every env answers a step before reset (or after the end) with an observation saying so;
# gymnasium's OrderEnforcing wrapper would raise ResetNeeded instead.
for _env_id, _entry in _ENTRY_POINTS.items():
    # ``gym.make_vec(env_id, num_envs=N)``: toolgym's vector env, named by a string (one
    # attribute of the vector module per id) so that the spec serialises (``spec.to_json()``).
    register(id=_env_id, entry_point=_entry, vector_entry_point=f"toolgym.envs.common.vector:{_env_id}",
             disable_env_checker=True, order_enforce=False)


def env_modes() -> list[tuple[str, str | None]]:
    """Every registered env id with each of its modes (None for an env without modes).

    Imports each env's module (not its heavy dependencies) to read its ``modes``.
    """
    from gymnasium.envs.registration import load_env_creator

    return [(env_id, mode) for env_id, entry in _ENTRY_POINTS.items()
            for mode in (load_env_creator(entry).modes or (None,))]


def __getattr__(name: str):
    # toolgym.rollouts is imported on first use: it pulls in the agents and the eval runner.
    if name == "rollouts":
        from toolgym.eval.rollouts import rollouts
        return rollouts
    raise AttributeError(f"module 'toolgym' has no attribute {name!r}")
