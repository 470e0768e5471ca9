"""Bad configuration and runs that evaluate nothing end with one ``toolgym: error:`` line and a
non-zero exit code, never a traceback or an empty table."""

from __future__ import annotations

import json

import pytest

from toolgym.llm import Completion
from toolgym.envs.rest_api.env import RestApiEnv
from toolgym.eval.cli import main


def error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.startswith("toolgym: error: "), captured.err
    return captured.err


def test_unknown_env_kwarg_names_it_and_the_accepted_ones(capsys):
    assert main(["eval", "ToolTalk-v0", "--agent", "oracle", "--env-kwarg", "colour=red", "--no-progress"]) == 2
    err = error_line(capsys)
    assert "ToolTalk-v0 takes no argument 'colour'" in err
    assert "it accepts: tasks, split, data_dir, scoring, mode" in err and "text_similarity" in err


def test_unknown_env_id_lists_the_known_ones(capsys):
    assert main(["eval", "ToolTlak-v0", "--agent", "oracle"]) == 2
    err = error_line(capsys)
    assert "unknown env id 'ToolTlak-v0'" in err and "ToolTalk-v0, AppBench-v0" in err
    assert main(["play", "Nope-v1"]) == 2
    assert "unknown env id 'Nope-v1'" in error_line(capsys)


@pytest.mark.parametrize("kwarg, message", [
    ("reward_metric=bogus", "reward_metric must be one of"),  # ValueError
    ("num_hard=\"many\"", "'<' not supported"),  # TypeError inside the env's constructor
])
def test_config_errors_from_gym_make_are_one_line(capsys, kwarg, message):
    assert main(["eval", "ToolTalk-v0", "--agent", "oracle", "--env-kwarg", kwarg, "--no-progress"]) == 2
    err = error_line(capsys)
    assert err.startswith("toolgym: error: ToolTalk-v0") and message in err


def test_missing_official_data_is_one_line(tmp_path, capsys):
    assert main(["complexity", "OpenWeather-v0", "--tasks", "official", "--data-dir", str(tmp_path / "none")]) == 2
    assert "OpenWeather-v0" in error_line(capsys)


def test_zero_episodes_is_an_error_saying_why(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "0", "--out", str(out)]) == 2
    assert "nothing to evaluate: episodes=0" in error_line(capsys)
    assert not out.exists()
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "-2"]) == 2
    assert "nothing to evaluate: episodes=-2" in error_line(capsys)


def test_an_empty_task_set_is_an_error_saying_why(monkeypatch, capsys):
    monkeypatch.setattr(RestApiEnv, "task_ids", lambda self: [])
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--no-progress"]) == 2
    assert "nothing to evaluate: OpenWeather-v0 has no tasks for tasks='built-in'" in error_line(capsys)


