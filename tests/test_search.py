"""ReAct, ReAct@N and DFSDT over ToolLLM-v0's snapshots, with scripted policies."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.agents.llm.agent import Step
from toolgym.agents.search import DIVERSITY_PROMPT, parse_strategy, run_search, run_searches
from toolgym.agents.search.runner import search_record
from toolgym.eval.cli import main
from toolgym.eval.runner import read_results

ENV = "ToolLLM-v0"
GIVE_UP = {"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}}
DIVERSITY_START = DIVERSITY_PROMPT.split("\n")[0]


@pytest.fixture(scope="module")
def env():
    return gym.make(ENV)


def _create_task(base):
    """A one-tool task whose solution writes (a POST that creates an entity)."""
    return next(t for t in base.tasks.values() if t.group.startswith("G1") and len(t.plan) == 1
                and base.world.api(t.plan[0]["api_id"]).kind == "create")


class WrongThenRight:
    """Creates the wrong entity and gives up; once shown the diversity prompt, follows the oracle."""

    def __init__(self, base, task):
        self.base, self.task = base, task
        self.prompts: list[str] = []

    def start(self, observation, info):
        return {"right": False, "step": 0}

    def step_batch(self, states, observations, infos):
        steps = []
        for state, info in zip(states, infos):
            last = info["messages"][-1].get("content") or ""
            if last.startswith(DIVERSITY_START):
                self.prompts.append(last)
                state["right"] = True
            if state["right"]:
                action = self.base.oracle_action()
            else:
                plan = self.task.plan[0]
                wrong = {"name": self.base.world.api(plan["api_id"]).function,
                         "arguments": {**plan["arguments"], "name": "Wrongly Made"}}
                action = [wrong, GIVE_UP][state["step"]]
            state["step"] += 1
            steps.append(Step(action=action, llm={}))
        return steps


def test_dfsdt_backtracks_past_a_give_up_and_the_abandoned_writes_are_gone(env):
    base = env.unwrapped
    task = _create_task(base)
    tool_id = base.world.api(task.plan[0]["api_id"]).tool_id
    policy = WrongThenRight(base, task)
    result = run_search(env, policy, parse_strategy("dfsdt"), task.query_id)

    assert result.answered and result.metrics()["pass"] == 1.0
    assert result.llm_calls == 4 and result.chains == 2 and result.restores == 1
    names = [e.name for e in base.world.entities(tool_id)]
    assert "Wrongly Made" not in names and task.plan[0]["arguments"]["name"] in names
    # the give-up backed up past its parent: the root got a second child, shown the first as a candidate
    first, second = result.root.children
    assert first.children[0].gave_up and first.children[0].pruned
    assert len(policy.prompts) == 1 and "Wrongly Made" in policy.prompts[0]
    # the reported chain is the answering one; the record keeps the whole tree in ToolBench's shape
    record = search_record(result)
    assert [s["action"]["name"] for s in record["trajectory"]] == [
        base.world.api(task.plan[0]["api_id"]).function, "Finish"]
    assert "Wrongly Made" not in json.dumps(record["trajectory"])
    generation = record["search"]["answer_generation"]
    assert generation["valid_data"] and generation["answer_chain"] == 1 and generation["query_count"] == 4
    assert len(generation["train_messages"]) == 2  # the given-up chain and the answer
    tree = record["search"]["tree"]["tree"]
    assert [c["node_type"] for c in tree["children"]] == ["Action", "Action"]
    give_up = tree["children"][0]["children"][0]["children"][0]["children"][0]
    assert give_up["node_type"] == "Action Input" and give_up["observation_code"] == 4


class Invalid:
    """Never calls a real function: every chain runs into the env's step limit."""

    def start(self, observation, info):
        return None

    def step_batch(self, states, observations, infos):
        return [Step(action={"name": "no_such_function", "arguments": {}}, llm={}) for _ in states]


def test_dfsdt_follows_toolbench_width_and_budget():
    env = gym.make(ENV, max_calls=2)
    task_id = env.unwrapped.task_ids()[0]
    # width 2, chains cut at depth 2: root -> a -> (b, b'), root -> a' -> (b'', b''')
    result = run_search(env, Invalid(), parse_strategy("dfsdt"), task_id)
    assert not result.answered and result.llm_calls == 6 and result.chains == 4
    assert [len(c.children) for c in result.root.children] == [2, 2]
    nodes = [result.root] + [n for end in result.ended_chains() for n in end.path()]
    assert all(n.snapshot is None for n in nodes)  # finished subtrees hold no world images
    assert result.metrics()["pass"] == 0.0  # the last chain's end is reported
    # the decision that reaches the budget is not executed (ToolBench's max_query_count)
    limited = run_search(env, Invalid(), parse_strategy("dfsdt", max_llm_calls=3), task_id)
    assert limited.llm_calls == 3 and sum(1 for _ in limited.ended_chains()) == 1


class GiveUpFirst:
    """Gives up on the first decision it is asked, then follows the oracle."""

    def __init__(self, base):
        self.base, self.calls = base, 0

    def start(self, observation, info):
        return None

    def step_batch(self, states, observations, infos):
        self.calls += 1
        return [Step(action=GIVE_UP if self.calls == 1 else self.base.oracle_action(), llm={}) for _ in states]


def test_react_keeps_one_chain_and_react_at_n_restarts_from_the_start(env):
    base = env.unwrapped
    task_id = _create_task(base).query_id
    one = run_search(env, GiveUpFirst(base), parse_strategy("react"), task_id)
    assert one.chains == 1 and not one.answered and one.metrics()["gave_up"] == 1.0
    three = run_search(env, GiveUpFirst(base), parse_strategy("react@3"), task_id)
    assert three.answered and three.chains == 2 and three.leaf.chain == 1 and three.metrics()["pass"] == 1.0


