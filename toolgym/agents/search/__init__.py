"""ToolLLM's decision procedures over any env with ``snapshot()`` / ``restore()``.

- ``react``: one chain of thought-action-observation steps (ToolLLM's ReAct / CoT baseline).
- ``react@N``: up to N chains from the start, each from the restored initial state; the first
  chain that answers is kept (ToolBench's ``CoT@N``).
- ``dfsdt``: ToolLLM's depth-first search-based decision tree as ToolBench runs it by default
  (``DFS_woFilter_w2``): pre-order, width 2, the diversity prompt on every expansion of a node
  that has children, backtracking on ``give_up_and_restart`` and on failed chains, a per-chain
  step limit and a budget of LLM calls (200).

Every strategy is a generator of decisions (:class:`~toolgym.agents.search.tree.Decision`),
so one task or many can be driven by one policy: :func:`run_search` runs one task,
:func:`run_searches` advances several tasks' trees with one batched policy call per round.
"""

from toolgym.agents.search.policy import ActPolicy, Policy, as_policy
from toolgym.agents.search.runner import SearchAgent, run_search, run_searches
from toolgym.agents.search.strategies import STRATEGY_HELP, Strategy, parse_strategy
from toolgym.agents.search.tree import DIVERSITY_PROMPT, Decision, Node, SearchResult

__all__ = ["ActPolicy", "Policy", "as_policy", "SearchAgent", "run_search", "run_searches", "STRATEGY_HELP",
           "Strategy", "parse_strategy", "DIVERSITY_PROMPT", "Decision", "Node", "SearchResult"]
