"""The built-in banking_knowledge generator (issue 50): determinism, splits held out by template,
τ³'s formats, nothing copied from the official data, and τ³'s own grading of every template."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from toolgym.worlds.tau2.banking_knowledge.generate import (
    TEMPLATES,
    TEST_TEMPLATES,
    TRAIN_TEMPLATES,
    generate_bank,
)

ROOT = Path(__file__).resolve().parents[1]
TAU3_PYTHON = Path("/tmp/tau2venv/bin/python")
#: The tables of τ³'s ``TransactionalDB`` (a2c0247), which refuses any other.
TAU3_TABLES = {"users", "accounts", "debit_cards", "referrals", "credit_card_applications",
               "user_discoverable_tools", "user_discoverable_tool_calls", "verification_history",
               "credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
               "credit_card_accounts", "agent_discoverable_tools", "task_config", "human_transfer_requests",
               "transaction_disputes", "credit_card_orders", "debit_card_orders", "credit_card_closure_reasons",
               "credit_card_account_flags", "credit_limit_increase_requests", "payment_history",
               "debit_card_disputes"}


@pytest.fixture(scope="module")
def train():
    return generate_bank(0, "train")


@pytest.fixture(scope="module")
def test_split():
    return generate_bank(0, "test")


def test_same_seed_same_bank_and_another_seed_another(train):
    assert json.dumps(generate_bank(0, "train"), sort_keys=True) == json.dumps(train, sort_keys=True)
    other = generate_bank(1, "train")
    assert other["db"]["users"]["data"].keys().isdisjoint(train["db"]["users"]["data"])
    assert [t["user_scenario"] for t in other["tasks"]] != [t["user_scenario"] for t in train["tasks"]]


def test_splits_hold_out_whole_templates(train, test_split):
    assert set(TRAIN_TEMPLATES).isdisjoint(TEST_TEMPLATES) and len(TEMPLATES) >= 10
    train_templates = Counter(t["description"]["template"] for t in train["tasks"])
    test_templates = Counter(t["description"]["template"] for t in test_split["tasks"])
    assert set(train_templates) == set(TRAIN_TEMPLATES) and set(test_templates) == set(TEST_TEMPLATES)
    assert len(train["tasks"]) >= 200 and len(test_split["tasks"]) >= 60
    assert {t["id"] for t in train["tasks"]}.isdisjoint(t["id"] for t in test_split["tasks"])
    # one bank and knowledge base per seed, whichever split is asked for
    assert train["db"] == test_split["db"] and train["documents"] == test_split["documents"]
    with pytest.raises(ValueError, match="split"):
        generate_bank(0, "dev")


def test_formats_are_tau3s(train, test_split):
    db = train["db"]
    assert set(db) == TAU3_TABLES
    assert all(set(table) == {"data", "notes"} for table in db.values())
    doc_ids = [d["id"] for d in train["documents"]]
    assert len(set(doc_ids)) == len(doc_ids) and all(set(d) == {"id", "title", "content"} for d in train["documents"])
    users = db["users"]["data"]
    for task in train["tasks"] + test_split["tasks"]:
        assert set(task["required_documents"]) <= set(doc_ids)
        instructions = task["user_scenario"]["instructions"]
        assert instructions["domain"] == "banking_knowledge" and instructions["reason_for_call"]
        criteria = task["evaluation_criteria"]
        assert set(criteria["reward_basis"]) <= {"DB", "ACTION", "COMMUNICATE"}
        assert ("COMMUNICATE" in criteria["reward_basis"]) == bool(criteria["communicate_info"])
        for action in criteria["actions"]:
            if action["name"] == "log_verification":  # the log holds the profile exactly
                user = users[action["arguments"]["user_id"]]
                assert {k: action["arguments"][k] for k in user} == user
            if action["name"] in ("call_discoverable_agent_tool", "call_discoverable_user_tool",
                                  "give_discoverable_user_tool"):
                assert isinstance(json.loads(action["arguments"]["arguments"]), dict)
        user_actions = {a["name"] for a in criteria["actions"] if a["requestor"] == "user"}
        assert set(task["user_tools"]) == user_actions


def test_ground_truths_name_the_tools_their_documents_describe(train, test_split):
    """Each discoverable tool a task unlocks or gives is named in one of its required documents."""
    documents = {d["id"]: d["content"] for d in train["documents"]}
    for task in train["tasks"] + test_split["tasks"]:
        text = " ".join(documents[d] for d in task["required_documents"])
        for action in task["evaluation_criteria"]["actions"]:
            name = (action["arguments"].get("agent_tool_name")
                    or action["arguments"].get("discoverable_tool_name") or action["name"])
            assert name in text or action["name"] == "transfer_to_human_agents", (task["id"], name)
        if "ACTION" in task["evaluation_criteria"]["reward_basis"]:
            (transfer,) = task["evaluation_criteria"]["actions"]
            assert transfer["compare_args"] == ["reason"] and f"| {transfer['arguments']['reason']} |" in text


def test_escalation_and_dispute_rules_follow_the_knowledge_base(train):
    """Spot checks of policy-dependent ground truth: provisional credit inside the window only."""
    window = int(re.search(r"no more than (\d+) days", " ".join(d["content"] for d in train["documents"])).group(1))
    seen = Counter()
    for task in train["tasks"]:
        if task["description"]["template"] != "card_dispute":
            continue
        call = json.loads(task["evaluation_criteria"]["actions"][-1]["arguments"]["arguments"])
        month, day, year = map(int, call["purchase_date"].split("/"))
        n_month, n_day, n_year = map(int, call["issue_noticed_date"].split("/"))
        days = (datetime.date(n_year, n_month, n_day) - datetime.date(year, month, day)).days
        qualifies = call["dispute_reason"] in ("unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount")
        assert call["eligible_for_provisional_credit"] == (qualifies and days <= window)
        assert (call["card_action"] == "cancel_and_reissue") == (call["dispute_reason"] == "unauthorized_fraudulent_charge")
        seen[call["eligible_for_provisional_credit"]] += 1
    assert seen[True] and seen[False]


def test_a_caller_matching_one_identity_detail_changes_nothing(train):
    users = {u["name"]: u for u in train["db"]["users"]["data"].values()}
    refused = [t for t in train["tasks"] if t["description"]["template"] == "unverified_change"]
    assert refused
    for task in refused:
        known = task["user_scenario"]["instructions"]["known_info"]
        (lookup,) = task["evaluation_criteria"]["actions"]
        user = users[lookup["arguments"]["customer_name"]]
        matching = [key for key in ("email", "phone_number", "date_of_birth", "address") if user[key] in known]
        assert len(matching) == 1 and lookup["name"] == "get_user_information_by_name"


def test_nothing_copied_from_the_official_bank(official_data, train, test_split):
    folder = official_data / "tau2bench" / "tau2" / "domains" / "banking_knowledge"
    if not folder.is_dir():
        pytest.skip("banking_knowledge's official data not found")
    official_docs = [json.loads(p.read_text()) for p in sorted((folder / "documents").glob("*.json"))]
    official_tasks = json.loads((folder / "tasks.json").read_text())
    titles = {d["title"].strip().lower() for d in official_docs}
    assert not titles & {d["title"].strip().lower() for d in train["documents"]}
    official_lines = {line.strip() for d in official_docs for line in d["content"].splitlines() if len(line.strip()) > 50}
    ours = {line.strip() for d in train["documents"] for line in d["content"].splitlines()}
    assert not official_lines & ours
    generated = json.dumps([t["user_scenario"] for t in train["tasks"] + test_split["tasks"]])
    for task in official_tasks:
        instructions = task["user_scenario"]["instructions"]
        text = instructions if isinstance(instructions, str) else json.dumps(instructions)
        assert json.dumps(text)[1:-1] not in generated
    official_users = json.loads((folder / "db.json").read_text())["users"]["data"]
    assert not {u["name"] for u in official_users.values()} & {u["name"] for u in train["db"]["users"]["data"].values()}


def test_tau3_grades_every_template_as_the_ground_truth_says(official_data):
    """τ³'s own environment and evaluator (a2c0247, its own venv): 2 tasks of each of the 14 templates, the ground
    truth at 1.0 and each reward component's perturbation at 0."""
    if not TAU3_PYTHON.exists():
        pytest.skip("τ³ is not installed at /tmp/tau2venv")
    result = subprocess.run([str(TAU3_PYTHON), str(ROOT / "benchmarks/check_banking_builtin.py"),
                             "--per-template", "2", "--data-dir", str(official_data)],
                            capture_output=True, text=True, timeout=900, cwd=ROOT)
    if "prompts not found" in result.stderr:
        pytest.skip("banking_knowledge's official prompts not found")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines() if line.split(None, 1)[:1] in
                 (["oracle"], ["db"], ["action"], ["communicate"]))
    assert lines["oracle"] == "28/28 at 1.0"
    assert lines["db"] == "26/26 at 0"  # every template but the transfer to a human (ACTION only)
    assert lines["action"] == "2/2 at 0"
    assert lines["communicate"] == "8/8 at 0"  # replacement, transfer, balance, payment
    assert "0 problems" in result.stdout
