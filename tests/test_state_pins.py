"""Pins of what the envs do: the world's state hash after the oracle, and a digest of the episode.

The pins were computed on the code before the speed work of issue 9 (caches on disk, hot
paths off the ORM; those of VirtualHome, GoogleSheets, WebShop and ToolLLM before its second
round: the world's own commit, shared random streams, cached task sets and indexes), so they
show that none of it changed an env's behaviour: the same rows, aux state, random streams and
clock at the end of each pinned episode, and the same observations, rewards and metrics
along the way. HomeSearch's and TripBooking's were recomputed when their metrics gained
``stated_f1``/``draft_f1`` and their aux the defaults of ``search()`` (issue 23); with those
two left out, the new code gives the old pins.

Regenerate (only for an intended change of behaviour) with
``python tests/test_state_pins.py`` and paste its output below.
"""

from __future__ import annotations

import hashlib
import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.envs.base import INVALID_ACTIONS

# name -> (env id, make kwargs, every how many of the env's tasks an episode is run)
CONFIGS = {
    "tooltalk": ("ToolTalk-v0", {}, 1),
    "appbench-plan": ("AppBench-v0", {}, 8),
    "appbench-interactive": ("AppBench-v0", {"mode": "interactive"}, 8),
    "homesearch": ("HomeSearch-v0", {}, 1),
    "tripbooking": ("TripBooking-v0", {}, 1),
    "openweather": ("OpenWeather-v0", {}, 1),
    "catapi": ("CatAPI-v0", {}, 1),
    "virtualhome-program": ("VirtualHome-v0", {}, 1),
    "virtualhome-step": ("VirtualHome-v0", {"mode": "step"}, 1),
    "googlesheets": ("GoogleSheets-v0", {}, 1),
    "webshop": ("WebShop-v0", {}, 5),
    "toolllm": ("ToolLLM-v0", {}, 5),
}
OFFICIAL_CONFIGS = {
    "tooltalk-official": ("ToolTalk-v0", {"tasks": "official"}, 1),
}

