"""The batched lockstep runner for LLM agents, with resumable results files.

``batch_size`` env instances step together: at every step the live episodes' prompts go to
the backend in one call (one ``generate`` for a local model, concurrent requests for a
server), each episode takes its action, and a finished episode's slot gets the next task
until the task set is done. Each episode's record is written as soon as it finishes, so an
interrupted run continues with ``resume=True`` (finished episodes are kept, the rest rerun).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

import toolgym
from toolgym.eval.runner import MAX_STEPS

# Record fields that must match for a results file to be resumed.
_RUN_KEYS = ("env", "task_set", "agent", "seed", "env_kwargs", "model", "prompt_format", "parser", "decoding")


@dataclass
class _Slot:
    env: gym.Env
    task_id: str = ""
    state: Any = None
    observation: str = ""
    info: dict = field(default_factory=dict)
    record: dict = field(default_factory=dict)
    steps: int = 0


def load_finished(path: str | Path, header: dict) -> list[dict]:
    """Scored records of an earlier run of the same settings (a torn last line is dropped)."""
    records = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # the line being written when the run was interrupted
        differing = [k for k in _RUN_KEYS if k in header and record.get(k) != header[k]]
        if differing:
            raise ValueError(f"{path}:{n} is from a run with other settings ({', '.join(differing)}); "
                             f"use another --out or drop --resume")
        if record.get("metrics") is not None and not record.get("error"):
            records.append(record)
    return records


def evaluate_batched(env_id: str, agent, agent_spec: str, env_kwargs: dict | None = None, seed: int = 0,
                     episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
                     batch_size: int = 8, resume: bool = False,
                     max_steps: int = MAX_STEPS) -> tuple[list[dict], gym.Env, dict]:
    """Evaluate an :class:`~toolgym.agents.llm.LLMAgent` on a task set, ``batch_size`` episodes at a time.

    Returns the records in task order, an env (for the table) and throughput statistics.
    """
    env_kwargs = env_kwargs or {}
    envs = [gym.make(env_id, **env_kwargs)]
    base = envs[0].unwrapped
    task_ids = base.task_ids()
    if episodes is not None:
        task_ids = task_ids[:episodes]
    header = {"env": env_id, "task_set": base.task_set, "agent": agent_spec, "seed": seed,
              "toolgym_version": toolgym.__version__, "env_kwargs": env_kwargs, **agent.describe()}
    finished: dict[str, dict] = {}
    if resume and out and Path(out).exists():
        kept = load_finished(out, header)
        _rewrite(out, kept)
        finished = {r["task_id"]: r for r in kept if r["task_id"] in set(task_ids)}
    todo = [t for t in task_ids if t not in finished]
    envs += [gym.make(env_id, **env_kwargs) for _ in range(min(batch_size, len(todo)) - 1)]
    sink = open(out, "a" if resume else "w", encoding="utf-8") if out else None
    stats = {"episodes": 0, "steps": 0, "generate_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
             "seconds": 0.0}
    bar = tqdm(total=len(task_ids), initial=len(finished), desc=env_id, disable=not progress, file=sys.stderr,
               unit="ep")
    start = time.perf_counter()
    queue = list(todo)
    slots = [_Slot(env=e) for e in envs[:len(queue)]]
    try:
        for slot in slots:
            _start(slot, queue.pop(0), agent, header, seed)
        live = list(slots)
        while live:
            steps = agent.step_batch([s.state for s in live], [s.observation for s in live], [s.info for s in live])
            stats["generate_calls"] += 1
            still_live = []
            for slot, step in zip(live, steps):
                stats["steps"] += 1
                stats["prompt_tokens"] += step.llm.get("prompt_tokens", 0)
                stats["completion_tokens"] += step.llm.get("completion_tokens", 0)
                if _advance(slot, step, max_steps):
                    finished[slot.task_id] = slot.record
                    stats["episodes"] += 1
                    if sink:
                        sink.write(json.dumps(slot.record, default=str) + "\n")
                        sink.flush()
                    bar.update(1)
                    if not queue:
                        continue
                    _start(slot, queue.pop(0), agent, header, seed)
                still_live.append(slot)
            live = still_live
            elapsed = time.perf_counter() - start
            bar.set_postfix_str(f"{stats['completion_tokens'] / max(elapsed, 1e-9):.1f} tok/s")
    finally:
        bar.close()
        if sink:
            sink.close()
    stats["seconds"] = time.perf_counter() - start
    return [finished[t] for t in task_ids if t in finished], envs[0], stats


def _start(slot: _Slot, task_id: str, agent, header: dict, seed: int) -> None:
    slot.task_id = task_id
    slot.observation, slot.info = slot.env.reset(seed=seed, options={"task_id": task_id})
    slot.state = agent.start(slot.observation, slot.info)
    slot.steps = 0
    slot.record = {**header, "task_id": task_id, "split": slot.info.get("split"), "metrics": None,
                   "trajectory": [], "return": 0.0}


def _advance(slot: _Slot, step, max_steps: int) -> bool:
    """Take the step's action; True when the episode is over."""
    record = slot.record
    if step.llm.get("error"):
        record["trajectory"].append({"action": None, "observation": None, "reward": 0.0, "llm": step.llm})
        record["error"] = f"backend failed: {step.llm['error']}"
        return True
    slot.observation, reward, terminated, truncated, slot.info = slot.env.step(step.action)
    record["trajectory"].append({"action": step.action, "observation": slot.observation, "reward": reward,
                                 "llm": step.llm})
    record["return"] += reward
    slot.steps += 1
    if terminated or truncated:
        record["metrics"] = slot.info.get("metrics")
        if record["metrics"] is None:
            record["error"] = "episode ended without metrics"
        return True
    if slot.steps >= max_steps:
        record["error"] = f"episode did not end within {max_steps} steps"
        return True
    return False


def _rewrite(path: str | Path, records: list[dict]) -> None:
    """Keep only the finished records, atomically, before appending the rest of the run."""
    tmp = Path(f"{path}.tmp")
    tmp.write_text("".join(json.dumps(r, default=str) + "\n" for r in records), encoding="utf-8")
    os.replace(tmp, path)
