"""τ²-bench's grading: DB, ACTION, COMMUNICATE, ENV_ASSERTION and NL_ASSERTION components.

As in τ²-bench's ``evaluator/``: the reward is the product of the components named in the
task's ``reward_basis`` (default DB and COMMUNICATE); an episode that did not end by the
agent's or the user's stop scores 0; a task without evaluation criteria scores 1.

- DB: the final database equals, by hash, the database the ground-truth actions produce from
  the same start (a ground-truth action that fails is skipped, as τ²-bench logs and goes on).
- ACTION: every ground-truth action matches some tool call of the episode: same name, and
  equal values of ``compare_args`` (all of the call's arguments when it is None).
- COMMUNICATE: every ``communicate_info`` text is in some message of the agent, compared in
  lower case with the message's commas removed.
- ENV_ASSERTION: each assertion function on the final world returns ``assert_value``.
- NL_ASSERTION: a judge model reads the conversation and says whether each assertion holds;
  without a judge the component is *not scored* (None), and the reward of a task that needs it
  is 0, while ``reward_without_judge`` is the product of the other components.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolgym.envs.common.actions import braced_span

DEFAULT_BASIS = ("DB", "COMMUNICATE")
COMPONENTS = ("DB", "ACTION", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION")
METRIC_NAMES = {"DB": "db", "ACTION": "action", "COMMUNICATE": "communicate", "ENV_ASSERTION": "env_assertion",
                "NL_ASSERTION": "nl_assertion"}


def action_matches(gold: Mapping, name: str, arguments: Any) -> bool:
    """τ²-bench's ``Action.compare_with_tool_call``."""
    if gold["name"] != name or not isinstance(arguments, Mapping):
        return False
    compare = gold.get("compare_args")
    keys = list(arguments) if compare is None else compare
    if not keys:
        return True
    return ({k: v for k, v in arguments.items() if k in keys}
            == {k: v for k, v in (gold.get("arguments") or {}).items() if k in keys})


def tool_calls(trajectory: Sequence[Mapping]) -> list[tuple[str, Any]]:
    """(name, arguments) of every tool call in the trajectory, the agent's and the user's."""
    calls = []
    for message in trajectory:
        for call in message.get("tool_calls") or ():
            arguments = call["function"]["arguments"]
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    arguments = None
            calls.append((call["function"]["name"], arguments))
    return calls


def said(info: str, trajectory: Sequence[Mapping]) -> bool:
    return any(m["role"] == "assistant" and isinstance(m.get("content"), str) and m["content"]
               and info.lower() in m["content"].lower().replace(",", "") for m in trajectory)


def actions_done(criteria: Mapping, trajectory: Sequence[Mapping]) -> list[bool]:
    calls = tool_calls(trajectory)
    return [any(action_matches(gold, name, arguments) for name, arguments in calls)
            for gold in criteria.get("actions") or ()]


def goal_reached(task: Mapping, trajectory: Sequence[Mapping]) -> bool:
    """Every ground-truth action called and every required fact said: what the scripted user waits for."""
    criteria = task.get("evaluation_criteria") or {}
    return all(actions_done(criteria, trajectory)) and all(said(info, trajectory)
                                                          for info in criteria.get("communicate_info") or ())


def judge_assertions(judge, assertions: Sequence[str], trajectory: Sequence[Mapping]) -> list[bool]:
    """Ask the judge backend whether each assertion holds, with τ²'s request
    (:func:`toolgym.envs.tau2.protocol.judge_request`); the i-th result's ``metExpectation``
    answers the i-th assertion, and an answer it cannot read counts as not met."""
    from toolgym.envs.tau2.protocol import judge_request
    from toolgym.llm.backends import SamplingParams
    completion = judge.generate([judge_request(assertions, trajectory)], SamplingParams(temperature=0.0))[0]
    span = braced_span(completion.text or "")
    try:
        results = json.loads(span)["results"] if span is not None else []
    except (ValueError, KeyError, TypeError, RecursionError):
        results = []
    results = results if isinstance(results, list) else []
    return [i < len(results) and isinstance(results[i], Mapping) and results[i].get("metExpectation") is True
            for i in range(len(assertions))]


def grade(task: Mapping, trajectory: Sequence[Mapping], stopped: bool, db_match: bool,
          run_assertion: Callable[[Mapping], bool], judge=None, compat: bool = False) -> dict:
    """The episode's metrics: each component (1.0, 0.0, or None when not scored), ``reward``,
    ``reward_without_judge``, ``success`` and ``failed`` (the basis components that did not hold).

    ``compat``: τ²-bench's released evaluator, whose environment evaluator scores DB 1 without
    comparing when a task's ``actions`` and ``env_assertions`` are both null (so writes the
    task never asked for go unpunished); the paper compares the database in every task."""
    criteria = task.get("evaluation_criteria")
    if compat and criteria is not None and criteria.get("actions") is None and criteria.get("env_assertions") is None:
        db_match = True
    if not stopped:
        metrics = {METRIC_NAMES[c]: None for c in COMPONENTS}
        return {**metrics, "reward": 0.0, "reward_without_judge": 0.0, "success": 0, "failed": ["TERMINATION"],
                "unscored": [], "basis": []}
    if criteria is None:
        return {**{METRIC_NAMES[c]: None for c in COMPONENTS}, "reward": 1.0, "reward_without_judge": 1.0,
                "success": 1, "failed": [], "unscored": [], "basis": []}
    basis = list(criteria.get("reward_basis") or DEFAULT_BASIS)
    actions = actions_done(criteria, trajectory)
    infos = criteria.get("communicate_info") or []
    assertions = criteria.get("env_assertions") or []
    values: dict[str, float | None] = {
        "DB": float(db_match),
        "ACTION": float(all(actions)),
        "COMMUNICATE": float(all(said(info, trajectory) for info in infos)),
        "ENV_ASSERTION": float(all(run_assertion(a) for a in assertions)),
        "NL_ASSERTION": None,
    }
    nl = criteria.get("nl_assertions") or []
    if "NL_ASSERTION" in basis:  # τ² asks its judge only where the reward needs it
        if not nl:
            values["NL_ASSERTION"] = 1.0
        elif judge is not None:
            values["NL_ASSERTION"] = float(all(judge_assertions(judge, nl, trajectory)))
    failed = [c for c in basis if values[c] == 0.0]
    unscored = [c for c in basis if values[c] is None]
    without_judge = float(all(values[c] == 1.0 for c in basis if c != "NL_ASSERTION"))
    reward = float(not failed and not unscored)
    return {**{METRIC_NAMES[c]: values[c] for c in COMPONENTS}, "reward": reward,
            "reward_without_judge": without_judge, "success": int(reward), "failed": failed, "unscored": unscored,
            "basis": basis, "actions_matched": sum(actions), "actions": len(actions)}
