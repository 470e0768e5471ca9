"""toolgym eval --ray: episodes on Ray actors (a local Ray with 2 CPUs), the local runner's records."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")

from toolgym.eval.cli import main  # noqa: E402
from toolgym.eval.ray_runner import evaluate_ray, worker_agent_spec  # noqa: E402
from toolgym.eval.runner import evaluate  # noqa: E402

ENV = "CatAPI-v0"
EPISODES = 4

# An agent whose worker process dies in the middle of one episode, the first time it plays it.
CRASHING_AGENT = '''
import os
from pathlib import Path

class CrashOnce:
    def __init__(self, env):
        self.env = env

    def reset(self, observation, info):
        self.task_id = info["task_id"]

    def act(self, observation, info):
        marker = Path(__file__).with_name("crashed-" + self.task_id)
        if self.task_id == "{task}" and not marker.exists():
            marker.write_text("x")
            os._exit(1)
        return self.env.unwrapped.oracle_action()
'''


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_ray_records_equal_local_records(tmp_path):
    # a replay of right and wrong commands: records with successes, failures and error observations
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps({"task_id": str(i), "actions": ["curl -X GET 'https://api.thecatapi.com/"
                                                                         f"v1/images/{i}'"]}) + "\n"
                              for i in range(EPISODES)))
    local_out, ray_out = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    local, _ = evaluate(ENV, f"replay:{replay}", seed=3, episodes=EPISODES, out=local_out, progress=False)
    remote, _, stats = evaluate_ray(ENV, f"replay:{replay}", seed=3, episodes=EPISODES, out=ray_out,
                                    progress=False, num_workers=2)
    assert remote == local and stats["workers"] == 2 and stats["episodes"] == EPISODES
    by_task = {r["task_id"]: r for r in _lines(ray_out)}
    assert len(by_task) == EPISODES and by_task == {r["task_id"]: r for r in _lines(local_out)}


def test_a_killed_worker_loses_nothing_and_writes_nothing_twice(tmp_path):
    agent_file = tmp_path / "crash_agent.py"
    agent_file.write_text(CRASHING_AGENT.replace("{task}", "2"))
    out = tmp_path / "results.jsonl"
    records, _, stats = evaluate_ray(ENV, f"{agent_file}:CrashOnce", episodes=EPISODES, out=out, progress=False,
                                     num_workers=2)
    assert (tmp_path / "crashed-2").exists() and stats["restarts"] >= 1, stats
    written = _lines(out)
    assert sorted(r["task_id"] for r in written) == [str(i) for i in range(EPISODES)]  # each once
    assert all(r["metrics"]["success"] == 1 and not r.get("error") for r in written)
    assert records == sorted(written, key=lambda r: int(r["task_id"]))


def test_cli_ray_resumes_with_the_one_rule(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", ENV, "--agent", "oracle", "--episodes", "2", "--ray", "--ray-workers", "2", "--out", str(out),
                 "--no-progress"]) == 0
    assert "2 episode(s)" in capsys.readouterr().out
    first = _lines(out)
    # a line torn by an interruption and an episode that ended with an error run again; the rest is kept
    broken = dict(first[1], metrics=None, error="backend failed: boom")
    out.write_text(json.dumps(first[0]) + "\n" + json.dumps(broken) + "\n" + '{"env": "Cat')
    assert main(["eval", ENV, "--agent", "oracle", "--episodes", "3", "--ray", "--out", str(out), "--resume",
                 "--no-progress"]) == 0
    assert "2 episode(s) in" in capsys.readouterr().out
    resumed = _lines(out)
    assert resumed[0] == first[0] and sorted(r["task_id"] for r in resumed) == ["0", "1", "2"]
    assert all(not r.get("error") for r in resumed)
    assert main(["eval", ENV, "--agent", "oracle", "--episodes", "3", "--ray", "--out", str(out),
                 "--no-progress"]) == 2  # neither --resume nor --overwrite: refused, as locally


def test_workers_share_out_several_endpoints():
    spec = "openai:http://a:8000/v1,http://b:8000/v1#m"
    assert [worker_agent_spec(spec, i) for i in range(3)] == ["openai:http://a:8000/v1#m", "openai:http://b:8000/v1#m",
                                                             "openai:http://a:8000/v1#m"]
    assert worker_agent_spec("oracle", 5) == "oracle"
