"""The decision tree of a search: nodes, the decisions asked of a policy, and the result.

A :class:`Node` is the env's state after one decision (the root: after ``reset``). It keeps
the env snapshot to come back to, the policy's state to continue from, and the step's
outcome. :meth:`SearchResult.toolbench` writes the tree in the shape of ToolBench's answer
files (``answer_generation`` and ``tree`` with ``Thought`` / ``Action`` / ``Action Input``
nodes), so readers of those files recognise it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: ToolBench's ``DIVERSITY_PROMPT`` (``Tree_search_prompts.py``), verbatim: asked when a node
#: that already has children is expanded again.
DIVERSITY_PROMPT = (
    "This is not the first time you try this task, all previous trails failed.\n"
    "Before you generate my thought for this state, I will first show you your previous actions for this state, "
    "and then you must generate actions that is different from all of them. Here are some previous actions "
    "candidates:\n{previous_candidate}\n"
    "Remember you are now in the intermediate state of a trail, you will first analyze the now state and previous "
    "action candidates, then make actions that is different from all the previous.")

# ToolBench's observation codes: 0 a call that answered, 1 an error, 3 a final answer, 4 a give-up.
CODE_OK, CODE_ERROR, CODE_ANSWER, CODE_GIVE_UP = 0, 1, 3, 4


@dataclass
class Decision:
    """A request for one action: the policy's state for the chain and the env's info to prompt with."""

    state: Any
    observation: str
    info: dict


@dataclass
class Node:
    """The env after one decision (the root: after reset).

    Attributes:
        depth: Decisions from the root.
        tree_depth: Depth in ToolBench's tree (``Thought``, ``Action`` and ``Action Input``
            nodes from the root; see :func:`~toolgym.agents.search.strategies.tree_nodes`).
        parent: The node it was expanded from (None for the root).
        action: The action taken (None for the root).
        observation: What the env answered.
        reward: The step's reward.
        info: The env's info after the step (prompts the children; holds metrics at an end).
        llm: The policy's record of the decision (text, tokens, ...).
        terminated: The env ended the episode (an answer or a give-up).
        truncated: The env cut the chain (its step limit).
        gave_up: The chain gave up (``give_up_and_restart``).
        snapshot: The env's snapshot, to come back to (None for ends and for chain nodes, never returned to).
        policy_state: The policy's state after the decision, copied for each child.
        children: Expanded children, in order.
        expand_num: When DFS visited the node (ToolBench's ``expand_num``), -1 if never.
        pruned: Abandoned (an end that did not answer).
        chain: The index of the chain that created it (0-based, in creation order).
    """

    depth: int
    parent: Node | None
    action: Any
    observation: str
    reward: float
    info: dict
    llm: dict = field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False
    gave_up: bool = False
    snapshot: Any = None
    policy_state: Any = None
    children: list[Node] = field(default_factory=list)
    expand_num: int = -1
    pruned: bool = False
    chain: int = 0
    tree_depth: int = 0

    @property
    def answered(self) -> bool:
        """An end that gave an answer (ToolBench's terminal node)."""
        return self.terminated and not self.gave_up

    @property
    def ended(self) -> bool:
        return self.terminated or self.truncated

    def path(self) -> list[Node]:
        """The nodes from the root's first child down to this one."""
        nodes, node = [], self
        while node.parent is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def candidate(self) -> dict:
        """This decision as ToolBench lists it in the diversity prompt (DFSDT's action value is 0)."""
        name, arguments = action_parts(self.action)
        return {"name": name, "arguments": arguments, "function_output": self.observation,
                "mento-carlo-action-value": 0.0}


def action_parts(action: Any) -> tuple[str, str]:
    """(function name, arguments as text) of an action; a text action has no name."""
    if isinstance(action, dict) and "name" in action:
        arguments = action.get("arguments", {})
        return str(action["name"]), arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
    return "", action if isinstance(action, str) else json.dumps(action, default=str)


def diversity_info(node: Node) -> dict:
    """The node's info with ToolBench's diversity prompt appended to the messages."""
    previous = json.dumps([child.candidate() for child in node.children], indent=2) + "\n"
    if node.parent is not None and node.observation:
        previous += f"again, your former observation: {node.observation}\n"
    message = {"role": "user", "content": DIVERSITY_PROMPT.replace("{previous_candidate}", previous)}
    return {**node.info, "messages": list(node.info.get("messages") or []) + [message]}


@dataclass
class SearchResult:
    """The outcome of one task's search.

    Attributes:
        strategy: The strategy's name (``react``, ``react@3``, ``dfsdt``).
        root: The tree.
        leaf: The node whose chain is reported: the answer, else the last chain's end (None
            when no chain ended, e.g. a budget spent inside the first chain).
        llm_calls: Decisions asked of the policy (ToolBench's ``query_count``).
        chains: Chains started.
        restores: Env restores (backtracks).
        error: Why the search stopped early (a backend error), else None.
        query: The task's instruction.
    """

    strategy: str
    root: Node
    leaf: Node | None
    llm_calls: int
    chains: int
    restores: int
    error: str | None = None
    query: str = ""

    @property
    def answered(self) -> bool:
        return self.leaf is not None and self.leaf.answered

    def trajectory(self) -> list[dict]:
        """The reported chain as results-file steps (action, observation, reward, llm)."""
        if self.leaf is None:
            return []
        return [{"action": n.action, "observation": n.observation, "reward": n.reward, "llm": n.llm}
                for n in self.leaf.path()]

    def metrics(self) -> dict | None:
        """The env's metrics at the reported chain's end."""
        return self.leaf.info.get("metrics") if self.leaf is not None and self.leaf.ended else None

    def ended_chains(self) -> list[Node]:
        """Every end of the tree (answers, give-ups, cut chains), in creation order."""
        ends, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if node.ended:
                ends.append(node)
            stack.extend(reversed(node.children))
        return sorted(ends, key=lambda n: (n.chain, n.depth))

    def toolbench(self) -> dict:
        """The search as a ToolBench answer file holds it: ``answer_generation`` and ``tree``."""
        ends = self.ended_chains()
        final = ""
        finish_type = "give_up"
        if self.answered:
            name, arguments = action_parts(self.leaf.action)
            final, finish_type = arguments, "give_answer"
        tokens = sum((n.llm.get("prompt_tokens") or 0) + (n.llm.get("completion_tokens") or 0)
                     for n in _walk(self.root))
        return {
            "win": self.answered,
            "answer_generation": {
                "valid_data": self.answered, "final_answer": final, "finish_type": finish_type,
                "query": self.query, "function": self.root.info.get("tools") or [], "query_count": self.llm_calls,
                "total_tokens": tokens, "chains": self.chains, "answer_chain": self.leaf.chain if self.answered else None,
                "train_messages": [end.info.get("messages") or [] for end in ends],
            },
            "tree": {"size": 1 + sum(n.tree_depth - n.parent.tree_depth for n in _walk(self.root) if n.parent),
                     "max_length": 1 + max(n.tree_depth for n in _walk(self.root)),
                     "tree": _toolbench_node(self.root)},
        }


def _walk(node: Node):
    yield node
    for child in node.children:
        yield from _walk(child)


def _toolbench_node(node: Node) -> dict:
    """A node as ToolBench's ``tree_node.to_json_recursive``: Thought -> Action -> Action Input."""
    children = [_toolbench_node(c) for c in node.children]
    if node.parent is None:
        return {"node_type": "Action Input", "description": "", "observation": node.observation, "depth": 0,
                "expand_num": node.expand_num, "children": children}
    name, arguments = action_parts(node.action)
    code = (CODE_GIVE_UP if node.gave_up else CODE_ANSWER if node.answered
            else CODE_ERROR if _has_error(node.observation) else CODE_OK)
    action_input = {"node_type": "Action Input", "description": arguments, "observation": node.observation,
                    "observation_code": code, "is_terminal": node.answered, "pruned": node.pruned,
                    "finished": node.ended, "depth": node.tree_depth, "expand_num": node.expand_num, "chain": node.chain,
                    "children": children}
    thought = node.llm.get("text") or ""
    if node.tree_depth - node.parent.tree_depth == 1:  # no function call: ToolBench's tree has the Thought only
        return {**action_input, "node_type": "Thought", "description": thought or arguments}
    action = {"node_type": "Action", "description": name, "observation": "", "children": [action_input]}
    if not thought:
        return action
    return {"node_type": "Thought", "description": thought, "observation": "", "children": [action]}


def _has_error(observation: str) -> bool:
    try:
        value = json.loads(observation)
    except (ValueError, TypeError):
        return False
    return isinstance(value, dict) and bool(value.get("error"))
