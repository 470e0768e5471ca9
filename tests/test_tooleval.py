"""ToolEval with scripted judges: the rules, the majority vote, SoPR, the defect, both orders of the win rate."""

from __future__ import annotations

import json

import pytest

from toolgym.llm.backends import Completion
from toolgym.eval.cli import main
from toolgym.eval.tooleval import (FAILED, PASSED, SOLVABLE, SOLVED, UNSOLVABLE, UNSOLVED, UNSURE, ToolEvalJudge,
                                   parse_judgement, summarize)


def record(task_id: str, answer: str | None, split: str = "G1_instruction", passed: float | None = None) -> dict:
    """A results record whose chain ends with Finish(give_answer=answer), or gives up when answer is None."""
    finish = ({"return_type": "give_answer", "final_answer": answer} if answer is not None
              else {"return_type": "give_up_and_restart"})
    return {"env": "ToolLLM-v0", "task_id": task_id, "split": split, "query": f"question {task_id}",
            "metrics": {"pass": passed},
            "trajectory": [{"action": {"name": "search_for_x", "arguments": {"q": task_id}}, "observation": "{}"},
                           {"action": {"name": "Finish", "arguments": finish}, "observation": "{}"}]}


class ScriptedJudge:
    """A backend that answers each ToolEval question from scripts keyed by the final answer's text.

    ``answers``: answer text -> list of answer statuses, one per judgement (in order);
    ``details``: status of the trajectory check; ``solvable``: task status; ``prefer``: a word the
    preferred answer holds (None: always index 0, a judge with position bias).
    """

    def __init__(self, answers=None, details=UNSURE, solvable=SOLVABLE, prefer=None):
        self.answers = {k: list(v) for k, v in (answers or {}).items()}
        self.details, self.solvable, self.prefer = details, solvable, prefer
        self.asked: list[str] = []

    def generate(self, requests, sampling):
        out = []
        for request in requests:
            prompt = request.messages[-1]["content"]
            if prompt.startswith("Giving the query and answer"):
                self.asked.append("answer")
                answer = prompt.split("Answer:\n", 1)[1].split("\n\nReply", 1)[0]
                script = self.answers[answer]
                text = json.dumps({"reason": "r", "answer_status": script.pop(0) if len(script) > 1 else script[0]})
            elif prompt.startswith("Giving the query and the correspond execution detail"):
                self.asked.append("details")
                assert "answer_details" in prompt  # the whole trajectory is shown
                text = json.dumps({"answer_status": self.details})
            elif prompt.startswith("Please check whether the given task solvable"):
                self.asked.append("solvable")
                text = f'The task is {self.solvable}. {{"task_status": "{self.solvable}"}}'
            else:
                self.asked.append("select")
                first = prompt.split("Answer_0:\n", 1)[1].split("\n\nAnswer_1:", 1)[0]
                index = 0 if self.prefer is None or self.prefer in first else 1
                text = json.dumps({"reason": "r", "index": index})
            out.append(Completion(text=text))
        return out


@pytest.mark.parametrize("answer, task, paper, compat", [
    (SOLVED, None, PASSED, PASSED),
    (UNSOLVED, SOLVABLE, FAILED, FAILED),
    (UNSOLVED, UNSOLVABLE, FAILED, PASSED),  # ToolEval's defect, only under paper_compat
    (UNSURE, UNSOLVABLE, None, PASSED),
])
def test_is_passed_rules(answer, task, paper, compat):
    assert ToolEvalJudge(ScriptedJudge(), scoring="paper_compat").label(answer, task, "q", 0) == compat
    label = ToolEvalJudge(ScriptedJudge()).label(answer, task, "q", 0)
    assert label == paper if paper else label in (PASSED, FAILED)  # Unsure: ToolEval's (seeded) coin


def test_unsure_is_a_seeded_coin():
    judge = ToolEvalJudge(ScriptedJudge(), seed=3)
    flips = [judge.label(UNSURE, SOLVABLE, "q", i) for i in range(40)]
    assert set(flips) == {PASSED, FAILED}
    assert flips == [ToolEvalJudge(ScriptedJudge(), seed=3).label(UNSURE, SOLVABLE, "q", i) for i in range(40)]


