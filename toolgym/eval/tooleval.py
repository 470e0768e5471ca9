"""ToolEval (ToolLLM's evaluator) over toolgym results files: pass rate, SoPR and win rate by an LLM judge.

The rules are ToolEval's as StableToolBench runs them (``tooleval/eval_pass_rate.py``,
``eval_preference.py``, ``evaluators/registered_cls/rtl.py``):

- **the answer** is the final answer of the ``Finish`` that ended the episode, read as the env
  reads it (:func:`~toolgym.envs.toolllm.env.read_finish`: lenient JSON, then ToolBench's
  substring search). As in ToolEval, whose answer is the terminal node's, only a Finish the
  env accepted as the trajectory's last step counts: a rejected Finish followed by more calls
  is not an answer.
- **is solved?** An answer that is empty, gave up, or never called ``Finish`` is Unsolved
  without asking. Otherwise the judge reads the query and the final answer (Solved /
  Unsolved / Unsure); on Unsure it reads the whole trajectory and decides again.
- **solvable?** When the answer is not Solved, the judge says whether the query could be
  solved with the tools (Solvable / Unsolvable / Unsure).
- **passed?** Solved passes; Unsolved fails for a solvable query; Unsure is a coin flip
  (seeded here, so runs repeat) unless the query is unsolvable. Each query is judged
  ``judgements`` times and passes when at least half of the judgements pass (ToolEval's
  ``failed <= passed``).
- **SoPR** (StableToolBench's solvable pass rate): Solved 1, Unsure 0.5, Unsolved 0, averaged
  over judgements and queries.
- **win rate**: per query and round, a run whose pass label differs from the other's wins
  outright; otherwise the judge compares: the single Solved answer wins, else it picks the
  better of the tied answers (ToolEval's preference rule: fewer steps and an informative,
  accurate final answer for solvable queries). A query is won when it wins more rounds.

Three differences, chosen with ``scoring``:

- ToolEval counts an **Unsolved (or Unsure) answer to a query the judge calls Unsolvable as a
  pass**. ``scoring="paper_compat"`` reproduces it; the default ``"paper"`` never passes an
  answer that was not judged Solved or Unsure.
- ToolEval's answer is the terminal node's raw ``Finish`` input, so a ``give_answer`` with an
  **empty final answer** reaches the judge as that raw text
  (``{"return_type": "give_answer", "final_answer": ""}``). ``paper_compat`` sends it so;
  ``paper`` labels it Unsolved without asking.
- ToolEval means to ask the preference in both orders (odd rounds swapped), but its test
  ``if i % 2 == 0 or i >= 0`` is always true, so the swap is dead code and every round asks in
  the same order, which leaves the judge's position bias in the win rate. Here the odd rounds
  really are swapped (both scorings), so with two rounds each order is asked once.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgym.llm.backends import ChatRequest, SamplingParams
from toolgym.envs.common.actions import ToolCall, parse_action
from toolgym.envs.toolllm.env import read_finish

SOLVED, UNSOLVED, UNSURE = "Solved", "Unsolved", "Unsure"
SOLVABLE, UNSOLVABLE = "Solvable", "Unsolvable"
PASSED, FAILED = "passed", "failed"
SOPR_SCORE = {SOLVED: 1.0, UNSURE: 0.5, UNSOLVED: 0.0}

JUDGE_SYSTEM = ("You are ToolEval, a careful evaluator of tool-using AI assistants. Answer with only a JSON "
                "object, no other text.")
CHECK_ANSWER_STATUS = (
    "Giving the query and answer, you need give `answer_status` of the answer by following rules:\n"
    "1. If the answer is a sorry message or not a positive/straight response for the given query, return "
    "\"Unsolved\".\n"
    "2. If the answer is a positive/straight response for the given query, you have to further check.\n"
    "2.1 If the answer is not sufficient to determine whether the solve the query or not, return \"Unsure\".\n"
    "2.2 If you are confident that the answer is sufficient to determine whether the solve the query or not, "
    "return \"Solved\" or \"Unsolved\".\n\n"
    "Query:\n{query}\nAnswer:\n{answer}\n\n"
    'Reply as {{"reason": "<short reason>", "answer_status": "Solved" | "Unsolved" | "Unsure"}}.')
PARSE_ANSWER_STATUS = (
    "Giving the query and the correspond execution detail of an answer, you need give `answer_status` of the "
    "answer by following rules:\n"
    "1. If all 'tool' nodes' message indicate that there are errors happened, return \"Unsolved\"\n"
    "2. If you find the information in the \"final_answer\" is not true/valid according to the messages in "
    "'tool' nodes, return \"Unsolved\"\n"
    "3. If you are unable to verify the authenticity and validity of the information, return \"Unsure\"\n"
    "4. If there are 'tool' node in the chain contains successful func calling and those calling indeed solve "
    "the query, return \"Solved\"\n\n"
    "Query:\n{query}\nAnswer:\n{answer}\n\n"
    'Reply as {{"reason": "<short reason>", "answer_status": "Solved" | "Unsolved" | "Unsure"}}.')
CHECK_TASK_SOLVABLE = (
    "Please check whether the given task solvable with following rules:\n"
    "1. If the `query` provide invalid information (e.g. invalid email address or phone number), return "
    "\"Unsolvable\"\n"
    "2. If the `query` needs more information to solve (e.g. the target restaurant name in a navigation task), "
    "return \"Unsolvable\"\n"
    "3. If you are unable to draw a conclusion, return \"Unsure\"\n"
    "4. If the currently `available_tools` are enough to solve the query, return \"Solvable\"\n\n"
    "Task:\n{task}\n\n"
    'Reply as {{"reason": "<short reason>", "task_status": "Solvable" | "Unsolvable" | "Unsure"}}.')
SELECT_BETTER_ANSWER = (
    "Query:\n{query}\n\nAnswer_0:\n{answer_0}\n\nAnswer_1:\n{answer_1}\n\n"
    "Given above query and answers in JSON format, you must follow the rules to select the relatively better "
    "answer and give the index of the answer (0 for Answer_0, 1 for Answer_1):\n"
    "1. Compare the value of \"final_answer\" in following aspects:\n"
    "- Informative: whether it contains all necessary information to reply to the query.\n"
    "- Factuality: whether it accurately describes what has been done, and what failed in the end.\n"
    "- Reasoning: If answer does not solve the query, whether gives a detailed and accurate reason for failure.\n"
    "2. If you cannot determine yet, compare the value of \"answer_details\" in following aspects:\n"
    "- Tool calling costs: calculating the percentage of failed and replicated tools calling.\n"
    "- Steps: calculating the total steps.\n\n"
    'Reply as {{"reason": "<short reason>", "index": 0 | 1}}.')
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass
class JudgedQuery:
    """One query's judgements.

    Attributes:
        task_id, split, query: From the results record.
        answer_status: Solved / Unsolved / Unsure per judgement.
        task_status: Solvable / Unsolvable / Unsure per judgement (None where it was not asked).
        labels: passed / failed per judgement.
        programmatic: The env's own pass (built-in tasks), None for official queries.
    """

    task_id: str
    split: str | None
    query: str
    answer_status: list[str] = field(default_factory=list)
    task_status: list[str | None] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    programmatic: float | None = None

    @property
    def passed(self) -> bool:
        """ToolEval's majority: at least as many passing judgements as failing ones."""
        return self.labels.count(FAILED) <= self.labels.count(PASSED)

    @property
    def sopr(self) -> float:
        return sum(SOPR_SCORE[s] for s in self.answer_status) / max(len(self.answer_status), 1)


