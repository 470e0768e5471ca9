"""Tau2-v0's banking_knowledge domain (τ³-bench): the bank's world and tools, its grading, the official tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.tau2.env import USER_ACTION_PREFIX
from toolgym.envs.users import STOP
from toolgym.worlds.tau2.banking_knowledge import TABLES, BankWorld, load_bank, read_log_allowlist

USER = {"name": "Ada Lovelace", "user_id": "u1", "address": "1 Main St", "email": "ada@example.com",
        "phone_number": "555-0100", "date_of_birth": "12/10/1985"}
DB = {
    "users": {"data": {"u1": USER}, "notes": "Customers."},
    "accounts": {"data": {"chk_u1": {"account_id": "chk_u1", "user_id": "u1", "class": "checking",
                                     "level": "Blue Account", "date_opened": "01/02/2020", "status": "OPEN",
                                     "current_holdings": "500.00"}}, "notes": ""},
    "debit_cards": {"data": {"dbc_1": {"card_id": "dbc_1", "account_id": "chk_u1", "user_id": "u1",
                                       "last_4_digits": "4321", "status": "ACTIVE", "issue_date": "01/02/2020",
                                       "issue_reason": "new_account"}}, "notes": ""},
    "credit_card_accounts": {"data": {"cc_u1": {"account_id": "cc_u1", "user_id": "u1",
                                                "card_type": "Gold Rewards Card", "current_balance": "$100.00",
                                                "credit_limit": "$4,000.00"}}, "notes": ""},
}
VERIFY = {"name": "log_verification", "arguments": {**{k: USER[k] for k in (
    "name", "user_id", "address", "email", "phone_number", "date_of_birth")}, "time_verified": "2025-11-14 03:40:00 EST"}}
UNLOCK_FREEZE = {"name": "unlock_discoverable_agent_tool", "arguments": {"agent_tool_name": "freeze_debit_card_3892"}}
FREEZE = {"name": "call_discoverable_agent_tool",
          "arguments": {"agent_tool_name": "freeze_debit_card_3892", "arguments": '{"card_id": "dbc_1"}'}}
GIVE = {"name": "give_discoverable_user_tool", "arguments": {"discoverable_tool_name": "submit_cash_back_dispute_0589"}}
DISPUTE = {"name": "call_discoverable_user_tool", "requestor": "user",
           "arguments": {"discoverable_tool_name": "submit_cash_back_dispute_0589",
                         "arguments": '{"user_id": "u1", "transaction_id": "txn_1"}'}}


def task(task_id: str, actions: list, basis: list, infos: list | None = None, initial: dict | None = None) -> dict:
    return {"id": task_id, "user_scenario": {"persona": None, "instructions": "You are Ada."},
            "initial_state": initial, "user_tools": ["call_discoverable_user_tool"],
            "evaluation_criteria": {"actions": [{"requestor": "assistant", **a} for a in actions],
                                    "communicate_info": infos or [], "reward_basis": basis}}


TASKS = [task("freeze", [VERIFY, UNLOCK_FREEZE, FREEZE], ["DB"]),
         task("lookup", [{"name": "get_user_information_by_id", "arguments": {"user_id": "u1"}}], ["ACTION"]),
         task("tell", [VERIFY], ["DB", "COMMUNICATE"], ["frozen until you call"]),
         task("cash_back", [VERIFY, GIVE, DISPUTE], ["DB"], initial={"initialization_data": {"agent_data": {
             "task_config": {"data": {"dispute_settings": {"auto_resolve_disputes": True}}}}}})]
DOCUMENTS = [{"id": "doc_cards_001", "title": "Freezing a debit card",
              "content": "To freeze a card, unlock freeze_debit_card_3892 and call it with the card id."},
             {"id": "doc_rewards_001", "title": "Cash back disputes",
              "content": "Give the customer submit_cash_back_dispute_0589."}]


@pytest.fixture
def world() -> BankWorld:
    bank = load_bank(DB, DOCUMENTS, TASKS)
    world = BankWorld()
    world.restore(bank.initial_state)
    return world


@pytest.fixture
def bank_data(tmp_path) -> Path:
    """A data root holding a small bank in τ³'s file layout (``tau2bench/tau2/domains/banking_knowledge``)."""
    folder = tmp_path / "tau2bench" / "tau2" / "domains" / "banking_knowledge"
    (folder / "documents").mkdir(parents=True)
    (folder / "db.json").write_text(json.dumps(DB))
    (folder / "tasks.json").write_text(json.dumps(TASKS))
    for doc in DOCUMENTS:
        (folder / "documents" / f"{doc['id']}.json").write_text(json.dumps(doc))
    return tmp_path