def test_majority_vote_sopr_and_agreement():
    backend = ScriptedJudge({"a": [SOLVED, UNSOLVED, UNSOLVED], "b": [SOLVED, SOLVED, UNSOLVED],
                             "c": [UNSOLVED]})
    judged = ToolEvalJudge(backend, judgements=3).judge(
        [record("1", "a", passed=1.0), record("2", "b", passed=1.0), record("3", "c", passed=0.0)])
    assert [q.passed for q in judged] == [False, True, False]
    assert [q.sopr for q in judged] == pytest.approx([1 / 3, 2 / 3, 0.0])
    row = summarize(judged)["G1_instruction"]
    assert row["pass_rate"] == pytest.approx(1 / 3) and row["programmatic"] == pytest.approx(2 / 3)
    assert row["agreement"] == pytest.approx(2 / 3)
    # a tie of judgements passes (ToolEval counts failed <= passed)
    tie = ToolEvalJudge(ScriptedJudge({"a": [SOLVED, UNSOLVED]}), judgements=2).judge([record("1", "a")])
    assert tie[0].passed


def test_unsure_answers_are_checked_against_the_trajectory_and_give_ups_are_never_asked():
    backend = ScriptedJudge({"maybe": [UNSURE]}, details=SOLVED)
    judge = ToolEvalJudge(backend, judgements=1)
    judged = judge.judge([record("1", "maybe"), record("2", None)])
    assert judged[0].answer_status == [SOLVED] and judged[0].passed
    assert judged[1].answer_status == [UNSOLVED] and not judged[1].passed
    assert backend.asked == ["answer", "details", "solvable"]  # the give-up is Unsolved without a question
    no_finish = record("3", "x")
    no_finish["trajectory"].pop()
    backend.asked.clear()
    assert judge.judge([no_finish])[0].labels == [FAILED] and backend.asked == []


def test_the_defect_under_paper_compat():
    records = [record("1", "sorry, no idea")]
    backend = ScriptedJudge({"sorry, no idea": [UNSOLVED]}, solvable=UNSOLVABLE)
    assert not ToolEvalJudge(backend, judgements=1).judge(records)[0].passed
    assert ToolEvalJudge(backend, judgements=1, scoring="paper_compat").judge(records)[0].passed


def test_win_rate_asks_both_orders():
    ours = [record("1", "good answer"), record("2", "right"), record("3", "plain a")]
    theirs = [record("1", "poor answer"), record("2", "nothing"), record("3", "plain b")]
    statuses = {"good answer": [SOLVED], "poor answer": [SOLVED], "right": [SOLVED], "nothing": [UNSOLVED],
                "plain a": [SOLVED], "plain b": [SOLVED]}
    # a judge that prefers the better content wins the query in both orders
    fair = ScriptedJudge(statuses, prefer="good")
    assert ToolEvalJudge(fair).win_rate(ours, theirs) == {"1": "win", "2": "win", "3": "tie"}
    # queries 1 and 3 once per order; 2 is won on the pass label; 3 (no preferred word) goes to the
    # second position both times, which is a tie once both orders are asked
    assert fair.asked.count("select") == 4
    # a judge with position bias (always the first answer) wins nothing once the order is swapped
    biased = ScriptedJudge(statuses)
    assert ToolEvalJudge(biased).win_rate(ours, theirs)["1"] == "tie"


def test_parse_judgement_reads_json_or_one_word_and_never_evaluates():
    assert parse_judgement('sure: {"answer_status": "Solved"}', "answer_status", (SOLVED, UNSOLVED)) == SOLVED
    assert parse_judgement("Unsolved, clearly", "answer_status", (SOLVED, UNSOLVED)) == UNSOLVED
    assert parse_judgement("__import__('os')", "answer_status", (SOLVED, UNSOLVED)) is None


