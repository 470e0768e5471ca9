"""BFCL-v0: the single-turn AST checker, both action modes, the oracle, the multi-turn loop."""

from __future__ import annotations

import json
import types
from dataclasses import dataclass, field

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.bfcl import env as bfcl_env
from toolgym.envs.bfcl.env import COMPAT_REJECTED, MAXIMUM_STEP_LIMIT, resolve_categories
from toolgym.envs.bfcl.tasks import SINGLE_TURN, oracle_calls


@pytest.fixture
def bfcl_data(official_data):
    """The BFCL folder of the official data, or skip."""
    if not (official_data / "bfcl" / "BFCL_v4_simple_python.json").exists():
        pytest.skip("no BFCL data under the official data folder")
    return official_data


def make(**kwargs):
    return gym.make("BFCL-v0", **kwargs).unwrapped


def run(env, task_id, action=None):
    """Reset to ``task_id`` and answer with ``action`` (the oracle's when None)."""
    env.reset(options={"task_id": task_id})
    if action is None:
        action = env.oracle_action()
    _, reward, terminated, _, info = env.step(action)
    assert terminated
    return reward, info["metrics"]


def test_prompt_parts_past_the_bound_are_made_anew_and_those_kept_stay(monkeypatch):
    """A task's ``functions``, ``tools`` and ``system_prompt`` are made once and shared by its
    episodes' ``info``; once the kept system prompts reach MAX_PROMPT_CHARS, a new task's parts are
    made for its episode but not kept, and the parts kept before stay (issue 48)."""
    env = make(category="single_turn")
    first, second = env.task_ids()[:2]
    _, info = env.reset(options={"task_id": first})
    monkeypatch.setattr(bfcl_env, "MAX_PROMPT_CHARS", len(info["system_prompt"]))
    assert env.reset(options={"task_id": first})[1]["tools"] is info["tools"]  # kept
    _, other = env.reset(options={"task_id": second})
    assert other["system_prompt"] and other["system_prompt"] != info["system_prompt"]
    assert env.reset(options={"task_id": second})[1]["tools"] is not other["tools"]  # not kept: made again
    assert env.reset(options={"task_id": second})[1]["tools"] == other["tools"]
    assert env.reset(options={"task_id": first})[1]["tools"] is info["tools"]  # still kept
    assert list(env._prompts) == [first]


def test_a_single_turn_questions_messages_are_copied_once_per_task_and_shared_by_its_episodes():
    env = make(category="single_turn")
    task_id = env.task_ids()[0]
    _, first = env.reset(options={"task_id": task_id})
    *_, last = env.step(env.oracle_action())
    _, again = env.reset(options={"task_id": task_id})
    question = [m for turn in env.task_records()[task_id].question for m in turn]
    assert first["messages"] == again["messages"] == question and first["messages"] is not again["messages"]
    assert again["messages"][0] is first["messages"][0] is last["messages"][0]  # copied once, shared
    assert first["messages"][0] is not question[0] and len(last["messages"]) == len(question) + 1
    assert len(again["messages"]) == len(question)  # the last episode's answer is not in the new one


# -- oracle ---------------------------------------------------------------------------------------
def test_oracle_scores_every_builtin_task():
    env = make(category="single_turn")
    assert len(env.task_ids()) == 42
    for task_id in env.task_ids():
        assert run(env, task_id) == (1.0, {"success": 1, "check": None, "error_type": None,
                                                               "invalid_actions": 0})


def test_oracle_scores_every_official_single_turn_item(bfcl_data):
    """Every official single-turn item (3,641) passes under paper; paper_compat rejects exactly
    the released checker's own rejections of its ground truths."""
    for scoring in ("paper", "paper_compat"):
        env = make(category="single_turn", tasks="official", data_dir=str(bfcl_data), scoring=scoring)
        assert {env.task_split(t) for t in env.task_ids()} == set(SINGLE_TURN)
        failed = [t for t in env.task_ids() if run(env, t)[0] != 1.0]
        assert len(env.task_ids()) == 3641
        assert failed == ([] if scoring == "paper" else list(COMPAT_REJECTED))


