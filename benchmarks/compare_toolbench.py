"""ToolLLM-v0 and ToolEval item by item against ToolBench's own code, over the 765 official queries.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/THUNLP-MT/StableToolBench (or https://github.com/OpenBMB/ToolBench). Its code
is imported from there and run in this process; nothing of it is reimplemented here. Its network
and model imports are replaced by stubs: the RapidAPI server is a function that records the
request and answers ``{"error": "", "response": "ok"}``, the LLM a script of model outputs, and
ToolEval's judge a function that records what it was asked. ToolBench reads tools from a
``tool_root_dir`` of per-tool JSON files; one is written to a temporary folder from the API
documents inside the queries (the data has no tool descriptions, so those are empty).

Items compared, per query, under ``--scoring`` (``paper``, ``paper_compat`` or ``both``):

- **names**: each API's function name (``change_name(standardize(api))_for_standardize(tool)``,
  64-character cut);
- **offered**: each function ToolBench offers is offered as many times by toolgym;
- **schema**: each function's description and parameters (``api_json_to_openai_json``;
  StableToolBench's ``""`` placeholder at the head of ``required`` / ``optional`` is ignored);
- **system prompt**: ToolBench's system message with its tool list, character for character;
- **dispatch**: the API a call of each offered name runs (ToolBench's ``_step``: the request it
  sends) or that no function has that name;
- **Finish**: the observation, whether the episode ends and with which answer, for a fixed set
  of well-formed and broken Finish inputs (once, not per query);
- **DFSDT**: scripted model outputs searched by ``DFS_tree_search(...).start(12, 2, 200,
  with_filter=False)`` (``DFS_woFilter_w2``) and by toolgym's ``dfsdt``: the tree (node types,
  descriptions, depths, answer and give-up codes, in pre-order), the expansion order, the LLM
  calls counted, and whether ToolEval's ``check_is_solved`` asks the judge.

Run: .venv/bin/python benchmarks/compare_toolbench.py --original /path/to/StableToolBench
     [--data-dir ../shared/data] [--scoring both] [--dfs-queries 765] [--show 3]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import inspect
import io
import json
import os
import random
import sys
import tempfile
import types
from collections import Counter, defaultdict
from pathlib import Path

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.agents.llm.agent import Step
from toolgym.llm.backends import Completion
from toolgym.agents.search import parse_strategy, run_search
from toolgym.agents.search.runner import search_record
from toolgym.envs.toolllm.tasks import load_official
from toolgym.eval.tooleval import SOLVED, ToolEvalJudge, answer_of

FINISH_INPUTS = [
    '{"return_type": "give_answer", "final_answer": "The answer."}',
    '{"return_type": "give_answer", "final_answer": "two\nlines"}',
    '{"return_type": "give_answer", "final_answer": "unterminated',
    '{"return_type": "give_answer", "final_answer": "said "quoted" words"}',
    '{"return_type": "give_answer", "final_answer": ""}',
    '{"return_type": "give_answer"}',
    '{"return_type": "give_answer", oops',
    '{"return_type": "give_up_and_restart"}',
    '{"return_type": "give_up_and_restart", oops',
    '{"return_type": "maybe", "x": 1,',
    '{"final_answer": "no type"}',
    '{"final_answer": "no type',
    'not json at all',
    '',
]
GIVE_UP = (None, "Finish", '{"return_type": "give_up_and_restart"}')
ANSWER = '{"return_type": "give_answer", "final_answer": "The answer."}'


def scenarios(first: str) -> dict[str, list]:
    """Scripted model outputs ((thought or None, function or None, arguments text), in the order
    asked); ``first`` is the query's first function. A script that runs out gives up."""
    call = ("Let me call it.", first, "{}")
    return {
        "answer": [call, ("Done.", "Finish", ANSWER)],
        "bare calls": [(None, first, "{}"), (None, "Finish", ANSWER)],
        "broken finish": [call, (None, "Finish", '{"return_type": "give_answer", "final_answer": "unterminated')],
        "raw newline": [("Answering.", "Finish", '{"return_type": "give_answer", "final_answer": "a\nb"}')],
        "empty answer": [call, ("Done.", "Finish", '{"return_type": "give_answer", "final_answer": ""}')],
        "rejected finish": [("Answering.", "Finish", '{"final_answer": "no type"}')] + [call] * 6,
        "give up, then answer": [call, GIVE_UP, call, ("Done.", "Finish", ANSWER)],
        "text only": [("I will think first.", None, None), ("Done.", "Finish", ANSWER)],
        "unknown function": [("Calling.", "no_such_function", "{}")] * 3 + [(None, "Finish", ANSWER)],
        "deep": [call] * 40,
    }