def make(data: Path, **kwargs):
    kwargs.setdefault("retrieval_config", "no_knowledge")
    return gym.make("Tau2-v0", domain="banking_knowledge", tasks="official", data_dir=str(data), **kwargs).unwrapped


def play(env, task_id: str, script: list) -> dict:
    env.reset(options={"task_id": task_id})
    for action in script:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info["metrics"]
    raise AssertionError("the episode did not end")


def script(actions: list, closing: str = "Done.") -> list:
    return [f"{USER_ACTION_PREFIX} {json.dumps({'name': a['name'], 'arguments': a['arguments']})}"
            if a.get("requestor") == "user" else {"name": a["name"], "arguments": a["arguments"]} for a in actions] + [
        closing, STOP]


# -- the world ----------------------------------------------------------------------------------
def test_the_dump_is_tau3s_database_layout(world):
    dump = world.dump_bank_db()
    assert list(dump) == list(TABLES)
    assert {name: dump[name] for name in DB} == DB
    assert all(dump[name] == {"data": {}, "notes": ""} for name in TABLES if name not in DB)


def test_the_state_hash_is_tau3s_db_check(world):
    start = world.state_hash()
    world.tools.call("unlock_discoverable_agent_tool", {"agent_tool_name": "freeze_debit_card_3892"})
    assert world.state_hash() == start  # τ³'s unlocked tools are toolkit state, not database
    world.put("referrals", "b", {"x": 1})
    world.put("referrals", "a", {"y": 2, "x": 1})
    other = BankWorld()
    other.restore(world.snapshot())
    other.sql().execute('DELETE FROM "referrals"')
    other.put("referrals", "a", {"x": 1, "y": 2})
    other.put("referrals", "b", {"x": 1})
    assert other.state_hash() == world.state_hash() != start  # τ³ sorts keys: insertion order does not count


# -- the tools -------------------------------------------------------------------------------
def test_reads_and_refusals_in_tau3s_words(world):
    tools = world.tools
    assert tools.call("get_user_information_by_id", {"user_id": "u1"}).response == (
        "Found 1 record(s) in 'users':\n\n1. Record ID: u1\n   name: Ada Lovelace\n   user_id: u1\n"
        "   address: 1 Main St\n   email: ada@example.com\n   phone_number: 555-0100\n   date_of_birth: 12/10/1985\n")
    assert tools.call("get_user_information_by_id", {"user_id": "nobody"}).response == "No records found in 'users'."
    # τ³ puts the value inside a JSON text unescaped: a quote breaks it
    assert tools.call("get_user_information_by_name", {"customer_name": 'a"b'}).response.startswith(
        "Error: Invalid JSON: ")
    assert tools.call("change_user_email", {"user_id": "x", "new_email": "e"}).response == \
        "Error: User with ID 'x' not found."
    assert tools.call("transfer_to_human_agents", {"summary": "s", "reason": "bored"}).response.startswith(
        "Error: Invalid transfer reason 'bored'. Must be one of: fraud_or_security_concern, ")
    assert tools.call("get_current_time", {}).response == "The current time is 2025-11-14 03:40:00 EST."
    missing = tools.call("log_verification", {"name": "Ada"})
    assert missing.error == ("KnowledgeTools.log_verification() missing 6 required positional arguments: 'user_id', "
                             "'address', 'email', 'phone_number', 'date_of_birth', and 'time_verified'")
    assert tools.call("nope", {}).error == "Tool 'nope' not found."