def test_prompting_format_reads_java_and_javascript_source(bfcl_data):
    """The ground truth written in BFCL's prompting format, Java and JavaScript values as source."""
    for category in ("simple_java", "simple_javascript"):
        env = make(category=category, tasks="official", data_dir=str(bfcl_data))
        for task_id in env.task_ids():
            env.reset(options={"task_id": task_id})
            docs = {d["name"]: d["parameters"]["properties"] for d in env.task.functions}
            text = "[" + ", ".join(
                f"{name}(" + ", ".join(f"{k}={json.dumps(v) if docs[name][k]['type'] == 'String' else v}"
                                       for k, v in args.items()) + ")"
                for name, args in oracle_calls(env.task)) + "]"
            assert env.step(text)[1] == 1.0, (task_id, text)


# -- perturbed answers fail with the check named ------------------------------------------------------
@pytest.fixture
def env():
    return make(category="single_turn")


def test_wrong_value_type_and_missing_parameter(env):
    assert run(env, "simple_python_0", "[geometry.circle_area(radius=1.0)]")[1]["check"] == "value_error"
    assert run(env, "simple_python_0", "[geometry.circle_area(radius='big')]")[1]["check"] == "type_error"
    assert run(env, "simple_python_0", "[geometry.circle_area(units='cm')]")[1]["check"] == "missing_required"
    assert run(env, "simple_python_0", "[circle_area(radius=1.0)]")[1]["check"] == "wrong_func_name"
    env.reset(options={"task_id": "multiple_0"})
    city = env.oracle_action()[0]["arguments"]["city"]
    reward, metrics = run(env, "multiple_0", f"[get_weather(city={city!r})]")  # the unit is not optional
    assert reward == 0.0 and metrics["error_type"] == "simple_function_checker:missing_optional"


def test_java_value_and_type_are_checked_as_source_text(env):
    env.reset(options={"task_id": "simple_java_0"})
    truth = env.oracle_action()[0]["arguments"]
    assert truth["urgent"] == "true" and truth["quantity"].isdigit()
    wrong = dict(truth, quantity=str(int(truth["quantity"]) + 1))
    assert run(env, "simple_java_0", {"name": "Inventory_restock", "arguments": wrong})[1]["check"] == "value_error"
    typed = dict(truth, urgent=True)  # a JSON boolean where Java source text is asked for
    assert run(env, "simple_java_0", {"name": "Inventory_restock", "arguments": typed})[1]["error_type"] \
        == "type_error:java"


def test_parallel_calls_match_in_any_order_and_an_extra_call_fails(env):
    env.reset(options={"task_id": "parallel_0"})
    calls = env.oracle_action()
    assert run(env, "parallel_0", list(reversed(calls)))[0] == 1.0
    reward, metrics = run(env, "parallel_0", calls + [calls[0]])
    assert (reward, metrics["check"]) == (0.0, "wrong_count")
    swapped = [calls[0], {"name": "get_weather", "arguments": dict(calls[1]["arguments"], city="Atlantis")}]
    assert run(env, "parallel_0", swapped)[1]["check"] == "cannot_find_match"


def test_irrelevance_passes_without_a_call_and_fails_with_one(env):
    assert run(env, "irrelevance_0", "I cannot answer that with these functions.")[0] == 1.0
    assert run(env, "irrelevance_0", "[]")[0] == 1.0
    reward, metrics = run(env, "irrelevance_0", "[stock.price(ticker='AAPL')]")
    assert (reward, metrics["check"]) == (0.0, "decoder_success")


def test_native_calls_use_underscored_names_and_json_text(env):
    env.reset(options={"task_id": "simple_python_0"})
    tools = {t["function"]["name"]: t for t in env._info()["tools"]}
    assert "geometry_circle_area" in tools
    assert tools["geometry_circle_area"]["function"]["parameters"]["properties"]["radius"]["type"] == "number"
    radius = env.oracle_action()[0]["arguments"]["radius"]
    call = {"type": "function", "function": {"name": "geometry_circle_area",
                                             "arguments": json.dumps({"radius": radius})}}
    assert run(env, "simple_python_0", json.dumps(call))[0] == 1.0
    assert run(env, "simple_python_0", f"geometry.circle_area(radius={int(radius)})")[0] == 1.0  # int for float


def test_prompting_format_is_never_evaluated(env, tmp_path):
    marker = tmp_path / "ran"
    action = f"[__import__('os').system('touch {marker}')]"
    env.reset(options={"task_id": "simple_python_0"})
    observation, reward, terminated, _, info = env.step(action)
    assert (reward, terminated, info["metrics"]["check"]) == (0.0, True, "decoder_failed")
    assert "not a function name" in observation and info["metrics"]["invalid_actions"] == 1
    assert not marker.exists()