def test_a_run_whose_every_episode_failed_prints_no_table(tmp_path, capsys):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": "no-such-task", "actions": []}) + "\n")
    out = tmp_path / "r.jsonl"
    code = main(["eval", "OpenWeather-v0", "--agent", f"replay:{replay}", "--episodes", "3", "--no-progress",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    assert "nothing was evaluated: all 3 episode(s) ended with an error (first: 0: no replay actions" in captured.err
    assert "Success" not in captured.out
    assert len(out.read_text().splitlines()) == 3  # the records still say what happened


def test_an_unreachable_llm_server_stops_the_run_early(tmp_path, capsys, monkeypatch):
    from toolgym.llm.backends.openai_compatible import OpenAICompatibleBackend
    from toolgym.eval.batch import FAILURES_BEFORE_STOP

    sent = []  # the requests tried: the run's work, which a busy machine does not change (its duration it does)
    create = OpenAICompatibleBackend._create
    monkeypatch.setattr(OpenAICompatibleBackend, "_create",
                        lambda self, params: sent.append(params["model"]) or create(self, params))
    out = tmp_path / "r.jsonl"
    code = main(["eval", "ToolTalk-v0", "--agent", "openai:http://127.0.0.1:9/v1#m", "--episodes", "20",
                 "--batch-size", "2", "--backend-kwarg", "max_retries=0", "--backend-kwarg", "timeout=2",
                 "--env-kwarg", "text_similarity=lexical", "--no-progress", "--out", str(out)])
    # stopped after the first batches whose episodes all failed, not after the 20 episodes
    assert code == 1 and 0 < len(sent) <= 2 * FAILURES_BEFORE_STOP
    err = error_line(capsys)
    assert "toolgym: error: every request to the backend failed: " in err and "127.0.0.1:9" in err
    assert out.read_text() == ""  # no records of failed requests: the same command can simply run again
    assert main(["eval", "ToolTalk-v0", "--agent", "openai:http://127.0.0.1:9/v1#m", "--episodes", "1",
                 "--backend-kwarg", "max_retries=0", "--env-kwarg", "text_similarity=lexical", "--no-progress",
                 "--out", str(out)]) == 1  # an empty file is no obstacle
    assert "every request to the backend failed" in error_line(capsys)


def test_ctrl_c_during_eval_is_a_short_message(monkeypatch, capsys, tmp_path):
    import toolgym.eval.runner as runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_episode", interrupted)
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--no-progress", "--out", str(out)]) == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert f"toolgym: interrupted; run again with --resume to continue {out}" in captured.err


def test_a_backend_that_fails_only_sometimes_does_not_stop_the_run(tmp_path):
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import Completion
    from toolgym.eval.batch import evaluate_batched

    class FlakyBackend:
        """Fails the first two requests, then answers every request with an empty reply."""

        name = "flaky"

        def __init__(self):
            self.calls = 0

        def describe(self):
            return {"backend": self.name, "model": "flaky"}

        def generate(self, requests, sampling):
            self.calls += 1
            return [Completion(error="HTTP 503") if self.calls <= 2 else Completion(text="") for _ in requests]

    out = tmp_path / "r.jsonl"
    records, _, stats = evaluate_batched("OpenWeather-v0", LLMAgent(FlakyBackend()), "flaky", episodes=4, out=out,
                                         progress=False, batch_size=1)
    assert stats["episodes"] == 4 and len(records) == 4
    assert [r.get("error") for r in records] == ["backend failed: HTTP 503"] * 2 + [None] * 2
    assert len(out.read_text().splitlines()) == 4  # the held failures are written once a request succeeds


class RaisingBackend:
    """Raises inside generate for every prompt that mentions ``poison`` (as transformers might
    mid-run), answers the others with an empty reply."""

    name = "raising"

    def __init__(self, poison: str):
        self.poison = poison

    def describe(self):
        return {"backend": self.name, "model": "raising"}

    def generate(self, requests, sampling):
        if any(self.poison in json.dumps(r.messages) for r in requests):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        return [Completion(text="") for _ in requests]


def test_an_exception_mid_run_is_recorded_on_its_episode_and_the_run_goes_on(tmp_path):
    from toolgym.agents.llm import LLMAgent
    from toolgym.eval.batch import evaluate_batched
    from toolgym.registry import make_env

    env = make_env("OpenWeather-v0", {}).unwrapped
    tasks = env.task_ids()[:4]
    query = env.task_data.tasks[tasks[1]].query
    out = tmp_path / "r.jsonl"
    records, _, stats = evaluate_batched("OpenWeather-v0", LLMAgent(RaisingBackend(query)), "raising", episodes=4,
                                         out=out, progress=False, batch_size=4)
    errors = {r["task_id"]: r.get("error") for r in records}
    assert errors[tasks[1]] == (f"OpenWeather-v0, task {tasks[1]}, step 1: RuntimeError: probability tensor "
                                "contains either `inf`, `nan` or element < 0")
    assert [errors[t] for t in tasks if t != tasks[1]] == [None] * 3  # the batch's other episodes ran
    assert stats["episodes"] == 4 and len(out.read_text().splitlines()) == 4  # every episode written


def test_a_run_whose_first_episodes_all_raise_stops_naming_the_failure(capsys, tmp_path, monkeypatch):
    import toolgym.agents.llm as llm

    monkeypatch.setattr(llm, "make_backend", lambda kind, arg, **kwargs: RaisingBackend(""))
    assert main(["eval", "OpenWeather-v0", "--agent", "hf:any", "--no-progress", "--episodes", "3"]) == 1
    err = error_line(capsys)
    assert "the first 3 episode(s) failed; the last: OpenWeather-v0, task " in err
    assert ", step 1: RuntimeError: probability tensor" in err and "configuration" not in err


def test_an_env_exception_ends_only_its_episode(tmp_path, capsys, monkeypatch):
    from toolgym.envs.base import ToolEnv

    step = ToolEnv.step

    def failing_step(self, action):
        if self.task_id == bad:
            raise RecursionError("deep \x1b[2J tree")
        return step(self, action)

    from toolgym.registry import make_env
    bad = make_env("OpenWeather-v0").unwrapped.task_ids()[1]
    monkeypatch.setattr(ToolEnv, "step", failing_step)
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "3", "--out", str(out),
                 "--no-progress"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] == bad for r in records] == [False, True, False]
    assert records[1]["error"] == f"{bad}, step 1: RecursionError: deep \\x1b[2J tree"
    assert [r["metrics"] is not None for r in records] == [True, False, True]
    assert "(1 episode(s) ended with an error and are not in the table)" in capsys.readouterr().out