PINS: dict[str, dict[str, str]] = {
    'tooltalk': {
        'AddAlarm-easy': '98cccc9fe035d68ea4761ccaf74e90d436232d08565a6805e82e65eacf2b0b93',
        'message-followup-0': '2734aa83e9f972cdf342df83136211200f8808e9cae2dd754b7799d38bfe80c0',
        'account-update-3': 'e222811245b7213216969883ec7774d8809d8980efaed8d67b1d458fcabb0075',
        'all': '17f9bfc444b8b4f2bfeed681aa7e41125bf2401e0f7d22c4ddca51b66ad3bd20',
    },
    'appbench-plan': {
        'ss-0': 'e109a828833be89ec0be4c8e51553d69d1bd78ca65b144e9ff70b3bac2a6e6a5',
        'ms-0': 'f8c5c08a88ec24b33e996982af916b3c936f24b91ace82102e4b7b05c55015b4',
        'mm-192': '1578625bd8fab793ad481b87ec952aaa1847f6ee457adc6a8faba05cf83dcfcf',
        'all': '99a6f45492ccd96310f144561a7f10e864bca0fadb5d3ad9e1abc031ef162259',
    },
    'appbench-interactive': {
        'ss-0': 'e109a828833be89ec0be4c8e51553d69d1bd78ca65b144e9ff70b3bac2a6e6a5',
        'ms-0': 'f8c5c08a88ec24b33e996982af916b3c936f24b91ace82102e4b7b05c55015b4',
        'mm-192': '1578625bd8fab793ad481b87ec952aaa1847f6ee457adc6a8faba05cf83dcfcf',
        'all': '8a2ef9651481bce5d98013ca652f43a9f8fcdb52841ec0f33f4561ab5e7abdd9',
    },
    'homesearch': {
        '0': '61e1dbe6b3b8266d88e0d932dc2fa4048c5bc386c3950009aaed401577090952',
        '50': '4878afeed3e414f60f8e65620d17c011f6a8dca4618bc69a0907f895d9efafe3',
        '99': 'aac71617b9dd3e8f47a8bc3b0127c94f21cef716e25a9e0448000c3fcaab3696',
        'all': 'f15eed4290ba81b30a6d3acd85d14851bfae42881fbdccbff37f4ddd3fa3f12d',
    },
    'tripbooking': {
        '0': '7955a8a6d1502a8778f3f2442a43e949255af04831cca7b1a2ed4f67c1c8e7a6',
        '60': 'c247537e84dbf298487a6de56857b3ae58a9e1a456ccc85e676a440824291c06',
        '119': 'f073808a604d70ccf71db40bf3640d23cc10de8aa01364805633d87000510446',
        'all': 'a36fe7da3d6f83cfd84dd1c470e97b05de9d10ea9428b4a4dfdcc762ad157067',
    },
    'openweather': {
        '0': 'ab2000c65841f70b398217638cb79ddee3b383923250a40756048a2cc11eae72',
        '54': 'ab2000c65841f70b398217638cb79ddee3b383923250a40756048a2cc11eae72',
        '107': 'ab2000c65841f70b398217638cb79ddee3b383923250a40756048a2cc11eae72',
        'all': 'dd7d1b8d741b328c720786d62ca21e2738ab0075e12c56dcdef9c155ed9ad65a',
    },
    'catapi': {
        '0': 'e551337bb701883a1f74b73c2d65e21493e5c4339964eb6b024180b96213afab',
        '51': '75a72da0a0bbfed2f5cbb559e9f1bb57d0bb5a62b29d3b0d4c96461527a5f8d9',
        '101': '08d49142493b120ebb60ee05ace706d9681f889fcbda2365486b06e6df4ab8b4',
        'all': '36395423820960e98ca854291cf94532a43e5bf09cc0e4b0d7824f01f8eedbda',
    },
    'virtualhome-program': {
        'Read folder': 'c5fdd945d288c022a351e654736fce9b12a3298aab321d3e8b7c3d9466ff70cb',
        'Put food cereal in freezer': '3b5d92fd83e02e39d4be11f9f518af8a1f78461dac8039dd6f5b402964905b8a',
        'Take a nap on bed': '12ff4d5940caeb20b0316f138195670a4664a3b915c5899320e73ad2c9071d3e',
        'all': '02a8743d1c7fd4c0a58ecb4a5cec0b6b4167cd8e319f83c0f0d86edef16519e6',
    },
    'virtualhome-step': {
        'Read folder': 'c5fdd945d288c022a351e654736fce9b12a3298aab321d3e8b7c3d9466ff70cb',
        'Put food cereal in freezer': '3b5d92fd83e02e39d4be11f9f518af8a1f78461dac8039dd6f5b402964905b8a',
        'Take a nap on bed': '12ff4d5940caeb20b0316f138195670a4664a3b915c5899320e73ad2c9071d3e',
        'all': 'f7bf8043b5e73703fb0b18700c3041a8083ecfaa424416231a30d1edebeae1ed',
    },
    'googlesheets': {
        'employees-basic_filter': 'd23f6ac639527a669db7c3f2ceef4e6a53cd6acc8652f717356132428b1e36cb',
        'inventory-append_row': '197dbf069a7afbbde3599d322283b73b907ec3d4eee23a3131e7244a006d0278',
        'sales-validation_number': '9880d4233ae8354239684dad11eb18ae30d8121ba3089d8d70cefb948a7da0be',
        'all': '1f60da2978c4b1d49e28df7fb0ba6a81fe58a8bd637d76cf59667a48ee52140e',
    },
    'webshop': {
        'B0BDJ0MZ2Q-7': '69632ca42688d21d0b94667dc195713f8a00877469fb5bf8d29b6002e594fbc6',
        'B04RTZ9AT4-12': '16caaabe37e96dd863a8e6712fb860a3602959f811116f0b58c4edb008176898',
        'B02F1JYLNU-3': '54d534662bb506e9d370b6c7b1c501efd1b838711bccad12e802dd7bdd3e8a47',
        'all': '8a5fd0a9e469d49db1ce0796ef82e94a8d8e59b340f0eb748ccffd3d2f221d89',
    },
    'toolllm': {
        'G1_instruction-000': '67720c7772eb37ddfe0e03a610d22730dad6f87f4c206da9f5f9f16c5ccf0a4c',
        'G1_tool-064': '5dba76066d2b93a78aadadcfb518aef9fc736f74f10610453be15b5eccfb3666',
        'G3_instruction-056': 'beb1034beec119a536e80fc73f7c8d1ff7a1d3ff1cd258213fe4d1c87c52dbcf',
        'all': 'f43600e773b2c0257e255a5e793f3638e4318b0fa296251a7e7918b6737c992f',
    },
    'tooltalk-official': {
        'AddAlarm-easy': 'db9f3e589625ed669e04f84dfef864afbecb02dbbad9129b57b6fb6720f68e50',
        'Alarm-Reminder-Weather-FindAlarm-2': '6039254cc2e1e6725bc0cf1e2621f2fc7db70a2b36b5a3e8bbac514839d61e4d',
        'golden_conversation_6': '54eedcc9ceab8e7b8ff55ac31061dbf25942c1ae93f9e740cbd2f599163746f9',
        'all': '1ddc2a6e1fa89b9ce39e359cb75b7e1a6464651bc17b9b7c1a6921e7053d598d',
    },
}