def test_categories_groups_and_lists():
    assert resolve_categories("hallucination") == ("irrelevance", "live_irrelevance", "live_relevance")
    assert resolve_categories(["parallel", "non_live"])[:2] == ("parallel", "simple_python")
    with pytest.raises(ValueError, match="unknown category"):
        make(category="simple_cobol")
    env = make(category=["parallel", "irrelevance"])
    assert {env.task_split(t) for t in env.task_ids()} == {"parallel", "irrelevance"}


# -- multi-turn, against the interface of toolgym.envs.bfcl.multi_turn ----------------------------------
@dataclass(frozen=True)
class FakeTask:
    id: str
    category: str
    turns: list
    ground_truth: list
    functions: list = field(default_factory=lambda: [
        {"name": "cd", "description": "Change directory.",
         "parameters": {"type": "dict", "properties": {"folder": {"type": "string"}}, "required": ["folder"]}}])


class FakeEpisode:
    """A two-turn episode: the first turn wants cd(folder='docs'), the second no call."""

    def __init__(self, task, scoring="paper"):
        self.task, self.turn, self.done, self.calls, self.passed = task, 0, False, [], []

    def functions(self):
        return self.task.functions

    def user_messages(self):
        return self.task.turns[self.turn]

    def start_step(self):
        pass

    def close(self):
        self.done = True

    def execute(self, name, arguments):
        self.calls.append((name, arguments))
        return f"{name} ran" if name == "cd" else f"Error during execution: no function {name}"

    def end_turn(self):
        passed = self.calls == self.task.ground_truth[self.turn]
        self.passed.append(passed)
        self.calls, self.turn = [], self.turn + 1
        self.done = self.turn == len(self.task.turns)
        return {"turn": self.turn - 1, "passed": passed, "check": None if passed else "state", "detail": ""}

    def metrics(self):
        failing = next((i for i, p in enumerate(self.passed) if not p), None)
        return {"success": int(failing is None), "turns_passed": sum(self.passed), "turns": len(self.passed),
                "failing_turn": failing, "failing_check": None if failing is None else "state"}

    def oracle_calls(self):
        return list(self.task.ground_truth[self.turn])


@pytest.fixture
def multi_turn_env(monkeypatch):
    task = FakeTask("multi_turn_base_0", "multi_turn_base",
                    [[{"role": "user", "content": "Go to docs."}], [{"role": "user", "content": "Thanks."}]],
                    [[("cd", {"folder": "docs"})], []])
    fake = types.SimpleNamespace(MultiTurnEpisode=FakeEpisode, builtin_multi_turn_tasks=lambda seed: [task],
                                 load_multi_turn_tasks=lambda folder, category: [task])
    monkeypatch.setattr(bfcl_env, "_multi_turn", lambda: fake)
    return make(category="multi_turn_base")


def test_multi_turn_oracle_runs_every_turn(multi_turn_env):
    env = multi_turn_env
    observation, info = env.reset(options={"task_id": "multi_turn_base_0"})
    assert observation == "Go to docs." and info["tools"][0]["function"]["name"] == "cd"
    rewards, steps = [], 0
    while True:
        observation, reward, terminated, _, info = env.step(env.oracle_action())
        rewards.append(reward)
        steps += 1
        if terminated:
            break
    assert steps == 3 and sum(rewards) == 1.0 and info["metrics"]["success"] == 1
    assert [m["role"] for m in info["messages"]] == ["user", "assistant", "tool", "assistant", "user", "assistant"]


def test_multi_turn_info_messages_are_the_conversation_at_each_step(multi_turn_env):
    """Each info's messages are the conversation so far, in a list of their own: each message is
    copied once and shared by the episode's infos (issue 48); a new episode starts its own."""
    env = multi_turn_env
    _, first = env.reset(options={"task_id": "multi_turn_base_0"})
    infos = [first]
    while True:
        *_, terminated, _, info = env.step(env.oracle_action())
        assert info["messages"] == env._messages and info["messages"][0] is not env._messages[0]
        infos.append(info)
        if terminated:
            break
    assert [len(info["messages"]) for info in infos] == [1, 3, 5, 6]
    assert infos[1]["messages"][1] is infos[2]["messages"][1]  # copied once
    assert first["messages"] == [{"role": "user", "content": "Go to docs."}]
    _, again = env.reset(options={"task_id": "multi_turn_base_0"})
    assert again["messages"] == first["messages"] and again["messages"][0] is not first["messages"][0]


