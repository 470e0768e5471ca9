"""The same model two ways: ``toolgym eval --agent hf:MODEL`` in process, and ``--agent
openai:URL`` through the ``openai`` SDK against the project's own server
(``python -m toolgym.agents.llm.server MODEL``) over the same model. With greedy decoding every
episode takes the same actions, step by step: the SDK backend sends the same messages, tools,
stop strings and sampling, and reads back the same text and tool calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("openai")

from toolgym.eval.cli import main  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
EPISODES = 3
pytestmark = pytest.mark.slow  # about a minute of CPU: two envs, each run twice, one way through a server


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=3)


@pytest.fixture(scope="module")
def served(tiny_model):
    """The project's LLM server on a free loopback port: its base URL and served model name."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "toolgym.agents.llm.server", str(tiny_model), "--port", "0",
                             "--device", "cpu"], stdout=subprocess.PIPE, text=True, cwd=REPO, env=env)
    try:
        line = proc.stdout.readline()  # "serving NAME on http://127.0.0.1:PORT/v1"
        assert line.startswith("serving "), line
        name, url = line.split()[1], line.split()[3]
        yield url, name
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run(env_id: str, agent: str, out: Path, *extra: str) -> list[dict]:
    assert main(["eval", env_id, "--agent", agent, "--episodes", str(EPISODES), "--batch-size", str(EPISODES),
                 "--max-new-tokens", "16", "--temperature", "0", "--no-progress", "--out", str(out), *extra]) == 0
    return sorted((json.loads(line) for line in out.read_text().splitlines()), key=lambda r: r["task_id"])


@pytest.mark.parametrize("env_id, extra, min_steps", [
    # native tools, and a conversation with the simulated user: every episode runs many steps, each
    # prompt holding the earlier actions and observations
    ("TauBench-v0", (), 3 * EPISODES),
    ("CatAPI-v0", (), EPISODES),  # curl actions: stop strings end a completion
])
def test_the_openai_sdk_backend_takes_the_same_actions_as_hf(tiny_model, served, tmp_path, env_id, extra,
                                                             min_steps):
    url, name = served
    local = run(env_id, f"hf:{tiny_model}", tmp_path / "hf.jsonl", "--backend-kwarg", "device=cpu", *extra)
    remote = run(env_id, f"openai:{url}#{name}", tmp_path / "openai.jsonl", *extra)
    assert [r["task_id"] for r in remote] == [r["task_id"] for r in local] and len(local) == EPISODES
    assert {r["backend"] for r in remote} == {"openai"} and {r["backend"] for r in local} == {"hf"}
    for hf_record, openai_record in zip(local, remote):
        hf_actions = [step["action"] for step in hf_record["trajectory"]]
        assert [step["action"] for step in openai_record["trajectory"]] == hf_actions, hf_record["task_id"]
        assert openai_record["return"] == hf_record["return"]
        assert [step.get("llm", {}).get("error") for step in openai_record["trajectory"]] == [None] * len(hf_actions)
    assert sum(len(r["trajectory"]) for r in local) >= min_steps