def answer_of(record: dict, scoring: str = "paper") -> dict:
    """A results record as ToolEval's converted answer: ``final_answer``, ``total_steps``,
    ``answer_details`` (the calls with their responses) and whether it ended with ``Finish``.

    Only an accepted Finish as the last step answers (ToolEval's terminal node). Under
    ``paper_compat`` a ``give_answer`` whose final answer is empty answers with the raw Finish
    input, which ToolEval's judge reads.
    """
    final, finished, details = "", False, []
    trajectory = record.get("trajectory") or []
    for step in trajectory:
        details.append({"role": "tool", "message": {"action": step.get("action"), "response": step.get("observation")}})
    action = parse_action(trajectory[-1].get("action")) if trajectory else None
    if isinstance(action, ToolCall) and action.name == "Finish":
        raw = action.arguments
        arguments = read_finish(raw)
        return_type = arguments.get("return_type")
        if return_type == "give_up_and_restart":
            final, finished = "give_up_and_restart", True
        elif return_type == "give_answer" and "final_answer" in arguments:
            answer = arguments["final_answer"]
            final, finished = answer if isinstance(answer, str) else json.dumps(answer, default=str), True
            if not final and scoring == "paper_compat":
                final = raw if isinstance(raw, str) else json.dumps(raw)
    return {"final_answer": final, "finished": finished, "total_steps": len(details), "answer_details": details}