def test_a_discoverable_tool_is_unlocked_then_called_and_its_writes_are_logged(world):
    tools = world.tools
    before = tools.call(**FREEZE).response
    assert before == ("Error: Tool 'freeze_debit_card_3892' has not been unlocked. You must first use "
                      "`unlock_discoverable_agent_tool` to unlock this tool before calling it.")
    unlocked = tools.call(**UNLOCK_FREEZE).response
    assert unlocked.startswith("Tool unlocked: freeze_debit_card_3892\nDescription: Temporarily freeze a debit card.")
    assert "  - card_id: string (required) - The debit card ID to freeze" in unlocked
    assert tools.call(**FREEZE).response.startswith("Debit Card Frozen Successfully\nCard ID: dbc_1\nStatus: FROZEN")
    assert world.find("debit_cards", "dbc_1")["status"] == "FROZEN"
    assert list(world.dump()["agent_discoverable_tools"].values()) == [
        {"tool_name": "freeze_debit_card_3892", "status": "CALLED"}]
    wrong = tools.call("call_discoverable_agent_tool", {"agent_tool_name": "freeze_debit_card_3892",
                                                        "arguments": '{"card": "dbc_1"}'})
    assert wrong.response == ("Error: Invalid arguments: KnowledgeTools.freeze_debit_card_3892() got an unexpected "
                              "keyword argument 'card'")
    assert tools.call("unlock_discoverable_agent_tool", {"agent_tool_name": "x_1"}).response == \
        "Error: Unknown agent tool 'x_1'. This tool is not available."


def test_a_read_is_logged_only_when_the_ground_truth_calls_it(world):
    read = {"agent_tool_name": "get_debit_cards_by_account_id_7823", "arguments": '{"account_id": "chk_u1"}'}
    world.tools.call("unlock_discoverable_agent_tool", {"agent_tool_name": read["agent_tool_name"]})
    cards = json.loads(world.tools.call("call_discoverable_agent_tool", read).response)
    assert [card["card_number_last_4"] for card in cards] == ["4321"]
    assert world.dump()["agent_discoverable_tools"] == {}
    world.set_read_log_allowlist(read_log_allowlist(task("t", [{"name": "call_discoverable_agent_tool",
                                                               "arguments": read}], ["DB"])))
    world.tools.call("call_discoverable_agent_tool", read)
    assert [r["tool_name"] for r in world.dump()["agent_discoverable_tools"].values()] == [read["agent_tool_name"]]


def test_the_customer_calls_only_what_the_agent_gave(world):
    user = world.user_tools
    refused = user.call(DISPUTE["name"], DISPUTE["arguments"]).response
    assert refused == ("Error: Tool 'submit_cash_back_dispute_0589' has not been given to you by the agent. The agent "
                       "must first use `give_discoverable_user_tool` to give this tool to you.")
    assert world.tools.call(**GIVE).response.startswith("Tool given to user: submit_cash_back_dispute_0589\n")
    done = user.call(DISPUTE["name"], DISPUTE["arguments"]).response
    assert done.endswith("Status: SUBMITTED - Your dispute has been queued for review.")
    (dispute,) = world.dump()["cash_back_disputes"].values()
    assert (dispute["user_id"], dispute["transaction_id"], dispute["status"]) == ("u1", "txn_1", "SUBMITTED")
    assert user.call("call_discoverable_user_tool", {"discoverable_tool_name": "submit_cash_back_dispute_0589",
                                                     "arguments": '{"user_id": "u1"}'}).response == \
        "Error: Missing required parameter: transaction_id"


# -- the env ------------------------------------------------------------------------------------
def test_oracle_solves_the_tasks_and_initial_state_applies(bank_data):
    env = make(bank_data)
    for task_id in env.task_ids():
        metrics = play(env, task_id, script(env.task_data.tasks[task_id]["evaluation_criteria"]["actions"],
                                            "Your card is frozen until you call."))
        assert (task_id, metrics["reward"]) == (task_id, 1.0)
    # task_config from the task's initialization data: τ³ resolves the dispute at once
    assert list(env.world.dump()["cash_back_disputes"].values())[0]["status"] == "RESOLVED"


def test_each_reward_component_fails_under_its_perturbation(bank_data):
    env = make(bank_data)
    dropped = play(env, "freeze", script([VERIFY, UNLOCK_FREEZE]))  # the write left out
    assert (dropped["db"], dropped["reward"], dropped["failed"]) == (0.0, 0.0, ["DB"])
    changed = play(env, "freeze", script([VERIFY, UNLOCK_FREEZE, {**FREEZE, "arguments": {
        **FREEZE["arguments"], "arguments": '{"card_id": "dbc_2"}'}}]))
    assert changed["db"] == 0.0
    no_lookup = play(env, "lookup", script([{"name": "get_user_information_by_name",
                                             "arguments": {"customer_name": "Ada Lovelace"}}]))
    assert (no_lookup["action"], no_lookup["reward"]) == (0.0, 0.0)
    silent = play(env, "tell", script([VERIFY], "Done."))
    assert (silent["db"], silent["communicate"], silent["reward"]) == (1.0, 0.0, 0.0)
    no_gift = play(env, "cash_back", script([VERIFY, DISPUTE]))  # the customer's call refused
    assert no_gift["db"] == 0.0


