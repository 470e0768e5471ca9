"""Batch evaluation: run an agent over a task set and write one JSON line per episode."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any
from collections.abc import Iterable

import gymnasium as gym
from tqdm import tqdm

import toolgym
from toolgym.agents import MissingReplay, ReplayAgent, make_agent

MAX_STEPS = 500


def run_episode(env: gym.Env, agent, task_id: str, seed: int, max_steps: int = MAX_STEPS) -> dict:
    """Play one task; the record has the metrics, the trajectory and the return."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    record: dict[str, Any] = {"task_id": task_id, "split": info.get("split"), "metrics": None,
                              "trajectory": [], "return": 0.0}
    try:
        agent.reset(obs, info)
    except MissingReplay as exc:
        record["error"] = str(exc.args[0])
        return record
    for _ in range(max_steps):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        entry = {"action": action, "observation": obs, "reward": reward}
        llm = getattr(agent, "last_llm", None)  # token ids and logprobs of an LLM agent's step
        if llm is not None:
            entry["llm"] = llm
        record["trajectory"].append(entry)
        record["return"] += reward
        if terminated or truncated:
            break
    record["metrics"] = info.get("metrics")
    if record["metrics"] is None:
        record["error"] = f"episode did not end within {max_steps} steps"
    return record


def evaluate(env_id: str, agent_spec: str, env_kwargs: dict | None = None, seed: int = 0,
             episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
             agent_options: dict | None = None) -> tuple[list[dict], gym.Env]:
    """Evaluate ``agent_spec`` on every task of the env's task set (or the first ``episodes``)."""
    env = gym.make(env_id, **(env_kwargs or {}))
    base = env.unwrapped
    agent = make_agent(agent_spec, env, seed=seed, **(agent_options or {}))
    task_ids = base.task_ids()
    if episodes is not None:
        task_ids = task_ids[:episodes]
    header = {"env": env_id, "task_set": base.task_set, "agent": agent_spec, "seed": seed,
              "toolgym_version": toolgym.__version__, "env_kwargs": env_kwargs or {}}
    header.update(getattr(agent, "describe", lambda: {})())
    records = []
    sink = open(out, "w", encoding="utf-8") if out else None
    try:
        bar = tqdm(task_ids, desc=env_id, disable=not progress, file=sys.stderr, unit="ep")
        for task_id in bar:
            record = {**header, **run_episode(env, agent, task_id, seed)}
            records.append(record)
            if sink:
                sink.write(json.dumps(record, default=str) + "\n")
                sink.flush()
    finally:
        if sink:
            sink.close()
    if isinstance(agent, ReplayAgent):
        missing = [r["task_id"] for r in records if "error" in r]
        if missing:
            print(f"warning: {len(missing)} task(s) had no replay line: {', '.join(missing[:10])}",
                  file=sys.stderr)
    return records, env


def format_table(env: gym.Env, records: Iterable[dict]) -> str:
    """The paper's table: one row per split plus an overall row, columns from the env."""
    base = env.unwrapped
    scored = [r for r in records if r.get("metrics")]
    splits: dict[str, list[dict]] = {}
    for r in scored:
        splits.setdefault(r.get("split") or "all", []).append(r["metrics"])
    rows = list(splits.items())
    if len(rows) > 1:
        rows.append(("all", [m for _, ms in rows for m in ms]))
    columns = list(base.table_columns)
    head = ["subset", "n"] + [c.title for c in columns]
    body = []
    for name, ms in rows:
        cells = [name, str(len(ms))]
        for c in columns:
            v = c.value(ms)
            cells.append(f"{100 * v:.1f}" if c.percent else f"{v:.3f}")
        body.append(cells)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    lines = [f"{base.env_id} ({base.task_set} tasks, scoring={base.scoring})",
             "  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    errors = sum(1 for r in records if r.get("error"))
    if errors:
        lines.append(f"({errors} episode(s) ended with an error and are not in the table)")
    return "\n".join(lines)