def test_cli_judge_prints_pass_rate_and_win_rate(tmp_path, capsys):
    results = tmp_path / "oracle.jsonl"
    assert main(["eval", "ToolLLM-v0", "--agent", "oracle", "--episodes", "3", "--no-progress",
                 "--out", str(results)]) == 0
    judge = tmp_path / "judge.py"
    judge.write_text("from toolgym.llm.backends import Completion\n"
                     "class AlwaysSolved:\n"
                     "    def generate(self, requests, sampling):\n"
                     "        return [Completion(text='{\"answer_status\": \"Solved\", \"index\": 0}') for _ in requests]\n")
    capsys.readouterr()
    assert main(["judge", str(results), "--against", str(results), "--agent", f"{judge}:AlwaysSolved"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("G1_instruction"))
    assert row.split()[1:6] == ["3", "100.0", "100.0", "100.0", "100.0"]  # n, pass, SoPR, programmatic, agreement
    assert "Win rate" in out and "both orders" in out


# -- Finish as the env reads it, on official queries (issue 27) --------------------------------
def _official_record(official_data, actions: list, scoring: str = "paper") -> dict:
    """A results record of an official ToolLLM-v0 episode (query 608) that took ``actions``."""
    import gymnasium as gym

    env = gym.make("ToolLLM-v0", tasks="official", data_dir=str(official_data), scoring=scoring).unwrapped
    query, info = env.reset(options={"task_id": "608"})
    trajectory = []
    for action in actions:
        observation, _, terminated, truncated, info = env.step(action)
        trajectory.append({"action": action, "observation": observation})
        if terminated or truncated:
            break
    return {"env": "ToolLLM-v0", "task_id": "608", "split": "G1_instruction", "query": query,
            "metrics": info.get("metrics") or {"pass": None}, "trajectory": trajectory}


LINKS = {"name": "get_channel_links_for_kick_com_api_kick_api", "arguments": {}}


def test_judge_reads_finish_leniently_like_the_env(official_data):
    raw = '{"return_type": "give_answer", "final_answer": "Links:\n- twitter"}'  # a raw newline: not strict JSON
    broken = '{"return_type": "give_answer", "final_answer": "unterminated'
    backend = ScriptedJudge({"Links:\n- twitter": [SOLVED], "unterminated": [SOLVED]})
    judged = ToolEvalJudge(backend, judgements=1).judge(
        [_official_record(official_data, [LINKS, {"name": "Finish", "arguments": text}]) for text in (raw, broken)])
    assert [q.answer_status for q in judged] == [[SOLVED], [SOLVED]] and backend.asked == ["answer", "answer"]


def test_a_rejected_finish_followed_by_calls_is_not_an_answer(official_data):
    rejected = {"name": "Finish", "arguments": {"final_answer": "Links: twitter"}}  # no return_type
    record = _official_record(official_data, [rejected, LINKS] + [LINKS] * 10)
    assert record["trajectory"][0]["observation"] == '{error:"must have "return_type""}'
    assert record["metrics"]["answered"] == 0.0  # truncated at max_calls, never finished
    backend = ScriptedJudge({"Links: twitter": [SOLVED]})
    judged = ToolEvalJudge(backend, judgements=1).judge([record])[0]
    assert judged.answer_status == [UNSOLVED] and judged.labels == [FAILED] and backend.asked == []


def test_an_empty_final_answer_goes_raw_to_the_judge_only_under_paper_compat(official_data):
    empty = '{"return_type": "give_answer", "final_answer": ""}'
    record = _official_record(official_data, [LINKS, {"name": "Finish", "arguments": empty}])
    backend = ScriptedJudge({empty: [SOLVED]})
    assert ToolEvalJudge(backend, judgements=1).judge([record])[0].answer_status == [UNSOLVED]
    assert "answer" not in backend.asked  # Unsolved without asking (then only "is it solvable?")
    backend.asked.clear()
    compat = ToolEvalJudge(backend, judgements=1, scoring="paper_compat").judge([record])[0]
    assert compat.answer_status == [SOLVED] and backend.asked == ["answer"]