def test_retrieval_configs_and_refusals(bank_data):
    with pytest.raises(ValueError, match="openai_embeddings.*embedding API"):
        make(bank_data, retrieval_config="openai_embeddings")
    with pytest.raises(ValueError, match="Unknown retrieval config 'bm26'"):
        make(bank_data, retrieval_config="bm26")
    with pytest.raises(ValueError, match="retrieval_config is banking_knowledge's"):
        gym.make("Tau2-v0", domain="airline", retrieval_config="bm25")
    with pytest.raises(ValueError, match="banking_knowledge domain does not support solo mode"):
        make(bank_data, solo_mode=True)
    env = make(bank_data, retrieval_config="bm25")
    _, info = env.reset(options={"task_id": "freeze"})
    names = [t["function"]["name"] for t in info["wire_tools"]]
    assert names[:3] == ["KB_search", "transfer_to_human_agents", "get_current_time"]
    assert "freeze_debit_card_3892" not in names and len(names) == 15
    search = env.step({"name": "KB_search", "arguments": {"query": "freeze a debit card"}})[0]
    assert "doc_cards_001" in search


def test_the_tau2_profile_sends_the_configs_tools(bank_data):
    from toolgym.agents.llm.prompts import prompt_formats

    env = make(bank_data, retrieval_config="grep_only")
    _, info = env.reset(options={"task_id": "freeze"})
    messages, tools = prompt_formats()["tau2"]().build(None, info)
    assert [t["function"]["name"] for t in tools][:2] == ["grep", "transfer_to_human_agents"]
    assert messages[0]["content"].startswith("<instructions>\n")
    assert messages[0]["content"].endswith(f"<policy>\n{env.retrieval.system_prompt(None, env.task)}\n</policy>")


# -- the official tasks -------------------------------------------------------------------------
def test_official_world_is_tau3s_database(official_data):
    env = gym.make("Tau2-v0", domain="banking_knowledge", tasks="official", data_dir=str(official_data),
                   retrieval_config="no_knowledge").unwrapped
    db = json.loads((official_data / "tau2bench/tau2/domains/banking_knowledge/db.json").read_text())
    env.reset(options={"task_id": "task_001"})
    dump = env.world.dump_bank_db()
    assert {name: dump[name] for name in db} == db
    assert len(env.task_ids()) == 97 and len(env.world.knowledge) == 698


@pytest.mark.parametrize("config, sample", [("no_knowledge", None), ("bm25", 12), ("grep_only", 12),
                                            ("full_kb", 12), ("golden_retrieval", 12), ("terminal_use", 12)])
def test_oracle_solves_the_official_tasks(official_data, config, sample):
    """Every task under no_knowledge; a sample of each other offline config (the tools differ only in
    retrieval, which the oracle does not use). ``benchmarks/compare_banking_knowledge.py`` runs all."""
    env = gym.make("Tau2-v0", domain="banking_knowledge", tasks="official", data_dir=str(official_data),
                   retrieval_config=config).unwrapped
    failed = []
    for task_id in env.task_ids()[::8 if sample else 1][:sample]:
        env.reset(options={"task_id": task_id})
        for _ in range(100):
            _, _, terminated, truncated, info = env.step(env.oracle_action())
            if terminated or truncated:
                break
        if info["metrics"]["reward"] != 1.0:
            failed.append(task_id)
    assert failed == []


@pytest.mark.skipif(not os.path.exists("/tmp/tau2venv/bin/python"), reason="τ³ is not installed at /tmp/tau2venv")
def test_tau3_agrees_on_outputs_databases_and_rewards(official_data):
    script_path = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_banking_knowledge.py"
    run = subprocess.run([sys.executable, str(script_path), "--data-dir", str(official_data), "--perturbations",
                          "oracle", "drop_write"], capture_output=True, text=True, timeout=1800,
                         env={**os.environ, "PYTHONPATH": str(script_path.parents[1])})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "prompt sent to the model: 97/97 tasks the same" in run.stdout