def query_of(record: dict) -> str:
    """The instruction of a record (the ToolLLM user message, else the first observation)."""
    search = record.get("search") or {}
    query = (search.get("answer_generation") or {}).get("query")
    return str(query or record.get("query") or record.get("task_id"))


def parse_judgement(text: str, key: str, allowed: Sequence[str]) -> str | None:
    """The value of ``key`` in the judge's JSON reply (or the one allowed word it names); never evaluated."""
    match = _JSON_OBJECT.search(text or "")
    if match:
        try:
            value = json.loads(match.group(0))
        except ValueError:
            value = None
        if isinstance(value, dict) and key in value:
            found = str(value[key]).strip().strip('"')
            for word in allowed:
                if found.lower() == word.lower():
                    return word
    named = [w for w in allowed if re.search(rf"\b{re.escape(w)}\b", text or "", re.IGNORECASE)]
    return named[0] if len(named) == 1 else None


class ToolEvalJudge:
    """ToolEval's judge over any backend of the shared agent (batched: one generate per question kind).

    Args:
        backend: Anything with ``generate(requests, sampling)`` (``TransformersBackend``,
            ``OpenAICompatibleBackend``, a scripted backend in tests).
        judgements: Judgements per query (ToolEval's ``evaluate_times``; StableToolBench runs 3).
        scoring: ``"paper"`` (an unsolved answer never passes) or ``"paper_compat"`` (ToolEval's
            rule: an unsolved answer to an unsolvable query passes).
        sampling: Decoding settings of the judge.
        seed: Seed of the coin flips ToolEval makes for Unsure labels and tied preferences.
    """

    def __init__(self, backend, judgements: int = 3, scoring: str = "paper", sampling: SamplingParams | None = None,
                 seed: int = 0):
        if scoring not in ("paper", "paper_compat"):
            raise ValueError(f"scoring must be 'paper' or 'paper_compat', got {scoring!r}")
        if judgements < 1:
            raise ValueError("judgements must be at least 1")
        self.backend, self.judgements, self.scoring, self.seed = backend, judgements, scoring, seed
        self.sampling = sampling or SamplingParams(max_new_tokens=256)
        self.calls = 0

    def _ask(self, prompts: list[str], key: str, allowed: Sequence[str]) -> list[str | None]:
        if not prompts:
            return []
        requests = [ChatRequest(messages=[{"role": "system", "content": JUDGE_SYSTEM},
                                          {"role": "user", "content": p}]) for p in prompts]
        completions = self.backend.generate(requests, self.sampling)
        self.calls += len(prompts)
        return [None if c.error else parse_judgement(c.text, key, allowed) for c in completions]

    def _coin(self, *where: Any) -> bool:
        return random.Random(":".join(map(str, (self.seed,) + where))).random() < 0.5

    def answer_statuses(self, items: list[tuple[str, dict]]) -> list[str]:
        """ToolEval's ``check_is_solved`` for (query, answer) pairs, batched."""
        status: list[str | None] = [UNSOLVED if not a["finished"] or not a["final_answer"]
                                    or "give_up_and_restart" in a["final_answer"] else None for _, a in items]
        ask = [i for i, s in enumerate(status) if s is None]
        replies = self._ask([CHECK_ANSWER_STATUS.format(query=items[i][0], answer=items[i][1]["final_answer"])
                             for i in ask], "answer_status", (SOLVED, UNSOLVED, UNSURE))
        for i, reply in zip(ask, replies):
            status[i] = reply or UNSURE
        unsure = [i for i in ask if status[i] == UNSURE]
        replies = self._ask([PARSE_ANSWER_STATUS.format(query=items[i][0], answer=json.dumps(items[i][1], default=str))
                             for i in unsure], "answer_status", (SOLVED, UNSOLVED, UNSURE))
        for i, reply in zip(unsure, replies):
            status[i] = reply or UNSURE
        return status  # type: ignore[return-value]

    def task_statuses(self, tasks: list[dict]) -> list[str]:
        """ToolEval's ``check_task_solvable`` for task descriptions (query and available tools)."""
        replies = self._ask([CHECK_TASK_SOLVABLE.format(task=json.dumps(t, default=str)) for t in tasks],
                            "task_status", (SOLVABLE, UNSOLVABLE, UNSURE))
        return [r or UNSURE for r in replies]

    def label(self, answer_status: str, task_status: str | None, *where: Any) -> str:
        """ToolEval's ``is_passed`` for one judgement (Unsure labels: a seeded coin)."""
        if answer_status == SOLVED:
            return PASSED
        if task_status == UNSOLVABLE and self.scoring == "paper_compat":
            return PASSED  # ToolEval's defect: not solving an unsolvable query counts as a pass
        if answer_status == UNSOLVED and task_status != UNSURE:
            return FAILED
        return PASSED if self._coin("label", *where) else FAILED

    def judge(self, records: Sequence[dict]) -> list[JudgedQuery]:
        """Judge every record ``judgements`` times (records of one run; episodes with errors are skipped)."""
        records = [r for r in records if r.get("metrics") is not None and not r.get("error")]
        queries = [JudgedQuery(task_id=str(r["task_id"]), split=r.get("split"), query=query_of(r),
                               programmatic=(r["metrics"] or {}).get("pass")) for r in records]
        answers = [answer_of(r, self.scoring) for r in records]
        tools = [_tool_names(r) for r in records]
        for round_ in range(self.judgements):
            status = self.answer_statuses([(q.query, a) for q, a in zip(queries, answers)])
            # ToolEval fails an answer that never called Finish outright; others not solved get asked
            ask = [i for i, s in enumerate(status) if s != SOLVED and answers[i]["finished"]]
            task_status: list[str | None] = [None] * len(queries)
            for i, s in zip(ask, self.task_statuses([{"query": queries[i].query, "available_tools": tools[i]}
                                                     for i in ask])):
                task_status[i] = s
            for i, q in enumerate(queries):
                q.answer_status.append(status[i])
                q.task_status.append(task_status[i])
                q.labels.append(self.label(status[i], task_status[i], q.task_id, round_) if answers[i]["finished"]
                                else FAILED)
        return queries

    def win_rate(self, candidate: Sequence[dict], reference: Sequence[dict], rounds: int = 2) -> dict[str, str]:
        """``win`` / ``tie`` / ``lose`` of ``candidate`` against ``reference`` per shared task id.

        Pass labels come from :meth:`judge` of both runs; round ``i`` asks the judge with the
        candidate first when ``i`` is odd (the swap ToolEval meant to make).
        """
        cand = {r["task_id"]: r for r in candidate if r.get("metrics") is not None and not r.get("error")}
        ref = {r["task_id"]: r for r in reference if r.get("metrics") is not None and not r.get("error")}
        shared = [t for t in cand if t in ref]
        passed_c = {q.task_id: q.passed for q in self.judge([cand[t] for t in shared])}
        passed_r = {q.task_id: q.passed for q in self.judge([ref[t] for t in shared])}
        points = {t: [0, 0] for t in shared}  # [reference, candidate]
        compare = [t for t in shared if passed_c[t] == passed_r[t]]
        for t in shared:
            if passed_c[t] != passed_r[t]:
                points[t][1 if passed_c[t] else 0] += rounds
        answers = {t: (answer_of(ref[t], self.scoring), answer_of(cand[t], self.scoring)) for t in compare}
        for round_ in range(rounds):
            swap = round_ % 2 == 1
            pairs = [(t, answers[t][::-1] if swap else answers[t]) for t in compare]
            flat = [(query_of(ref[t]), a) for t, pair in pairs for a in pair]
            status = self.answer_statuses(flat)
            select = []
            for k, (t, pair) in enumerate(pairs):
                s0, s1 = status[2 * k], status[2 * k + 1]
                best = _single_best(s0, s1)
                if best is not None:
                    points[t][best ^ swap] += 1
                elif json.dumps(pair[0], default=str) == json.dumps(pair[1], default=str):
                    points[t][int(self._coin("same", t, round_))] += 1
                else:
                    select.append((t, pair, swap))
            replies = self._ask([SELECT_BETTER_ANSWER.format(query=query_of(ref[t]), answer_0=json.dumps(pair[0]),
                                                             answer_1=json.dumps(pair[1])) for t, pair, _ in select],
                                "index", ("0", "1"))
            for (t, _, swapped), reply in zip(select, replies):
                if reply is not None:
                    points[t][int(reply) ^ swapped] += 1
        return {t: "win" if c > r else "lose" if r > c else "tie" for t, (r, c) in points.items()}


