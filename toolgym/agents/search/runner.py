"""Drive searches: one task (:func:`run_search`) or many in lockstep (:func:`run_searches`).

In lockstep, every live task's pending decision goes to the policy in one ``step_batch``
call (one ``generate`` for a local model), each search advances by one decision, and a task
that ends hands its env to the next task. A task's tree depends only on its own decisions,
so with greedy decoding the trees are the same at any batch size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolgym.agents.search.policy import Policy, as_policy
from toolgym.agents.search.strategies import Strategy, TreeSearch
from toolgym.agents.search.tree import Decision, Node, SearchResult
from toolgym.untrusted import escape


def run_search(env, policy: Policy, strategy: Strategy, task_id: str, seed: int = 0) -> SearchResult:
    """Reset ``env`` to ``task_id`` and search it with ``policy``."""
    return run_searches([env], policy, strategy, [task_id], seed=seed)[task_id]


@dataclass
class _Live:
    env: Any
    task_id: str
    search: Any
    decision: Decision


def run_searches(envs: Sequence, policy: Policy, strategy: Strategy, task_ids: Sequence[str], seed: int = 0,
                 on_result: Callable[[str, SearchResult], None] | None = None,
                 stats: dict | None = None) -> dict[str, SearchResult]:
    """Search every task, ``len(envs)`` at a time, with one policy call per round.

    Args:
        envs: Env instances of one env id (one task runs on each at a time).
        policy: Decides for all live chains at once (an ``LLMAgent``, or see :func:`as_policy`).
        strategy: The decision procedure.
        task_ids: The tasks, started in this order.
        seed: Seed of every reset.
        on_result: Called with each task's result as soon as it ends.
        stats: If given, ``policy_calls`` and ``decisions`` are added to it.

    Returns:
        The result of each task.
    """
    policy = as_policy(policy)
    queue = list(task_ids)
    results: dict[str, SearchResult] = {}
    live: list[_Live] = []

    def start(env) -> None:
        """Start the next task on ``env``; a task whose reset raises ends at once with that error,
        and the one after it is started."""
        while queue:
            task_id = queue.pop(0)
            try:
                observation, info = env.reset(seed=seed, options={"task_id": task_id})
            except Exception as exc:  # noqa: BLE001 - an env that fails on one task fails that task, not the run
                error = f"reset: {type(exc).__name__}: {escape(' '.join(str(exc).split())[:300])}"
                root = Node(depth=0, parent=None, action=None, observation="", reward=0.0, info={})
                finished(task_id, SearchResult(strategy=strategy.name, root=root, leaf=None, llm_calls=0, chains=0,
                                               restores=0, error=error))
                continue
            search = TreeSearch(env, strategy, policy.start(observation, info), observation, info).run()
            live.append(_Live(env, task_id, search, next(search)))  # every search asks for a first decision
            return

    def finished(task_id: str, result: SearchResult) -> None:
        results[task_id] = result
        if on_result is not None:
            on_result(task_id, result)

    for env in envs[:len(queue)]:
        start(env)
    while live:
        steps = policy.step_batch([t.decision.state for t in live], [t.decision.observation for t in live],
                                  [t.decision.info for t in live])
        if stats is not None:
            stats["policy_calls"] = stats.get("policy_calls", 0) + 1
            stats["decisions"] = stats.get("decisions", 0) + len(live)
        current, live = live, []
        for task, step in zip(current, steps):
            try:
                task.decision = task.search.send(step)
                live.append(task)
            except StopIteration as stop:
                finished(task.task_id, stop.value)
                start(task.env)
    return results


def search_record(result: SearchResult) -> dict:
    """The results-file fields of a searched episode: the reported chain as the trajectory, its
    metrics and return, and the whole tree under ``search`` (ToolBench's answer-file shape)."""
    trajectory = result.trajectory()
    record = {"metrics": result.metrics(), "trajectory": trajectory,
              "return": sum(step["reward"] for step in trajectory),
              "search": {"strategy": result.strategy, "llm_calls": result.llm_calls, "chains": result.chains,
                         "restores": result.restores, **result.toolbench()}}
    if result.error:
        record["error"] = result.error
    elif record["metrics"] is None:
        record["error"] = (f"no chain ended within the budget of {result.llm_calls} LLM calls"
                           if result.leaf is None else "the reported chain ended without metrics")
    return record


class SearchAgent:
    """A policy and a strategy, as the runners see one agent (``describe`` for the results header).

    The strategy goes into the header's ``decoding`` (it decides how outputs become actions),
    so a results file of one strategy is not resumed with another.
    """

    def __init__(self, agent, strategy: Strategy):
        self.agent = agent
        self.policy = as_policy(agent)
        self.strategy = strategy

    def describe(self) -> dict:
        describe = getattr(self.agent, "describe", None)
        header = dict(describe()) if callable(describe) else {}
        header["decoding"] = {**(header.get("decoding") or {}), "search": self.strategy.describe()}
        header["strategy"] = self.strategy.name
        return header