def test_an_llm_user_is_offered_the_tools_its_task_lists(bank_data):
    from toolgym.envs.tau2.env import _task_user_tools
    from toolgym.envs.tau2.protocol import tools

    offered = tools("banking_knowledge", "user")
    assert [t["function"]["name"] for t in offered] == [
        "apply_for_credit_card", "submit_referral", "call_discoverable_user_tool", "list_discoverable_user_tools",
        "request_human_agent_transfer", "submit_transaction"]
    assert [t["function"]["name"] for t in _task_user_tools(offered, ["call_discoverable_user_tool"])] == [
        "call_discoverable_user_tool"]
    assert _task_user_tools(offered, []) is None  # τ³: no tools, and the guidelines without tools
    assert _task_user_tools(offered, None) == offered


def test_builtin_banks_load_through_load_bank_and_the_oracle_solves_them():
    pytest.importorskip("toolgym.worlds.tau2.banking_knowledge.generate")
    train = gym.make("Tau2-v0", domain="banking_knowledge", split="train", retrieval_config="grep_only").unwrapped
    test = gym.make("Tau2-v0", domain="banking_knowledge", split="test", retrieval_config="grep_only").unwrapped
    templates = {split: {env.task_data.tasks[t]["description"]["template"] for t in env.task_ids()}
                 for split, env in (("train", train), ("test", test))}
    assert len(train.task_ids()) + len(test.task_ids()) >= 200 and not templates["train"] & templates["test"]
    assert len(train.world.knowledge) > 0
    for env in (train, test):
        for task_id in env.task_ids()[::12]:
            env.reset(options={"task_id": task_id})
            for _ in range(100):
                _, _, terminated, truncated, info = env.step(env.oracle_action())
                if terminated or truncated:
                    break
            assert (task_id, info["metrics"]["reward"]) == (task_id, 1.0)


def test_a_run_card_names_the_retrieval_config():
    from toolgym.eval.runcard import header_lines, run_card

    record = {"env": "Tau2-v0", "env_kwargs": {"domain": "banking_knowledge", "tasks": "official"}, "task_id": "t",
              "agent": "oracle", "scoring": "paper", "split": "base"}
    assert "domain banking_knowledge, retrieval bm25, split" in header_lines(run_card([record]))[0]
    record["env_kwargs"]["retrieval_config"] = "grep_only"
    assert "retrieval grep_only" in header_lines(run_card([record]))[0]


@pytest.mark.parametrize("arguments, answer", [
    ("[1]", "Error: Invalid arguments: tau2.domains.banking_knowledge.tools.KnowledgeTools.freeze_debit_card_3892() "
            "argument after ** must be a mapping, not list"),
    ("{}", "Error: Invalid arguments: KnowledgeTools.freeze_debit_card_3892() missing 1 required positional argument: "
           "'card_id'"),
    ('{"card_id": 5}', "Error: Debit card '5.0' not found."),  # every JSON number read as a float, as τ³
    ('{"card_id": [1]}', "Error: Invalid arguments: unhashable type: 'list'"),
    ("{", "Error: Invalid JSON in arguments: Expecting property name enclosed in double quotes: line 1 column 2 "
          "(char 1)"),
])
def test_bad_discoverable_arguments_are_answered_as_tau3_answers_them(world, arguments, answer):
    """τ³'s answers, read from its own code (tau2-bench a2c0247) for these arguments."""
    world.tools.call(**UNLOCK_FREEZE)
    result = world.tools.call("call_discoverable_agent_tool", {"agent_tool_name": "freeze_debit_card_3892",
                                                               "arguments": arguments})
    assert (result.error, result.response) == (None, answer)
    assert world.find("debit_cards", "dbc_1")["status"] == "ACTIVE"
    # τ³ logs a write tool's call once it ran, whatever it answered; not one whose arguments did not bind
    logged = list(world.dump()["agent_discoverable_tools"].values())
    assert logged == ([] if "Invalid" in answer else [{"tool_name": "freeze_debit_card_3892", "status": "CALLED"}])