def test_multi_turn_calls_run_in_order_and_a_wrong_turn_fails(multi_turn_env):
    env = multi_turn_env
    env.reset(options={"task_id": "multi_turn_base_0"})
    observation = env.step("[cd(folder='docs'), rm(file='x')]")[0]
    assert observation == "cd ran\nError during execution: no function rm"
    env.step("Done.")
    _, reward, terminated, _, info = env.step("Bye.")
    assert (reward, terminated, info["metrics"]["failing_turn"]) == (0.0, True, 0)


def test_multi_turn_step_limit_forces_quit(multi_turn_env):
    env = multi_turn_env
    env.reset(options={"task_id": "multi_turn_base_0"})
    for _ in range(MAXIMUM_STEP_LIMIT):
        assert not env.step("[cd(folder='docs')]")[2]
    _, reward, terminated, _, info = env.step("[cd(folder='docs')]")
    assert (reward, terminated, info["metrics"]["failing_check"]) == (0.0, True, "force_quit")


# -- the leaderboard's columns ---------------------------------------------------------------------
def test_table_has_bfcl_aggregates_as_rows():
    from toolgym.eval.runner import format_table

    env = make(category="non_live")
    scores = {"simple_python": [1, 1], "simple_java": [1, 0], "simple_javascript": [0, 0],
              "multiple": [1, 1], "parallel": [1, 0], "parallel_multiple": [0, 0], "irrelevance": [1, 1]}
    records = [{"task_id": f"{split}_{i}", "split": split, "metrics": {"success": s}}
               for split, values in scores.items() for i, s in enumerate(values)]
    rows = {line.split("  ")[0].strip(): line.split()[-1] for line in format_table(env, records).splitlines()[3:]}
    assert rows["Simple AST (non-live)"] == "50.0"  # the mean of 100, 50 and 0
    assert rows["Non-Live AST"] == "50.0"  # the mean of simple 50, multiple 100, parallel 50, parallel_multiple 0
    assert rows["Irrelevance (partial)"] == "100.0"  # live_irrelevance was not run
    assert "Live AST" not in rows and "Live AST (partial)" not in rows


# -- the LLM agent's bfcl prompt format ---------------------------------------------------------------
class ScriptedBackend:
    """Answers each request with ``answer(request)``: a text, or native tool calls."""

    name = "scripted"

    def __init__(self, answer):
        self.answer, self.requests = answer, []

    def describe(self):
        return {"backend": self.name, "model": "scripted"}

    def generate(self, requests, sampling):
        from toolgym.llm import Completion

        self.requests.extend(requests)
        out = []
        for request in requests:
            answer = self.answer(request)
            out.append(Completion(tool_calls=answer, completion_tokens=1) if isinstance(answer, list)
                       else Completion(text=answer, completion_tokens=1))
        return out


