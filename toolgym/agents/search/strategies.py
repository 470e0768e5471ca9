"""ReAct, ReAct@N and DFSDT as generators of decisions over an env with snapshot / restore.

A search yields a :class:`~toolgym.agents.search.tree.Decision` whenever it needs an action,
receives the policy's :class:`~toolgym.agents.llm.Step`, and returns a
:class:`~toolgym.agents.search.tree.SearchResult`. Whoever drives it (one task, or many in
lockstep) decides how the decisions are batched; the search itself never calls a model.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from toolgym.agents.llm.agent import Step
from toolgym.agents.llm.prompts import EpisodeState
from toolgym.agents.search.tree import Decision, Node, SearchResult, diversity_info
from toolgym.envs.common.actions import ToolCall, parse_action
from toolgym.untrusted import escape

STRATEGY_HELP = ("react (one chain), react@N (up to N chains, the first that answers is kept) or dfsdt "
                 "(ToolLLM's depth-first decision tree, width 2, 200 LLM calls)")
# ToolBench's DFS return values: a final answer ends the search; a give-up backs up past the
# node that gave up (to its parent's next child); a chain cut at its step limit tries the
# node's next child.
_ANSWER_BACK, _GIVE_UP_BACK, _FAILED_BACK = 2, 2, 1
_STRATEGY = re.compile(r"^(react|dfsdt)(?:@(\d+))?$")


@dataclass(frozen=True)
class Strategy:
    """A decision procedure and its limits.

    Attributes:
        name: ``react``, ``react@N`` or ``dfsdt``.
        chains: Chains of ``react@N`` (1 for react).
        width: Children a DFSDT node may get (ToolBench's ``tree_beam_size``, 2).
        max_steps: Depth of a chain in ToolBench's tree nodes (``single_chain_max_step``, 12): as in
            ToolBench, a decision adds a ``Thought`` node when the model wrote text and an
            ``Action`` and an ``Action Input`` node when it called a function, so a chain of
            calls with thoughts is cut after 4 decisions, of bare calls after 6 (an end that
            answers still answers). An env's own limit (ToolLLM-v0's ``max_calls``) cuts chains too.
        max_llm_calls: Decisions per task (ToolBench's ``max_query_count``, 200). As in ToolBench,
            the decision that reaches it is not executed and the search stops.
    """

    name: str
    chains: int = 1
    width: int = 2
    max_steps: int = 12
    max_llm_calls: int = 200

    @property
    def tree(self) -> bool:
        return self.name == "dfsdt"

    def describe(self) -> dict:
        return {"strategy": self.name, "width": self.width if self.tree else 1, "chains": self.chains,
                "max_steps": self.max_steps, "max_llm_calls": self.max_llm_calls}


def parse_strategy(text: str, max_steps: int = 12, max_llm_calls: int = 200, width: int = 2) -> Strategy:
    """``react``, ``react@N`` (N >= 1) or ``dfsdt`` as a :class:`Strategy`.

    Raises:
        ValueError: Anything else, saying what is accepted.
    """
    match = _STRATEGY.match(text.strip().lower())
    if not match or (match.group(1) == "dfsdt" and match.group(2)) or (match.group(2) and int(match.group(2)) < 1):
        raise ValueError(f"unknown strategy {text!r}: use {STRATEGY_HELP}")
    if max_steps < 1 or max_llm_calls < 1 or width < 1:
        raise ValueError("a strategy needs max_steps, max_llm_calls and width of at least 1")
    chains = int(match.group(2) or 1)
    name = match.group(1) if chains == 1 or match.group(1) == "dfsdt" else f"react@{chains}"
    return Strategy(name=name, chains=chains, width=width, max_steps=max_steps, max_llm_calls=max_llm_calls)


class _Stop(Exception):
    """Ends a search from any depth: the budget is spent or the policy failed."""


class TreeSearch:
    """One task's search: call :meth:`run` for the generator of decisions.

    Args:
        env: The env, reset to the task (its ``unwrapped`` has ``snapshot`` / ``restore``).
        strategy: What to run.
        policy_state: The policy's state for the task (``policy.start(observation, info)``).
        observation, info: What ``reset`` returned.

    Raises:
        ValueError: The env has no ``snapshot`` / ``restore``.
    """

    def __init__(self, env, strategy: Strategy, policy_state: Any, observation: str, info: dict):
        self.env, self.base, self.strategy = env, env.unwrapped, strategy
        if not (callable(getattr(self.base, "snapshot", None)) and callable(getattr(self.base, "restore", None))):
            raise ValueError(f"{getattr(self.base, 'env_id', type(self.base).__name__)} has no snapshot() / "
                            f"restore(), which search strategies need")
        self.root = Node(depth=0, parent=None, action=None, observation=observation, reward=0.0, info=info,
                         snapshot=self.base.snapshot(), policy_state=policy_state)
        self.env_at: Node = self.root  # the node whose state the env is in
        self.last_created: Node | None = None
        self.last_end: Node | None = None
        self.answer: Node | None = None
        self.llm_calls = self.chains = self.restores = self.expansions = 0
        self.error: str | None = None

    def run(self) -> Generator[Decision, Step, SearchResult]:
        try:
            if self.strategy.tree:
                yield from self._dfs(self.root)
            else:
                for _ in range(self.strategy.chains):
                    end = yield from self._chain(self.root)
                    if end.answered:
                        self.answer = end
                        break
        except _Stop:
            pass
        except Exception as exc:  # noqa: BLE001 - an env that fails on a step ends this task's search, not the run
            self.error = f"{type(exc).__name__}: {escape(' '.join(str(exc).split())[:300])}"
        return SearchResult(strategy=self.strategy.name, root=self.root, leaf=self.answer or self.last_end,
                            llm_calls=self.llm_calls, chains=self.chains, restores=self.restores, error=self.error,
                            query=str(self.root.observation))

    def _dfs(self, node: Node) -> Generator[Decision, Step, int]:
        """ToolBench's ``DFS(now_node, ...)`` without filter: the number of levels to back up.

        A node is never expanded again once its call returns, so its snapshot is dropped then:
        only the current path's snapshots are held (a full catalogue's image is ~15 MB).
        """
        try:
            return (yield from self._visit(node))
        finally:
            node.snapshot = None

    def _visit(self, node: Node) -> Generator[Decision, Step, int]:
        node.expand_num = self.expansions
        self.expansions += 1
        if node.answered:
            self.answer = node
            return _ANSWER_BACK
        if node.ended:
            node.pruned = True
            return _GIVE_UP_BACK if node.gave_up else _FAILED_BACK
        for _ in range(self.strategy.width):
            child = yield from self._expand(node)
            back = yield from self._dfs(child)
            if self.answer is not None:
                return back
            if back > 1:
                return back - 1
        return _FAILED_BACK

    def _chain(self, start: Node) -> Generator[Decision, Step, Node]:
        node = start
        while not node.ended:
            node = yield from self._expand(node)
        node.pruned = not node.answered
        return node

    def _expand(self, node: Node) -> Generator[Decision, Step, Node]:
        """Ask for one action at ``node``, take it in the env, and return the new child."""
        if self.env_at is not node:
            self.base.restore(node.snapshot)  # writes of the abandoned branch are undone here
            self.restores += 1
            self.env_at = node
        if node is not self.last_created:
            self.chains += 1
        state = copy_policy_state(node.policy_state)
        info = diversity_info(node) if self.strategy.tree and node.children else node.info
        step = yield Decision(state=state, observation=node.observation, info=info)
        self.llm_calls += 1
        if step.llm.get("error"):
            self.error = f"backend failed: {step.llm['error']}"
            raise _Stop
        if self.llm_calls >= self.strategy.max_llm_calls:
            raise _Stop
        observation, reward, terminated, truncated, info = self.env.step(step.action)
        metrics = info.get("metrics") or {}
        tree_depth = node.tree_depth + tree_nodes(step)
        child = Node(depth=node.depth + 1, parent=node, action=step.action, observation=observation,
                     reward=float(reward), info=info, llm=step.llm, terminated=bool(terminated), tree_depth=tree_depth,
                     truncated=bool(truncated) or (not terminated and tree_depth >= self.strategy.max_steps),
                     gave_up=bool(terminated and metrics.get("gave_up")), policy_state=state,
                     chain=self.chains - 1)
        if child.ended:
            self.last_end = child
        elif self.strategy.tree:  # chains only ever go back to the root, whose snapshot is taken
            child.snapshot = self.base.snapshot()
        node.children.append(child)
        self.env_at = self.last_created = child
        return child


def tree_nodes(step: Step) -> int:
    """The nodes ToolBench's tree gets for one decision: a ``Thought`` for text (or for a reply
    with neither text nor a call), an ``Action`` and an ``Action Input`` for a function call."""
    call = isinstance(parse_action(step.action), ToolCall)
    return (1 if step.llm.get("text") or not call else 0) + (2 if call else 0)


def copy_policy_state(state: Any) -> Any:
    """A copy of a chain's policy state for a new child (the LLM agent's state cheaply, else deep)."""
    if isinstance(state, EpisodeState):
        return dataclasses.replace(state, queued=list(state.queued), notes=copy.deepcopy(state.notes))
    return copy.deepcopy(state)