def episode_pins(env_id: str, kwargs: dict, every: int) -> dict[str, str]:
    """The final world state hash of the first, middle and last episode run, and, under "all",
    a digest of every run episode's final state hash, observations, rewards and metrics.

    Args:
        env_id: The env.
        kwargs: Its make arguments.
        every: An episode is run for every ``every``-th task of the env, with the oracle.
    """
    env = gym.make(env_id, **kwargs)
    unwrapped = env.unwrapped
    task_ids = unwrapped.task_ids()[::every]
    named = {task_ids[0], task_ids[len(task_ids) // 2], task_ids[-1]}
    pins, everything = {}, hashlib.sha256()
    for task_id in task_ids:
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        trace = [observation]
        done = False
        while not done:
            observation, reward, terminated, truncated, info = env.step(unwrapped.oracle_action())
            trace += [observation, reward]
            done = terminated or truncated
        # invalid_actions came after the pins; the oracle never makes one
        assert info["metrics"].pop(INVALID_ACTIONS) == 0, task_id
        trace.append(info["metrics"])
        state = unwrapped.world.state_hash()
        everything.update(json.dumps([task_id, state, trace], sort_keys=True, default=str).encode())
        if task_id in named:
            pins[task_id] = state
    pins["all"] = everything.hexdigest()
    return pins


def _check(name: str, env_id: str, kwargs: dict, every: int) -> None:
    assert episode_pins(env_id, kwargs, every) == PINS[name]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_builtin_episodes_match_their_pins(name):
    _check(name, *CONFIGS[name])


@pytest.mark.parametrize("name", sorted(OFFICIAL_CONFIGS))
def test_official_episodes_match_their_pins(name, official_data):
    env_id, kwargs, every = OFFICIAL_CONFIGS[name]
    _check(name, env_id, {**kwargs, "data_dir": str(official_data)}, every)


if __name__ == "__main__":
    import os

    from conftest import official_data_root

    computed = {name: episode_pins(*config) for name, config in CONFIGS.items()}
    root = official_data_root()
    if root is not None:
        for name, (env_id, kwargs, every) in OFFICIAL_CONFIGS.items():
            computed[name] = episode_pins(env_id, {**kwargs, "data_dir": os.fspath(root)}, every)
    print("PINS: dict[str, dict[str, str]] = {")
    for name, pins in computed.items():
        print(f"    {name!r}: {{")
        for task_id, digest in pins.items():
            print(f"        {task_id!r}: {digest!r},")
        print("    },")
    print("}")