def _single_best(s0: str, s1: str) -> int | None:
    """ToolEval's ``normalized_openai_completions``: the one Solved answer, else the one Unsure."""
    for wanted in (SOLVED, UNSURE):
        hits = [i for i, s in enumerate((s0, s1)) if s == wanted]
        if len(hits) == 1:
            return hits[0]
        if len(hits) == 2:
            return None
    return None


def _tool_names(record: dict) -> list[str]:
    search = record.get("search") or {}
    functions = (search.get("answer_generation") or {}).get("function") or record.get("tools") or []
    return [f.get("function", f).get("name") for f in functions if isinstance(f, dict)]


def summarize(judged: Sequence[JudgedQuery]) -> dict[str, dict]:
    """Per group (and ``all``): n, judge pass rate, SoPR, programmatic pass rate and the judge's agreement with it."""
    groups: dict[str, list[JudgedQuery]] = {}
    for q in judged:
        groups.setdefault(q.split or "all", []).append(q)
    if len(groups) > 1:
        groups["all"] = list(judged)
    table = {}
    for name, qs in groups.items():
        scored = [q for q in qs if q.programmatic is not None]
        table[name] = {
            "n": len(qs), "pass_rate": sum(q.passed for q in qs) / len(qs), "sopr": sum(q.sopr for q in qs) / len(qs),
            "programmatic": sum(q.programmatic for q in scored) / len(scored) if scored else None,
            "agreement": (sum((q.programmatic >= 0.5) == q.passed for q in scored) / len(scored)) if scored else None,
        }
    return table