class _Replies:
    """A policy that answers every step with the same text, as the batched and search runners call one."""

    def start(self, observation, info):
        return None

    def step_batch(self, states, observations, infos):
        from toolgym.agents.llm.agent import Step

        return [Step(action="It is sunny.", llm={}) for _ in states]


@pytest.mark.parametrize("runner", ["batched", "search"])
def test_an_env_exception_ends_only_its_episode_in_the_batched_and_search_runners(monkeypatch, runner):
    from toolgym.agents.search import parse_strategy
    from toolgym.envs.base import ToolEnv
    from toolgym.eval.batch import evaluate_batched, evaluate_search
    from toolgym.registry import make_env

    env_id = "OpenWeather-v0" if runner == "batched" else "ToolLLM-v0"  # search needs an env with snapshots
    step = ToolEnv.step
    bad = make_env(env_id).unwrapped.task_ids()[1]

    def failing_step(self, action):
        if self.task_id == bad:
            raise RecursionError("deep\x07tree")
        return step(self, action)

    env_class = type(make_env(env_id).unwrapped)
    reset = env_class.reset

    def failing_reset(self, *, seed=None, options=None):
        if (options or {}).get("task_id") == worse:
            raise KeyError("no such \x1b task")
        return reset(self, seed=seed, options=options)

    worse = make_env(env_id).unwrapped.task_ids()[3]
    monkeypatch.setattr(ToolEnv, "step", failing_step)
    monkeypatch.setattr(env_class, "reset", failing_reset)
    if runner == "batched":
        records, _, _ = evaluate_batched(env_id, _Replies(), "replies", episodes=5, progress=False,
                                         batch_size=2, max_steps=2)
        expected = f"OpenWeather-v0, task {bad}, step 1: RecursionError: deep\\x07tree"
        expected_reset = f"OpenWeather-v0, task {worse}, reset: KeyError: 'no such \\x1b task'"
    else:
        records, _, _ = evaluate_search(env_id, "replies", parse_strategy("react"), agent=_Replies(),
                                        episodes=5, progress=False, batch_size=2)
        expected = "RecursionError: deep\\x07tree"
        expected_reset = "reset: KeyError: 'no such \\x1b task'"
    assert [r["task_id"] == bad for r in records] == [False, True, False, False, False]
    assert records[1]["error"] == expected and records[3]["error"] == expected_reset
    assert all("Error" not in str(r.get("error")) for r in (records[0], records[2], records[4]))