@pytest.mark.parametrize("native", [False, True])
def test_llm_agent_solves_parallel_tasks_in_both_modes(native):
    """The oracle's answer as a prompting model's text or as native tool calls: one action each."""
    from toolgym.agents.llm import LLMAgent

    env = gym.make("BFCL-v0", category=["parallel", "parallel_multiple", "multiple"])
    base = env.unwrapped

    def answer(request):
        calls = base.oracle_action()
        if native:
            return [{"type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                    for c in calls]
        names = {d["name"].replace(".", "_"): d["name"] for d in base.task.functions}
        return "[" + ", ".join(f"{names[c['name']]}(" + ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items())
                               + ")" for c in calls) + "]"

    scripted = ScriptedBackend(answer)
    agent = LLMAgent(scripted, env=env)
    for task_id in base.task_ids():
        obs, info = env.reset(options={"task_id": task_id})
        agent.reset(obs, info)
        _, reward, terminated, _, info = env.step(agent.act(obs, info))
        assert (reward, terminated) == (1.0, True), task_id
    request = scripted.requests[-1]
    assert request.tools is None
    assert request.messages[0]["role"] == "system"
    assert request.messages[0]["content"].startswith("You are an expert in composing functions.")
    assert '"name": "stock.price"' in request.messages[0]["content"] or '"name": "get_weather"' in \
        request.messages[0]["content"]
    assert request.messages[-1] == {"role": "user", "content": obs}


def test_bfcl_format_gives_a_steps_results_as_one_user_turn(multi_turn_env):
    from toolgym.agents.llm.prompts import make_prompt_format

    env = multi_turn_env
    env.reset(options={"task_id": "multi_turn_base_0"})
    info = env.step("[cd(folder='docs'), cd(folder='x')]")[4]
    messages, tools = make_prompt_format("bfcl").build(None, info)
    assert tools is None and [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "[cd(folder='docs'), cd(folder='x')]"
    # BFCL names each result by the call as written back (decoded_output_to_execution_list)
    assert messages[3]["content"] == repr([{"role": "tool", "name": "cd(folder='docs')", "content": "cd ran"},
                                           {"role": "tool", "name": "cd(folder='x')", "content": "cd ran"}])


def test_a_long_java_value_is_refused_before_the_quadratic_patterns():
    """BFCL's HashMap pattern takes seconds on 100,000 characters; such a value is not read."""
    import time

    from toolgym.envs.bfcl.ast_checker import check_call

    doc = {"name": "f", "parameters": {"properties": {"m": {"type": "HashMap"}}, "required": ["m"]}}
    start = time.process_time()
    verdict = check_call(doc, {"f": {"m": "new HashMap<" * 8000}}, {"f": {"m": [{"k": ["v"]}]}}, "java")
    assert verdict["error_type"] == "value_error:others" and "not read" in verdict["error"]
    assert time.process_time() - start < 2.0  # CPU time, wide margin: read unbounded it takes seconds


def test_multi_turn_episodes_run_through_the_real_worlds(official_data):
    """The env's multi-turn loop over the merged worlds and checker: the oracle passes official
    tasks of every multi-turn category, and answering a turn with no call fails it, named."""
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"):
        env = gym.make("BFCL-v0", category=category, tasks="official", data_dir=str(official_data)).unwrapped
        for task_id in env.task_ids()[:3]:
            env.reset(seed=0, options={"task_id": task_id})
            for _ in range(200):
                *_, terminated, truncated, info = env.step(env.oracle_action())
                if terminated or truncated:
                    break
            assert info["metrics"]["success"] == 1, (category, task_id, info["metrics"])
    env.reset(seed=0, options={"task_index": 0})
    *_, info = env.step("I cannot help with that.")  # the first turn's calls never made
    while "metrics" not in info:
        *_, info = env.step("Done.")
    assert info["metrics"]["success"] == 0 and info["metrics"]["check"]


def test_a_javascript_array_value_is_read_in_linear_time_with_bfcls_verdicts():
    """BFCL's 2-D array pattern backtracks exponentially: 30 unclosed rows took over 40 s."""
    import time

    from toolgym.envs.bfcl.ast_checker import js_value

    start = time.process_time()
    unclosed = "[" + ",".join(["[1]"] * 300)  # no final bracket: not 2-D; the 1-D pattern takes "[1"
    assert js_value(unclosed, "array") == ["[1"]
    assert js_value(" [ [1, 'a'],[2]\t, [3] ]", "array") == [[1, "a"], [2], [3]]
    assert js_value("new Array([1, 2], [3, 4])", "array", "array") == [[1, 2], [3, 4]]
    # What BFCL's js_type_converter gives (run on these): a row's text never crosses a line
    assert js_value("[[1], x], [2]]", "array") == [[1], [2]]
    assert js_value("[[1],\n[2]]", "array") == js_value("[[1]\n,[2]]", "array") == [[1], [2]]
    assert js_value("[[1\n],[2]]", "array") == "[[1\n],[2]]"
    assert time.process_time() - start < 2


def test_the_linear_array_reader_ends_where_bfcls_pattern_ends_on_short_texts():
    """BFCL's pattern, run only on texts short enough for its backtracking."""
    import random
    import re

    from toolgym.envs.bfcl.ast_checker import _js_2d_array_end

    bfcl_2d = re.compile(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)")
    rng = random.Random(46)
    pieces = ["[", "]", ",", " ", "\n", "\t", "\u00a0", "1", "a", "(", ")", "new Array("]
    for _ in range(20_000):
        text = rng.choice(["[[", "[ [", "new Array([", "new  Array( [", ""]) + \
            "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        match = bfcl_2d.match(text)
        assert _js_2d_array_end(text) == (match.end() if match else None), text


def test_a_java_hashmap_value_is_read_in_linear_time_with_bfcls_body():
    """BFCL's HashMap pattern has five optional-space quantifiers in a row: ``{`` and 980 spaces
    (within the 1,000 characters a value may have) ran for minutes."""
    import random
    import re
    import time

    from toolgym.envs.bfcl.ast_checker import _java_hashmap_body, java_value

    start = time.process_time()
    assert java_value("new HashMap<>() {" + " " * 980, "HashMap") == {}
    assert java_value('new HashMap<String, Integer>() {{ put("a", 1); put("b", 2L); }}', "HashMap") == {"a": 1, "b": 2}
    assert time.process_time() - start < 2
    bfcl_hashmap = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.S)
    rng = random.Random(46)
    pieces = ["new HashMap<", "new  HashMap<", ">", "<", "()", "(", ")", "{", "}", " ", "\n", "\u00a0", 'put("a", 1)', "x"]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        match = bfcl_hashmap.search(text)
        assert _java_hashmap_body(text) == (match.group(1) if match else None), text


def test_a_98_kb_step_of_2800_mkdir_cd_pairs_is_answered_and_the_turn_ends_without_error():
    """The round-4 step: it raised RecursionError out of env.step at the turn's end."""
    import time

    from toolgym.envs.bfcl.env import BFCLEnv

    env = BFCLEnv(category="multi_turn_base")
    env.reset(options={"task_id": "builtin_multi_turn_files_0"})
    action = "[" + ",".join("mkdir(dir_name='d'),cd(folder='d')" for _ in range(2800)) + "]"
    assert 90_000 < len(action) < env.max_action_chars
    start = time.process_time()
    observation = env.step(action)[0].split("\n")
    assert len(observation) == 5600 and observation[:2] == ["None", '{"current_working_directory": "d"}']
    assert set(observation[200:]) == {
        "Error during execution: the call did not run: more than 200 calls in one step is over toolgym's budget"}
    _, _, terminated, truncated, info = env.step("done")  # the turn ends: graded, no exception
    assert not truncated and (terminated or info["messages"][-1]["role"] == "user")
    assert time.process_time() - start < 20


def test_an_argument_equal_to_an_option_passes_without_the_options_standard_forms():
    """The checker's string and list checks: a value equal to an option passes before any standard
    form is made (none is computed); a value equal only in standard form passes, another fails."""
    from toolgym.envs.bfcl import ast_checker

    doc = {"name": "f", "parameters": {"type": "dict", "required": ["city"], "properties": {
        "city": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}}
    answer = {"f": {"city": ["New York", "NYC"], "tags": [["a b", "c"]]}}
    ast_checker._standardized.cache_clear()
    assert ast_checker.check_call(doc, {"f": {"city": "NYC", "tags": ["a b", "c"]}}, answer, "python")["valid"]
    assert ast_checker._standardized.cache_info().misses == 0
    assert ast_checker.check_call(doc, {"f": {"city": "new york", "tags": ["A-B", "c"]}}, answer, "python")["valid"]
    failed = ast_checker.check_call(doc, {"f": {"city": "Boston", "tags": ["a b", "c"]}}, answer, "python")
    assert failed["error_type"] == "value_error:string" and "'Boston'" in failed["error"]
    failed = ast_checker.check_call(doc, {"f": {"city": "NYC", "tags": ["a", "c"]}}, answer, "python")
    assert failed["error_type"] == "value_error:list/tuple"


def test_a_positional_argument_is_dropped_as_bfcls_decoder_drops_it(env):
    """BFCL's default_decode_ast_prompting keeps keywords only; its ast_checker (bfcl-eval
    2026.3.23) then gives these verdicts: missing_required, valid, valid."""
    reward, metrics = run(env, "simple_python_0", "[geometry.circle_area(26.0)]")
    assert (reward, metrics["error_type"]) == (0.0, "simple_function_checker:missing_required")
    assert run(env, "simple_python_0", "[geometry.circle_area('cm', radius=26.0)]")[0] == 1.0
    assert run(env, "simple_python_0", "[geometry.circle_area(*[26.0], radius=26.0)]")[0] == 1.0