def test_strategy_names_are_checked():
    assert parse_strategy("ReAct@4").chains == 4
    assert parse_strategy("dfsdt").width == 2 and parse_strategy("dfsdt").max_llm_calls == 200
    for bad in ("dfs", "react@0", "dfsdt@2", "react@"):
        with pytest.raises(ValueError, match="unknown strategy"):
            parse_strategy(bad)
    with pytest.raises(ValueError, match="snapshot"):
        run_search(gym.make("ToolTalk-v0"), Invalid(), parse_strategy("react"), gym.make("ToolTalk-v0").unwrapped
                   .task_ids()[0])


def test_lockstep_searches_equal_one_at_a_time(env):
    base = env.unwrapped
    task_ids = base.task_ids()[:3] + [_create_task(base).query_id]
    envs = [gym.make(ENV) for _ in range(3)]
    stats: dict = {}
    together = run_searches(envs, Invalid(), parse_strategy("dfsdt", max_llm_calls=8), task_ids, stats=stats)
    alone = {t: run_search(env, Invalid(), parse_strategy("dfsdt", max_llm_calls=8), t) for t in task_ids}
    assert stats["policy_calls"] < stats["decisions"]
    assert {t: r.toolbench() for t, r in together.items()} == {t: r.toolbench() for t, r in alone.items()}


def test_cli_eval_with_a_strategy_writes_trees_and_resumes(tmp_path, capsys):
    out = tmp_path / "dfsdt.jsonl"
    args = ["eval", ENV, "--agent", "oracle", "--strategy", "dfsdt", "--episodes", "3", "--no-progress",
            "--out", str(out)]
    assert main(args) == 0
    records = read_results(out)
    assert len(records) == 3 and all(r["metrics"]["pass"] == 1.0 for r in records)
    assert all(r["strategy"] == "dfsdt" and r["search"]["answer_generation"]["valid_data"] for r in records)
    assert main(args[:-2] + ["--episodes", "4", "--out", str(out), "--resume"]) == 0
    assert len(read_results(out)) == 4
    # another strategy is another run: not resumed into the same file
    assert main(["eval", ENV, "--agent", "oracle", "--strategy", "react", "--episodes", "4", "--no-progress",
                 "--out", str(out), "--resume"]) == 2
    assert "other settings" in capsys.readouterr().err
    assert main(["eval", ENV, "--agent", "oracle", "--strategy", "bfs", "--episodes", "1"]) == 2


class Scripted:
    """Model outputs in the order they are asked for: (thought text, action) pairs."""

    def __init__(self, outputs):
        self.outputs, self.asked, self.prompts = list(outputs), 0, []

    def start(self, observation, info):
        return None

    def step_batch(self, states, observations, infos):
        steps = []
        for info in infos:
            self.prompts.append(info["messages"][-1].get("content") or "")
            text, action = self.outputs[self.asked]
            self.asked += 1
            steps.append(Step(action=action, llm={"text": text}))
        return steps


def test_dfsdt_builds_toolbench_tree_in_its_order_and_counts_depth_in_its_nodes(env):
    base = env.unwrapped
    task = _create_task(base)
    call = {"name": base.world.api(task.plan[0]["api_id"]).function, "arguments": task.plan[0]["arguments"]}
    other = {"name": "no_such_function", "arguments": {}}
    answer = {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": "done"}}
    outputs = [("t1", call), ("t2", other), ("t3", other), ("t4", other),  # 3 nodes each: cut at depth 12
               ("", other), ("", GIVE_UP),  # bare calls: 2 nodes each; the give-up backs up 2 levels
               ("let me think", "no call here"),  # text only: a Thought node
               ("t8", answer)]
    policy = Scripted(outputs)
    result = run_search(env, policy, parse_strategy("dfsdt"), task.query_id)
    assert result.answered and result.llm_calls == 8 and result.chains == 3
    n1, = result.root.children
    n2, = n1.children
    n3, n7 = n2.children
    n4, n5 = n3.children
    n6, = n5.children
    n8, = n7.children
    order = [result.root, n1, n2, n3, n4, n5, n6, n7, n8]
    assert [n.expand_num for n in order] == list(range(9))  # ToolBench's pre-order
    assert [n.tree_depth for n in order] == [0, 3, 6, 9, 12, 11, 13, 7, 10]
    assert n4.truncated and not n4.terminated and n6.gave_up and n6.pruned and n8.answered
    tree = result.toolbench()["tree"]
    assert tree["size"] == 1 + 3 * 4 + 2 * 2 + 1 + 3 and tree["max_length"] == 14
    thoughts = [n for n in _walk_nodes(tree["tree"]) if n["node_type"] == "Thought"]
    assert [n["description"] for n in thoughts] == ["t1", "t2", "t3", "t4", "let me think", "t8"]
    assert thoughts[4]["depth"] == 7 and thoughts[4]["children"][0]["node_type"] == "Thought"
    # asked again, a node shows its first child as ToolBench's diversity prompt does, action value 0
    shown = [p for p in policy.prompts if p.startswith(DIVERSITY_START)]
    assert len(shown) == 2 and all('"mento-carlo-action-value": 0.0' in p for p in shown)
    # the decision that reaches the budget is not executed: 3 nodes, then the search stops
    limited = run_search(env, Scripted(outputs), parse_strategy("dfsdt", max_llm_calls=4), task.query_id)
    assert limited.llm_calls == 4 and [n.tree_depth for n in _walk_nodes(limited.root)] == [0, 3, 6, 9]


def _walk_nodes(node):
    """A search tree's nodes (or a ToolBench tree's dicts) in pre-order."""
    yield node
    for child in node["children"] if isinstance(node, dict) else node.children:
        yield from _walk_nodes(child)
