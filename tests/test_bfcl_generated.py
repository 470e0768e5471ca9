"""BFCL-v0's generated single-turn tasks to train on (split="train"|"test"): the oracle, the
held-out families, determinism, and no overlap with BFCL's official items."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.bfcl.tasks import builtin_single_turn, load_single_turn
from toolgym.worlds.bfcl import single_turn

CATEGORIES = single_turn.CATEGORIES


def make(split, count=40, **kwargs):
    return gym.make("BFCL-v0", split=split, category=list(CATEGORIES), tasks_per_category=count, **kwargs).unwrapped


@pytest.mark.parametrize("split", ["train", "test"])
def test_oracle_passes_every_sampled_task(split):
    env = make(split)
    assert len(env.task_ids()) == 40 * len(CATEGORIES)
    assert {env.task_split(t) for t in env.task_ids()} == set(CATEGORIES)
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(env.oracle_action())
        assert (reward, terminated, info["metrics"]["check"]) == (1.0, True, None), task_id


def test_a_wrong_value_or_a_call_in_irrelevance_fails():
    env = make("train", count=5)
    env.reset(options={"task_id": "simple_python_train-0"})
    call = env.oracle_action()[0]
    name, param = call["name"], next(iter(call["arguments"]))
    wrong = dict(call["arguments"], **{param: ["not", "this"]})
    _, reward, _, _, info = env.step({"name": name, "arguments": wrong})
    assert reward == 0.0 and info["metrics"]["check"] in ("type_error", "value_error")
    env.reset(options={"task_id": "irrelevance_train-0"})
    offered = env._info()["tools"][0]["function"]["name"]
    _, reward, _, _, info = env.step({"name": offered, "arguments": {}})
    assert (reward, info["metrics"]["check"]) == (0.0, "decoder_success")


def test_splits_hold_out_whole_families():
    train = {f.name for f in single_turn.families("train")}
    test = {f.name for f in single_turn.families("test")}
    assert not train & test and train | test == {f.name for f in single_turn.FAMILIES}
    assert len(test) == len(single_turn.FAMILIES) // 4
    for split, names in (("train", train), ("test", test)):
        offered = {doc["name"] for task in builtin_single_turn(3, 400, split) for doc in task.functions}
        assert offered == names  # every family of the split is used, and none of the other


def test_same_seed_same_tasks_and_another_seed_others():
    first = [json.dumps(single_turn.generate(7, "train", c, 50)) for c in CATEGORIES]
    assert first == [json.dumps(single_turn.generate(7, "train", c, 50)) for c in CATEGORIES]
    other = single_turn.generate(8, "train", "simple_python", 50)
    assert [t["question"] for t in other] != [t["question"] for t in single_turn.generate(7, "train",
                                                                                           "simple_python", 50)]


def test_tasks_vary_in_types_phrasing_and_calls():
    tasks = builtin_single_turn(0, 1000, "train")
    assert len({t.question[0][0]["content"] for t in tasks}) > 0.99 * len(tasks)
    types = {schema["type"] for t in tasks for d in t.functions for schema in d["parameters"]["properties"].values()}
    assert types == {"integer", "float", "string", "boolean", "array", "dict"}
    assert any("enum" in s for f in single_turn.FAMILIES for s in f.properties.values())
    calls = {t.category: {len(t.ground_truth or [])} for t in tasks}
    for task in tasks:
        calls[task.category].add(len(task.ground_truth or []))
    assert calls == {"simple_python": {1}, "multiple": {1}, "parallel": {2, 3}, "parallel_multiple": {2, 3, 4},
                     "irrelevance": {0}}
    left_out = [options for t in tasks for call in t.ground_truth or [] for options in next(iter(call.values())).values()
                if "" in options]
    assert [""] in left_out and any(len(options) == 2 for options in left_out)  # optional, without and with a default


def test_no_official_question_or_function_name_appears(official_data):
    folder = official_data / "bfcl"
    if not (folder / "BFCL_v4_simple_python.json").exists():
        pytest.skip("no BFCL data under the official data folder")
    questions, names = set(), set()
    for category in ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
                     "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
                     "live_relevance", "simple_java", "simple_javascript"):
        for task in load_single_turn(folder, category):
            names |= {d["name"] for d in task.functions}
            questions |= {m["content"] for turn in task.question for m in turn if m.get("role") == "user"}
    for split in ("train", "test"):
        tasks = builtin_single_turn(0, 1000, split)
        assert not {d["name"] for t in tasks for d in t.functions} & names
        assert not {t.question[0][0]["content"] for t in tasks} & questions


def test_composed_families_vary_docs_and_keep_irrelevance_clean():
    composed = [f for f in single_turn.FAMILIES if f.topic]
    assert len(composed) == 240 and len(single_turn.FAMILIES) == 272
    actions = {f.name.split(".", 1)[1] for f in composed}
    assert len(actions) == len(composed)  # one function per verb and thing, whatever its area
    kinds = {schema["type"] for f in composed for schema in f.properties.values()}
    assert kinds == {"integer", "float", "string", "boolean", "array"}
    tasks = builtin_single_turn(0, 400, "train")
    by_name = {f.name: f for f in single_turn.FAMILIES}
    drawn = [by_name[d["name"]] for t in tasks if t.category == "simple_python" for d in t.functions]
    assert 0.35 < sum(1 for f in drawn if f.topic) / len(drawn) < 0.65  # half the tasks on each kind
    for task in tasks:
        if task.category == "irrelevance":
            offered = [by_name[d["name"]] for d in task.functions]
            assert task.ground_truth is None and offered
            asked = [f for f in single_turn.FAMILIES if f.topic and f.topic.replace("_", " ") in
                     task.question[0][0]["content"] and f.name.split(".")[1].split("_")[0] in
                     task.question[0][0]["content"].lower()]
            assert not {f.name for f in asked} & {f.name for f in offered}, task.id


def test_numbers_are_answered_as_spoken():
    env, tasks = make("train", count=300), builtin_single_turn(0, 300, "train")
    whole_floats, integers = 0, 0
    for task in tasks:
        for call in task.ground_truth or []:
            (name, params), = call.items()
            doc = next(d for d in task.functions if d["name"] == name)
            for param, options in params.items():
                kind = doc["parameters"]["properties"][param]["type"]
                if kind in ("float", "integer") and options[0] != "":  # written exactly: 37093.59, never 37093.6
                    assert repr(options[0]) in task.question[0][0]["content"], (task.id, param)
                if kind == "float" and isinstance(options[0], int):
                    whole_floats += 1
                if kind == "integer" and options[0] != "":
                    assert type(options[0]) is int
                    integers += 1
    assert whole_floats > 50 and integers > 200
    # BFCL's rule, which the answers teach: 12.0 for an integer parameter is wrong, 12 for a float right
    task = next(t for t in tasks if t.category == "simple_python" and any(
        s["type"] == "integer" for s in t.functions[0]["parameters"]["properties"].values()))
    env.reset(options={"task_id": task.id})
    call = env.oracle_action()[0]
    param = next(p for p, s in task.functions[0]["parameters"]["properties"].items()
                 if s["type"] == "integer" and p in call["arguments"])
    _, reward, _, _, info = env.step({"name": call["name"], "arguments": dict(call["arguments"],
                                                                              **{param: float(call["arguments"][param])})})
    assert (reward, info["metrics"]["check"]) == (0.0, "type_error")
