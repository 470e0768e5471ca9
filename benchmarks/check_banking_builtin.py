"""The built-in banking_knowledge tasks graded by τ³-bench's own code: ground truths at 1.0, and
each reward component's perturbation at 0.

``toolgym/worlds/tau2/banking_knowledge/generate.py`` (loaded by path: it imports only the
standard library) generates a bank for ``--seed``; its ``db.json``, ``documents/*.json`` and
``tasks/task_*.json`` are written as τ³'s data folder (``TAU2_DATA_DIR``), so τ³ reads them with
its own loaders: ``TransactionalDB`` (extra fields refused), ``KnowledgeBase.load`` and the
domain's ``get_tasks`` (``Task.model_validate``). Each task of both splits is then played in τ³'s
own ``banking_knowledge`` environment (``retrieval_variant="no_knowledge"``: the tasks do not
search, and the other variants need an API or an index) from the ground truth: every action as an
assistant or user tool call, answered by the environment (a ground-truth call answered with an
error is a failure), then one message with the facts to communicate and ``###STOP###``. τ³'s
``evaluate_simulation`` (``EvaluationType.ALL``, the task's ``read_log_allowlist`` as τ³'s runner
derives it) grades it, and three perturbations:

- ``db``: the last state-changing call left out, or one made where the ground truth makes none
  (tasks whose basis has ``DB``);
- ``action``: each compared argument of the ``ACTION`` basis changed (``reason`` to ``other``);
- ``communicate``: the final message without the facts (tasks whose basis has ``COMMUNICATE``).

Each must give reward 0, and the oracle 1.0. The script prints the counts and exits 1 on any
disagreement.

Measured (τ³ a2c0247, seed 0): 336 tasks (train 264, test 72), oracle 336/336 at 1.0; the
perturbations db 312/312, action 24/24, communicate 96/96 at 0 (about 4 CPU minutes).

Run (τ³'s own venv; nothing of toolgym besides the generator is imported):
    /tmp/tau2venv/bin/python benchmarks/check_banking_builtin.py [--seed 0] [--data-dir ../shared/data] [--show 5]
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

GENERATOR = Path(__file__).resolve().parent.parent / "toolgym/worlds/tau2/banking_knowledge/generate.py"
DOMAIN = "banking_knowledge"
#: The tools whose calls change the database, as τ³'s toolkit types them (a read is never dropped).
READS = {"get_user_information_by_name", "get_user_information_by_id", "get_user_information_by_email",
         "get_current_time", "get_credit_card_accounts_by_user", "get_credit_card_transactions_by_user",
         "get_referrals_by_user", "unlock_discoverable_agent_tool"}


def load_generator():
    spec = importlib.util.spec_from_file_location("toolgym_bank_generate", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_data_dir(bank: dict, tasks: list[dict], prompts: Path) -> Path:
    """A folder laid out as τ³'s ``data/`` holding the generated bank and τ³'s prompts (linked)."""
    root = Path(tempfile.mkdtemp(prefix="tau3-bankgen-"))
    domain = root / "tau2" / "domains" / DOMAIN
    (domain / "documents").mkdir(parents=True)
    (domain / "prompts").symlink_to(prompts.resolve(), target_is_directory=True)
    (domain / "tasks").mkdir()
    (domain / "db.json").write_text(json.dumps(bank["db"]))
    for document in bank["documents"]:
        (domain / "documents" / f"{document['id']}.json").write_text(json.dumps(document))
    for task in tasks:
        (domain / "tasks" / f"task_{task['id']}.json").write_text(json.dumps(task))
    (domain / "tasks.json").write_text(json.dumps(tasks))
    return root


def messages_of(t, env, task, change_db=False, changed_args=None, silent=False):
    """The ground truth as τ³ messages, each call answered by ``env``; returns (messages, errors).

    ``change_db``: the last state-changing call left out, or, in a task whose ground truth changes
    nothing (a refused request), a change made anyway (the user's ``request_human_agent_transfer``,
    which logs a request)."""
    criteria = task.evaluation_criteria
    actions = [(a.name, a.requestor, dict(a.arguments), a.compare_args) for a in criteria.actions or []]
    if change_db:
        writes = [i for i, (name, *_) in enumerate(actions) if name not in READS]
        if writes:
            del actions[writes[-1]]
        else:
            actions.append(("request_human_agent_transfer", "user", {}, None))
    messages = [t.UserMessage(role="user", content="Hello, I need some help with my account.")]
    errors = []
    for index, (name, requestor, arguments, compare_args) in enumerate(actions):
        if changed_args and compare_args:
            arguments.update({k: changed_args for k in compare_args})
        call = t.ToolCall(id=f"call_{index}", name=name, arguments=arguments, requestor=requestor)
        cls = t.AssistantMessage if requestor == "assistant" else t.UserMessage
        messages.append(cls(role=requestor, content=None, tool_calls=[call]))
        answer = env.get_response(call)
        if answer.error or str(answer.content).startswith("Error"):
            errors.append(f"{name}: {answer.content}")
        messages.append(answer)
    facts = [] if silent else list(criteria.communicate_info or [])
    messages.append(t.AssistantMessage(role="assistant", content="Done. " + "; ".join(facts)))
    messages.append(t.UserMessage(role="user", content="###STOP###"))
    return messages, errors


def grade(t, task, kind: str) -> tuple[float, list[str]]:
    env_kwargs = {"retrieval_variant": "no_knowledge", "read_log_allowlist": t.allowlist(task)}
    env = t.registry.get_env_constructor(DOMAIN)(**env_kwargs)
    initial = task.initial_state
    if initial is not None:  # the task's initial data, as τ³'s orchestrator sets it before the episode
        env.set_state(initialization_data=initial.initialization_data,
                      initialization_actions=initial.initialization_actions, message_history=[])
    messages, errors = messages_of(t, env, task, change_db=kind == "db",
                                   changed_args="other" if kind == "action" else None,
                                   silent=kind == "communicate")
    simulation = t.SimulationRun(id=kind, task_id=task.id, start_time="", end_time="", duration=0.0,
                                 termination_reason=t.TerminationReason.USER_STOP, messages=messages)
    result = t.evaluate_simulation(simulation, task, t.EvaluationType.ALL, solo_mode=False, domain=DOMAIN,
                                   env_kwargs=env_kwargs)
    return float(result.reward), errors


def load_tau3():
    """τ³'s modules, imported after ``TAU2_DATA_DIR`` is set (τ³ reads it at import)."""
    from types import SimpleNamespace

    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.domains.banking_knowledge.data_model import KnowledgeBase, TransactionalDB
    from tau2.domains.banking_knowledge.environment import get_tasks
    from tau2.domains.banking_knowledge.utils import KNOWLEDGE_DB_PATH, KNOWLEDGE_DOCUMENTS_DIR
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry
    from tau2.runner.build import _derive_read_log_allowlist

    return SimpleNamespace(AssistantMessage=AssistantMessage, ToolCall=ToolCall, UserMessage=UserMessage,
                           SimulationRun=SimulationRun, TerminationReason=TerminationReason,
                           KnowledgeBase=KnowledgeBase, TransactionalDB=TransactionalDB, get_tasks=get_tasks,
                           db_path=KNOWLEDGE_DB_PATH, documents_dir=KNOWLEDGE_DOCUMENTS_DIR,
                           EvaluationType=EvaluationType, evaluate_simulation=evaluate_simulation,
                           registry=registry, allowlist=_derive_read_log_allowlist)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("TOOLGYM_DATA", "../shared/data")),
                        help="the official data (for τ³'s banking_knowledge prompts, which its environment reads)")
    parser.add_argument("--show", type=int, default=5, help="disagreements to print")
    parser.add_argument("--per-template", type=int, default=None,
                        help="the first N tasks of each template (default: all)")
    args = parser.parse_args(argv)

    generator = load_generator()
    splits = {split: generator.generate_bank(args.seed, split) for split in ("train", "test")}
    bank = splits["train"]
    taken = Counter()
    all_tasks, split_of = [], {}
    for split, generated in splits.items():
        for task in generated["tasks"]:
            template = task["description"]["template"]
            if args.per_template is None or taken[template] < args.per_template:
                taken[template] += 1
                all_tasks.append(task)
                split_of[task["id"]] = split
    prompts = args.data_dir / "tau2bench" / "tau2" / "domains" / DOMAIN / "prompts"
    if not prompts.is_dir():
        parser.error(f"τ³'s prompts not found at {prompts}: give --data-dir")
    os.environ["TAU2_DATA_DIR"] = str(write_data_dir(bank, all_tasks, prompts))
    import logging

    logging.disable(logging.WARNING)
    from loguru import logger

    logger.remove()
    t = load_tau3()

    problems = []
    db = t.TransactionalDB.load(str(t.db_path))  # extra tables or fields outside the tables are refused
    kb = t.KnowledgeBase.load(str(t.documents_dir))
    if len(kb.documents) != len(bank["documents"]):
        problems.append(f"knowledge base: {len(kb.documents)} documents read of {len(bank['documents'])}")
    tasks = t.get_tasks()
    if len(tasks) != len(all_tasks):
        problems.append(f"tasks: τ³ read {len(tasks)} of {len(all_tasks)}")
    missing_docs = {d for task in tasks for d in task.required_documents or () if d not in kb.documents}
    if missing_docs:
        problems.append(f"required documents missing from the knowledge base: {sorted(missing_docs)[:5]}")
    print(f"seed {args.seed}: {len(db.users.data)} users, {len(kb.documents)} documents, {len(tasks)} tasks "
          f"({Counter(split_of.values())})")

    counts = Counter()
    for task in tasks:
        basis = {str(getattr(b, "value", b)) for b in task.evaluation_criteria.reward_basis}
        kinds = ["oracle"] + [kind for kind, component in (("db", "DB"), ("action", "ACTION"),
                                                            ("communicate", "COMMUNICATE")) if component in basis]
        for kind in kinds:
            reward, errors = grade(t, task, kind)
            wanted = 1.0 if kind == "oracle" else 0.0
            counts[kind, "total"] += 1
            if reward == wanted and not (kind == "oracle" and errors):
                counts[kind, "agree"] += 1
            else:
                problems.append(f"{task.id} {kind}: reward {reward}, wanted {wanted}; errors {errors[:2]}")
    for kind in ("oracle", "db", "action", "communicate"):
        print(f"{kind:12s} {counts[kind, 'agree']}/{counts[kind, 'total']} "
              f"{'at 1.0' if kind == 'oracle' else 'at 0'}")
    for problem in problems[:args.show]:
        print("PROBLEM", problem)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