# -- the original, imported from the checkout ---------------------------------------------------------
def _stub(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    def placeholder(attribute: str):  # any class a stubbed module is asked for (never called here)
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return type(attribute, (), {})

    module.__getattr__ = placeholder
    sys.modules[name] = module
    return module


def load_original(checkout: Path) -> types.SimpleNamespace:
    """ToolBench's rapidapi module, DFS search, prompts and ToolEval's evaluator, from ``checkout``."""
    if not (checkout / "toolbench" / "inference" / "Downstream_tasks" / "rapidapi.py").is_file():
        raise SystemExit(f"{checkout}: no toolbench/inference/Downstream_tasks/rapidapi.py (a ToolBench checkout?)")
    _stub("termcolor", colored=lambda text, *args, **kwargs: text)
    identity = lambda *args, **kwargs: (lambda function: function)  # noqa: E731
    _stub("tenacity", retry=identity, stop_after_attempt=lambda *a: None, wait_random_exponential=lambda **k: None,
          wait_exponential=lambda **k: None)
    for name in ("chatgpt_function_model", "davinci_model", "tool_llama_lora_model", "tool_llama_model", "retriever"):
        _stub(f"toolbench.inference.LLM.{name}")
    _stub("toolbench.inference.server", get_rapidapi_response=None)
    for path in (checkout / "toolbench" / "tooleval", checkout / "toolbench" / "inference", checkout):
        sys.path.insert(0, str(path))
    with contextlib.redirect_stdout(io.StringIO()):
        rapidapi = importlib.import_module("toolbench.inference.Downstream_tasks.rapidapi")
        dfs = importlib.import_module("Algorithms.DFS")
        prompts = importlib.import_module("Prompts.ReAct_prompts")
        rtl = importlib.import_module("evaluators.registered_cls.rtl")
        convert = importlib.import_module("convert_to_answer_format")
    tool_calls = "tool_calls" in inspect.getsource(dfs)  # StableToolBench; ToolBench's DFS reads function_call
    return types.SimpleNamespace(rapidapi=rapidapi, dfs=dfs, prompts=prompts, rtl=rtl, convert=convert,
                                 tool_calls=tool_calls)


class Server:
    """The RapidAPI server as ToolBench's ``_step`` reaches it: records each request."""

    def __init__(self):
        self.requests: list[dict] = []

    def post(self, url, json=None, headers=None, timeout=None):  # noqa: A002 - requests.post's names
        self.requests.append(json)
        return types.SimpleNamespace(status_code=200, json=lambda: {"error": "", "response": "ok"})


def tool_root(queries, folder: Path, standardize) -> Path:
    """ToolBench's ``tool_root_dir`` (``<category>/<tool>.json``) from the queries' API documents."""
    tools: dict[tuple[str, str], dict] = {}
    for query in queries:
        for doc in query.api_list:
            tool = tools.setdefault((doc["category_name"], standardize(doc["tool_name"])), {
                "tool_name": doc["tool_name"], "tool_description": doc.get("tool_description", ""), "api_list": []})
            if all(api["name"] != doc["api_name"] for api in tool["api_list"]):
                tool["api_list"].append({"name": doc["api_name"], "description": doc.get("api_description", ""),
                                         "required_parameters": doc.get("required_parameters", []),
                                         "optional_parameters": doc.get("optional_parameters", [])})
    for (category, name), tool in tools.items():
        (folder / category).mkdir(parents=True, exist_ok=True)
        (folder / category / f"{name}.json").write_text(json.dumps(tool))
    return folder


class Original:
    """ToolBench's env for each query, and its DFS over scripted outputs."""

    def __init__(self, code, queries, folder: Path):
        self.code = code
        self.args = types.SimpleNamespace(
            tool_root_dir=str(tool_root(queries, folder, code.rapidapi.standardize)), toolbench_key="", rapidapi_key="",
            use_rapidapi_key=False, api_customization=False, max_observation_length=1024,
            observ_compress_method="truncate", retrieved_api_nums=5)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            self.white_list = code.rapidapi.get_white_list(self.args.tool_root_dir)
        self.server = Server()
        code.rapidapi.requests = types.SimpleNamespace(post=self.server.post, exceptions=code.rapidapi.requests.exceptions)
        code.rapidapi.time = types.SimpleNamespace(sleep=lambda seconds: None)

    def env(self, query):
        names = [self.code.rapidapi.standardize(doc["tool_name"]) for doc in query.api_list]
        described = [[t["standard_tool_name"], t["description"]]
                     for t in self.code.rapidapi.contain(names, self.white_list)]
        record = {"query": query.query, "api_list": [dict(d) for d in query.api_list]}
        with contextlib.redirect_stdout(io.StringIO()):
            return self.code.rapidapi.rapidapi_wrapper(record, described, None, self.args, process_id=1)

    def call(self, env, name: str, arguments: str) -> tuple[str, int, dict | None]:
        """(observation, status, the request sent or None) of ``env._step``."""
        before = len(self.server.requests)
        observation, status = env._step(action_name=name, action_input=arguments)
        return observation, status, self.server.requests[before] if len(self.server.requests) > before else None

    def finish(self, env, text: str) -> tuple[str, int, dict]:
        """(observation, status, the arguments ``_step`` read) of a Finish: the arguments are its
        local ``json_data``, taken from its frame as it returns."""
        read: dict = {}

        def profile(frame, event, arg):
            if event == "return" and frame.f_code is type(env)._step.__code__:
                read.update(frame.f_locals.get("json_data") or {})

        sys.setprofile(profile)
        try:
            observation, status = env._step(action_name="Finish", action_input=text)
        finally:
            sys.setprofile(None)
        return observation, status, read

    def search(self, env, script: list) -> tuple[dict, int, dict]:
        """DFS_woFilter_w2 over the script: (the tree, LLM calls, the answer ToolEval reads)."""
        llm = ScriptedLLM(script, self.code.tool_calls)
        chain = self.code.dfs.DFS_tree_search(llm=llm, io_func=env, process_id=1)
        random.seed(0)
        with contextlib.redirect_stdout(io.StringIO()):
            chain.start(single_chain_max_step=12, tree_beam_size=2, max_query_count=200, answer=1, with_filter=False)
            data = chain.to_json(answer=True, process=True)
            data["answer_generation"]["query"] = env.input_description
            method = "DFS_woFilter_w2"
            converted = (self.code.convert.process_valid_data(method, data["answer_generation"])
                         if data["answer_generation"]["valid_data"] else
                         self.code.convert.process_invalid_data(method, copy.deepcopy(data)))
        return data["tree"]["tree"], chain.query_count, converted["answer"]

    def judge_asked(self, query: str, answer: dict) -> str | None:
        """The answer text ToolEval's ``check_is_solved`` asks its judge about (None: not asked)."""
        asked = []

        def function_call(name, arguments, return_reason=False):
            asked.append(arguments["answer"])
            return {"answer_status": "Solved", "reason": ""}

        judge = types.SimpleNamespace(function_call=function_call)
        self.code.rtl.ReinforceToolLearningEvaluator.check_is_solved(judge, {"query": query}, answer)
        return asked[0] if asked else None


class ScriptedLLM:
    """ToolBench's LLM interface (``change_messages``, ``parse``) answering from a script."""

    def __init__(self, script: list, tool_calls: bool):
        self.script, self.tool_calls, self.asked = list(script), tool_calls, 0

    def change_messages(self, messages):
        pass

    def parse(self, functions, process_id=0, **kwargs):
        thought, name, arguments = self.script[self.asked] if self.asked < len(self.script) else GIVE_UP
        self.asked += 1
        message = {"role": "assistant", "content": thought}
        if name is not None and self.tool_calls:
            message["tool_calls"] = [{"id": f"call_{self.asked}", "type": "function",
                                      "function": {"name": name, "arguments": arguments}}]
        elif name is not None:
            message["function_call"] = {"name": name, "arguments": arguments}
        return message, 0, 0


class ScriptedPolicy:
    """The same script as a toolgym search policy."""

    def __init__(self, script: list):
        self.script, self.asked = list(script), 0

    def start(self, observation, info):
        return None

    def step_batch(self, states, observations, infos):
        steps = []
        for _ in states:
            thought, name, arguments = self.script[self.asked] if self.asked < len(self.script) else GIVE_UP
            self.asked += 1
            action = thought if name is None else {"name": name, "arguments": arguments}
            steps.append(Step(action=action, llm={"text": thought or ""}))
        return steps


class RecordingJudge:
    """A judge backend that says Solved and records the answers it was asked about."""

    def __init__(self):
        self.asked: list[str] = []

    def generate(self, requests, sampling):
        for request in requests:
            self.asked.append(request.messages[-1]["content"].split("Answer:\n", 1)[1].rsplit("\n\nReply", 1)[0])
        return [Completion(text=json.dumps({"answer_status": SOLVED})) for _ in requests]


# -- comparison ---------------------------------------------------------------------------------------
def preorder(tree: dict) -> list[tuple]:
    """(level, node type, description, answer / give-up code) of a ToolBench tree in pre-order."""
    out = []

    def walk(node, level):
        code = node.get("observation_code")
        out.append((level, node.get("node_type"), node.get("description", ""), code if code in (3, 4) else None))
        for child in node.get("children") or []:
            walk(child, level + 1)

    walk(tree, 0)
    return out


def expansion(tree: dict) -> list[int]:
    """Each node's expansion number in pre-order (0: never expanded, ToolBench's default)."""
    out = []

    def walk(node):
        out.append(max(node.get("expand_num", 0), 0))
        for child in node.get("children") or []:
            walk(child)

    walk(tree)
    return out


def schema_of(function: dict) -> dict:
    function = function.get("function", function)
    parameters = copy.deepcopy(function["parameters"])
    for key in ("required", "optional"):
        parameters[key] = [p for p in parameters.get(key, []) if p != ""]  # StableToolBench's placeholder
    return {"name": function["name"], "description": function["description"], "parameters": parameters}


def compare(code, data_dir: str, scorings: list[str], dfs_queries: int, show: int) -> None:
    data = load_official("ToolLLM-v0", data_dir, None)
    queries = data.queries
    with tempfile.TemporaryDirectory() as folder:
        original = Original(code, queries, Path(folder))
        envs = {s: gym.make("ToolLLM-v0", tasks="official", data_dir=data_dir, scoring=s) for s in scorings}
        agree: dict[str, Counter] = {s: Counter() for s in scorings}
        total: dict[str, Counter] = {s: Counter() for s in scorings}
        examples: dict[str, dict[str, list]] = {s: defaultdict(list) for s in scorings}
        system_template = code.prompts.FORMAT_INSTRUCTIONS_SYSTEM_FUNCTION
        standardize, change_name = code.rapidapi.standardize, code.rapidapi.change_name

        def count(scoring, item, same, example):
            total[scoring][item] += 1
            agree[scoring][item] += bool(same)
            if not same and len(examples[scoring][item]) < show:
                examples[scoring][item].append(example)

        for index, query in enumerate(queries):
            theirs = original.env(query)
            their_functions = [schema_of(f) for f in theirs.functions]
            for scoring in scorings:
                env = envs[scoring].unwrapped
                _, info = env.reset(options={"task_id": query.query_id})
                ours = [schema_of(t) for t in info["tools"]]
                for doc in query.api_list:
                    name = f"{change_name(standardize(doc['api_name']))}_for_{standardize(doc['tool_name'])}"[-64:]
                    mine = env.world.api(env.world.api_id(doc["category_name"], doc["tool_name"], doc["api_name"]))
                    count(scoring, "names", mine.function == name, (query.query_id, name, mine.function))
                offered = Counter(f["name"] for f in ours)
                their_offered = Counter(f["name"] for f in their_functions)
                copies: dict[str, list] = defaultdict(list)  # name -> our functions of that name, in order
                for function in ours:
                    copies[function["name"]].append(function)
                seen: Counter = Counter()
                for function in their_functions:
                    name = function["name"]
                    count(scoring, "offered", offered[name] == their_offered[name],
                          (query.query_id, name, their_offered[name], offered[name]))
                    mine = copies[name][min(seen[name], len(copies[name]) - 1)] if copies[name] else None
                    seen[name] += 1
                    count(scoring, "schema", mine == function, (query.query_id, function, mine))
                prompt = system_template.replace("{task_description}", theirs.task_description)
                count(scoring, "system prompt", info["messages"][0]["content"] == prompt,
                      (query.query_id, prompt[-300:], info["messages"][0]["content"][-300:]))
                for name in their_offered:
                    if name == "Finish":
                        continue
                    _, status, request = original.call(theirs, name, "{}")
                    env.reset(options={"task_id": query.query_id})
                    env.step({"name": name, "arguments": "{}"})
                    api_id = env.episode.calls[-1].api_id
                    mine = env.world.api(api_id) if api_id is not None else None
                    ran = ((standardize(mine.tool_name), change_name(standardize(mine.name))) if mine else None)
                    expected = (request["tool_name"], request["api_name"]) if request else None
                    count(scoring, "dispatch", ran == expected, (query.query_id, name, expected, ran))
                if index < dfs_queries:
                    compare_search(original, theirs, envs[scoring], query, scoring, count)
        for scoring in scorings:  # Finish: the same inputs whatever the query
            env = envs[scoring].unwrapped
            theirs = original.env(queries[0])
            for text in FINISH_INPUTS:
                observation, status, read = original.finish(theirs, text)
                env.reset(options={"task_id": queries[0].query_id})
                mine, _, terminated, _, info = env.step({"name": "Finish", "arguments": text})
                same = mine == observation and terminated == (status in (3, 4))
                if same and status == 3:
                    same = info["final_answer"] == read["final_answer"]
                count(scoring, "Finish", same, (text, observation, status, mine, terminated, info.get("final_answer")))
        _report(scorings, agree, total, examples)


def compare_search(original, theirs_env, env, query, scoring, count) -> None:
    """The scripted searches of one query on both sides, and what ToolEval asks of their answers."""
    first = schema_of(theirs_env.functions[0])["name"]
    for name, script in scenarios(first).items():
        theirs = original.env(query)
        tree, calls, answer = original.search(theirs, script)
        result = run_search(env, ScriptedPolicy(script), parse_strategy("dfsdt"), query.query_id)
        ours = result.toolbench()["tree"]["tree"]
        where = (query.query_id, name)
        count(scoring, "DFSDT tree", preorder(ours) == preorder(tree),
              where + (preorder(tree), preorder(ours)))
        count(scoring, "DFSDT expansion order", expansion(ours) == expansion(tree),
              where + (expansion(tree), expansion(ours)))
        count(scoring, "DFSDT LLM calls", result.llm_calls == calls, where + (calls, result.llm_calls))
        their_question = original.judge_asked(query.query, answer)
        record = {"task_id": query.query_id, "split": query.group, "query": query.query, **search_record(result)}
        backend = RecordingJudge()
        if record.get("metrics") is not None and not record.get("error"):
            ToolEvalJudge(backend, judgements=1, scoring=scoring).answer_statuses(
                [(query.query, answer_of(record, scoring))])
        our_question = backend.asked[0] if backend.asked else None
        count(scoring, "ToolEval asks the judge", (their_question is None) == (our_question is None),
              where + (their_question, our_question))
        if their_question is not None and our_question is not None:
            # ToolEval's judge reads the raw Finish input; toolgym's the final answer ToolBench's _step reads from it
            read = original.finish(original.env(query), their_question)[2].get("final_answer")
            count(scoring, "ToolEval answer read", our_question in (their_question, read),
                  where + (their_question, our_question))


def _report(scorings, agree, total, examples) -> None:
    for scoring in scorings:
        print(f"\nscoring={scoring}")
        print(f"{'item':28s} {'agree':>8s} {'of':>8s}")
        for item in total[scoring]:
            print(f"{item:28s} {agree[scoring][item]:>8d} {total[scoring][item]:>8d}")
        print(f"{'all':28s} {sum(agree[scoring].values()):>8d} {sum(total[scoring].values()):>8d}")
        for item, cases in examples[scoring].items():
            for case in cases:
                print(f"  differs, {item}: {json.dumps(case, default=str)[:400]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--original", type=Path, required=True,
                        help="a checkout of THUNLP-MT/StableToolBench or OpenBMB/ToolBench")
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA", "../shared/data"))
    parser.add_argument("--scoring", choices=("paper", "paper_compat", "both"), default="both")
    parser.add_argument("--dfs-queries", type=int, default=765, help="queries searched with the scripted outputs")
    parser.add_argument("--show", type=int, default=3, help="differing examples shown per item")
    args = parser.parse_args()
    code = load_original(args.original.resolve())
    scorings = ["paper", "paper_compat"] if args.scoring == "both" else [args.scoring]
    compare(code, args.data_dir, scorings, args.dfs_queries, args.show)


if __name__ == "__main__":
    main()
