"""The info contract seen by an LLM agent, at every step of every env and mode.

A real (tiny, random) transformers model drives each env for several steps through the shared
LLMAgent with the env's own prompt format and parser. At each step the agent acts on, the info
must carry the prompt (``messages``) and the tools, the rendered prompt must name every tool (where the prompt is not the paper's
own API documentation),
and from the second step on it must hold the previous step's observation: the model sees what
its last action did. Episode ends carry ``invalid_actions``
(tests/test_env_contract.py counts them).
"""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import toolgym  # noqa: E402
from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.llm import SamplingParams, TransformersBackend  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.envs.base import INVALID_ACTIONS  # noqa: E402

STEPS = 4
# Formats whose prompt is the env's own (the paper's API documentation, e.g. OpenWeather's URLs),
# not the tool schemas: the tool-name check applies to the others. BFCL's system prompt lists the
# functions under BFCL's own names (``geometry.circle_area``), the tools under OpenAI-safe ones.
DOCUMENTED_BY_ENV = ("toolbench", "messages", "bfcl")


class RecordingBackend:
    """The tiny model, keeping each request and its rendered prompt."""

    def __init__(self, backend: TransformersBackend):
        self.backend = backend
        self.name = backend.name
        self.prompts: list[str] = []

    def describe(self) -> dict:
        return self.backend.describe()

    def generate(self, requests, sampling):
        self.prompts += [self.backend.render(r) for r in requests]
        return self.backend.generate(requests, sampling)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> TransformersBackend:
    return TransformersBackend(str(build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=5)))


@pytest.mark.parametrize("env_id,mode", toolgym.env_modes())
def test_every_step_gives_the_agent_prompt_tools_and_history(tiny, env_id, mode):
    env = gym.make(env_id, **({"mode": mode} if mode else {}))
    backend = RecordingBackend(tiny)
    agent = LLMAgent(backend, env=env, sampling=SamplingParams(max_new_tokens=6, temperature=1.0, seed=1))
    observation, info = env.reset(seed=0, options={"task_index": 0})
    state = agent.start(observation, info)
    previous = None
    for step in range(STEPS):
        where = f"{env_id} mode={mode} step {step}"
        messages, tools = info.get("messages"), info.get("tools")
        assert isinstance(messages, list) and messages, f"{where}: info['messages'] missing"
        assert all(isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in messages), where
        assert isinstance(tools, list) and tools, f"{where}: info['tools'] missing"
        action = agent.step_batch([state], [observation], [info])[0]
        assert "error" not in action.llm, f"{where}: {action.llm.get('error')}"
        prompt = backend.prompts[-1]
        names = [t["function"]["name"] for t in tools]
        missing = [n for n in names if n not in prompt]
        assert agent.format.name in DOCUMENTED_BY_ENV or not missing, f"{where}: the prompt does not name the tools {missing[:5]}"
        if previous is not None:
            assert previous.strip()[:80] in prompt, f"{where}: the last observation is not in the prompt"
        observation, _, terminated, truncated, info = env.step(action.action)
        previous = observation
        if terminated or truncated:
            assert isinstance(info["metrics"][INVALID_ACTIONS], int), where
            break