def judge_command(args) -> int:
    """``toolgym judge``: ToolEval pass rate and SoPR per group, and the win rate against another run."""
    from toolgym.eval.provenance import provenance_warnings
    from toolgym.eval.runner import read_results

    backend = make_judge_backend(args.agent, dict(args.backend_kwarg or []))
    judge = ToolEvalJudge(backend, judgements=args.judgements, scoring=args.scoring, seed=args.seed,
                          sampling=SamplingParams(temperature=args.temperature, max_new_tokens=args.max_new_tokens,
                                                  seed=args.seed))
    records = read_results(args.results)
    judged = judge.judge(records)
    if not judged:
        raise ValueError(f"{args.results}: no scored episode to judge")
    print(f"{args.results}: ToolEval ({args.scoring}, {args.judgements} judgement(s) per query, judge {args.agent})")
    head = f"{'subset':16s} {'n':>4s} {'Pass rate':>10s} {'SoPR':>6s} {'Programmatic':>13s} {'Agreement':>10s}"
    print(head)
    print("-" * len(head))
    for name, row in summarize(judged).items():
        prog = "-" if row["programmatic"] is None else f"{100 * row['programmatic']:.1f}"
        agree = "-" if row["agreement"] is None else f"{100 * row['agreement']:.1f}"
        print(f"{name:16s} {row['n']:>4d} {100 * row['pass_rate']:>10.1f} {100 * row['sopr']:>6.1f} {prog:>13s} "
              f"{agree:>10s}")
    if args.against:
        reference = read_results(args.against)
        for warning in provenance_warnings([(args.results, records[0]), (args.against, reference[0])]):
            print(warning, file=sys.stderr)
        outcome = judge.win_rate(records, reference)
        split_of = {str(r["task_id"]): r.get("split") or "all" for r in records}
        groups: dict[str, list[str]] = {}
        for task_id, result in outcome.items():
            groups.setdefault(split_of[task_id], []).append(result)
        if len(groups) > 1:
            groups["all"] = list(outcome.values())
        print(f"\nWin rate of {args.results} against {args.against} (both orders asked):")
        print(f"{'subset':16s} {'n':>4s} {'Win':>6s} {'Tie':>6s} {'Lose':>6s}")
        for name, results in groups.items():
            n = len(results)
            print(f"{name:16s} {n:>4d} " + " ".join(f"{100 * results.count(k) / n:>6.1f}" for k in
                                                    ("win", "tie", "lose")))
    print(f"({judge.calls} judge call(s))")
    return 0


def make_judge_backend(spec: str, backend_kwargs: dict):
    """``hf:MODEL``, ``openai:URL#MODEL``, or ``module:Class`` / ``file.py:Class`` built as ``Class()``
    with a ``generate(requests, sampling)`` method (a scripted judge)."""
    from toolgym.registry import load_class
    from toolgym.llm import BackendError, make_backend

    kind, _, arg = spec.partition(":")
    if kind in ("hf", "openai"):
        try:
            return make_backend(kind, arg, **backend_kwargs)
        except BackendError as exc:
            raise ValueError(str(exc)) from exc
    backend = load_class(spec)()
    if not callable(getattr(backend, "generate", None)):
        raise ValueError(f"judge {spec!r}: {type(backend).__name__} has no generate(requests, sampling) method")
    return backend
