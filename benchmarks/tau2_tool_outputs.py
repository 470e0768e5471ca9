"""Write the digests of τ²-bench's own tool outputs for the ground truth of the official tasks.

For each task of the base split of airline, retail and telecom, τ²'s ``Environment`` is set to
the task's starting state and each ground-truth action is sent to it as a ``ToolCall``; the
SHA-256 of each ``ToolMessage.content`` (the text the agent reads) is written, per task, to
``tests/data/tau2/ground_truth_outputs.json`` (from tau2-bench a2c0247 and the shared data).
Run it as benchmarks/tau2_openai_schemas.py says, with ``TAU2_DATA_DIR`` the folder holding
``tau2/domains/``::

    TAU2_DATA_DIR=../shared/data/tau2bench PYTHONPATH=/tmp/tau2src/src \\
        /tmp/tau2venv/bin/python benchmarks/tau2_tool_outputs.py OUT.json
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from tau2.data_model.message import ToolCall
from tau2.data_model.tasks import Task
from tau2.registry import registry

DOMAINS = ("airline", "retail", "telecom")


def main(path: str) -> None:
    root = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains"
    digests = {}
    for domain in DOMAINS:
        tasks = {t["id"]: t for t in json.loads((root / domain / "tasks.json").read_text())}
        for task_id in json.loads((root / domain / "split_tasks.json").read_text())["base"]:
            env = registry.get_env_constructor(domain)()
            task = Task.model_validate(tasks[task_id])
            state = task.initial_state
            if state is not None:
                env.set_state(state.initialization_data, state.initialization_actions, state.message_history or [])
            digests[f"{domain}/{task_id}"] = [
                hashlib.sha256(env.get_response(ToolCall(name=a.name, arguments=a.arguments,
                                                         requestor=a.requestor)).content.encode()).hexdigest()[:16]
                for a in task.evaluation_criteria.actions or ()]
    with open(path, "w", encoding="utf-8") as out:
        json.dump(digests, out, indent=0)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
