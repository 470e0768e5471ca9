"""The batched lockstep runner for LLM agents, with resumable results files.

``batch_size`` env instances step together: at every step the live episodes' prompts go to
the backend in one call (one ``generate`` for a local model, concurrent requests for a
server), each episode takes its action, and a finished episode's slot gets the next task
until the task set is done. Each episode's record is written as soon as it finishes, so an
interrupted run continues with ``resume=True`` (finished episodes are kept, the rest rerun).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from toolgym.eval.runner import (MAX_STEPS, episode_usage, exception_error, open_results, record_conversation,
                                 record_world_diff, reset_prompt, run_header, select_tasks, world_image, write_record)
from toolgym.eval.watch import request_backends, request_counters, requests_text, watching
from toolgym.registry import make_env

# Episodes that must fail on the backend, with no request answered yet, before a run stops.
FAILURES_BEFORE_STOP = 3


class BackendUnavailable(RuntimeError):
    """Every request of the first episodes failed: the server is down or the model is missing."""


class EpisodesFailed(RuntimeError):
    """The first episodes all failed with an exception before any step succeeded; the message
    names the env, task, step and exception of the last one."""


@dataclass
class _Slot:
    env: gym.Env
    task_id: str = ""
    state: Any = None
    observation: str = ""
    info: dict = field(default_factory=dict)
    record: dict = field(default_factory=dict)
    steps: int = 0
    start: bytes | None = None  # the world's rows after reset, for the record's world_diff


def evaluate_batched(env_id: str, agent, agent_spec: str, env_kwargs: dict | None = None, seed: int = 0,
                     episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
                     batch_size: int = 8, resume: bool = False, overwrite: bool = False,
                     max_steps: int = MAX_STEPS, trials: int | None = None) -> tuple[list[dict], gym.Env, dict]:
    """Evaluate an :class:`~toolgym.agents.llm.LLMAgent` on a task set, ``batch_size`` episodes at a time.

    ``out``, ``resume`` and ``overwrite`` follow :func:`toolgym.eval.runner.open_results`.
    Returns the records of the run's tasks in task order (kept and new), an env (for the
    table) and throughput statistics.

    With ``trials`` K every task is played K times in the same batches (trial t reset with
    ``seed`` + t; each record has ``trial``, ``trials`` and ``episode_seed``), the records in
    task order and then trial order; a resumed run plays only the (task, trial) pairs ``out``
    lacks.

    An exception while stepping (the model failing inside transformers, a prompt that cannot
    be built) ends only its episode, recorded with an ``error`` that names the env, the task,
    the step and the exception; the run goes on.

    Raises:
        BackendUnavailable: when the first episodes (``FAILURES_BEFORE_STOP``, or all of them
            if fewer) all ended with a backend error before any request succeeded. Their
            records are not written, so the same command can be run again once the backend
            is fixed.
        EpisodesFailed: the same, when they ended with an exception.
    """
    env_kwargs = env_kwargs or {}
    envs = [make_env(env_id, env_kwargs)]
    task_ids = select_tasks(envs[0], episodes)
    header = run_header(env_id, envs[0], agent_spec, seed, env_kwargs, agent)
    if trials:
        header["trials"] = trials
    finished, sink = open_results(out, header, task_ids, resume=resume, overwrite=overwrite,
                                  columns=envs[0].unwrapped.table_columns, trials=trials)
    # (task, trial) jobs, each task's trials together: they share their prompts' prefixes
    todo = [(t, trial) for t in task_ids for trial in range(trials or 1)
            if ((t, trial) if trials else t) not in finished]
    stop_after = min(FAILURES_BEFORE_STOP, len(todo))
    envs += [make_env(env_id, env_kwargs) for _ in range(min(batch_size, len(todo)) - 1)]
    stats = {"episodes": 0, "steps": 0, "generate_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
             "seconds": 0.0}
    bar = tqdm(total=len(todo) + len(finished), initial=len(finished), desc=env_id, disable=not progress,
               file=sys.stderr, unit="ep")
    start = time.perf_counter()
    queue = list(todo)
    slots = [_Slot(env=e) for e in envs[:len(queue)]]
    answered = False  # whether any request has succeeded
    held: list[dict] = []  # backend-failed episodes, written once a request succeeds

    def finish(record: dict) -> None:
        if (usage := episode_usage(record["trajectory"])) is not None:
            record["usage"] = usage
        finished[(record["task_id"], record["trial"]) if trials else record["task_id"]] = record
        stats["episodes"] += 1
        write_record(sink, record)
        bar.update(1)

    generated = {"tokens": 0, "shown": 0.0}

    def on_tokens(rows: int) -> None:
        """Tokens made inside a generation call, shown twice a second: a call on a CPU can take
        minutes, and a bar that only moves per episode looks stuck."""
        generated["tokens"] += rows
        now = time.perf_counter()
        if now - generated["shown"] >= 0.5:
            generated["shown"] = now
            rate = (stats["completion_tokens"] + generated["tokens"]) / max(now - start, 1e-9)
            bar.set_postfix_str(f"{stats['steps']} steps, generating {rows} row(s), {rate:.1f} tok/s")

    backend = getattr(agent, "backend", None)
    if progress and hasattr(backend, "on_tokens"):
        backend.on_tokens = on_tokens
    servers = request_backends(agent, envs)
    watcher = watching(servers, bar, lambda: f"{stats['steps']} steps, ")
    try:
        live = [slot for slot in slots if _start_next(slot, queue, agent, header, seed, trials, env_id, finish)]
        while live:
            steps = _step_batch(agent, live, env_id)
            stats["generate_calls"] += 1
            still_live = []
            for slot, step in zip(live, steps):
                stats["steps"] += 1
                stats["prompt_tokens"] += step.llm.get("prompt_tokens", 0)
                stats["completion_tokens"] += step.llm.get("completion_tokens", 0)
                failed = bool(step.llm.get("error"))
                if not failed and not answered:
                    answered = True
                    for record in held:
                        finish(record)
                    held.clear()
                if _advance(slot, step, max_steps, env_id):
                    if failed and not answered:
                        held.append(slot.record)
                        if len(held) >= stop_after:
                            if step.llm.get("exception"):
                                raise EpisodesFailed(f"the first {len(held)} episode(s) failed; the last: "
                                                     f"{step.llm['error']}")
                            raise BackendUnavailable(step.llm["error"])
                    else:
                        finish(slot.record)
                    if not _start_next(slot, queue, agent, header, seed, trials, env_id, finish):
                        continue
                still_live.append(slot)
            live = still_live
            generated["tokens"] = 0  # now counted in stats["completion_tokens"]
            elapsed = time.perf_counter() - start
            # steps, not only episodes: a lockstep batch of long episodes finishes all at once
            requests = f", {requests_text(request_counters(servers))}" if servers else ""
            bar.set_postfix_str(f"{stats['steps']} steps, {len(live)} live, "
                                f"{stats['completion_tokens'] / max(elapsed, 1e-9):.1f} tok/s{requests}")
    finally:
        watcher.stop()  # before the bar closes: a last postfix would print it again
        if hasattr(backend, "on_tokens"):
            backend.on_tokens = None
        bar.close()
        if sink:
            sink.close()
    stats["seconds"] = time.perf_counter() - start
    keys = [(t, trial) for t in task_ids for trial in range(trials)] if trials else task_ids
    return [finished[k] for k in keys if k in finished], envs[0], stats


def _step_batch(agent, live: list[_Slot], env_id: str) -> list:
    """One step of every live episode. An exception (a model that fails in transformers, an
    agent that cannot build its prompt) does not end the run: the batch is retried one episode
    at a time, and an episode that still fails gets a step whose error names the env, the task,
    the step and the exception, so that it is recorded as an errored episode."""
    from toolgym.agents.llm.agent import Step

    def one(slots: list[_Slot]) -> list:
        return agent.step_batch([s.state for s in slots], [s.observation for s in slots], [s.info for s in slots])

    try:
        return one(live)
    except Exception:  # noqa: BLE001 - any failure of one episode's step is that episode's error
        if len(live) == 1:
            return [_failed_step(live[0], env_id, Step)]
    steps = []
    for slot in live:
        try:
            steps += one([slot])
        except Exception:  # noqa: BLE001
            steps.append(_failed_step(slot, env_id, Step))
    return steps


def _failed_step(slot: _Slot, env_id: str, step_class):
    error = exception_error(sys.exc_info()[1], f"{env_id}, task {slot.task_id}, step {slot.steps + 1}")
    return step_class(action="", llm={"error": error, "exception": True})


def _start(slot: _Slot, task_id: str, trial: int, agent, header: dict, seed: int,
           trials: int | None = None) -> None:
    slot.task_id = task_id
    slot.observation, slot.info = slot.env.reset(seed=seed + trial, options={"task_id": task_id, "trial": trial})
    slot.start = world_image(slot.env)
    slot.state = agent.start(slot.observation, slot.info, **({"trial": trial} if trial else {}))
    slot.steps = 0
    slot.record = {**header, "task_id": task_id, "split": slot.info.get("split"),
                   "prompt": reset_prompt(slot.observation, slot.info), "metrics": None, "trajectory": [], "return": 0.0}
    if trials:
        slot.record.update(episode_seed=seed + trial, trial=trial)


def _start_next(slot: _Slot, queue: list, agent, header: dict, seed: int, trials: int | None, env_id: str,
                finish) -> bool:
    """Start the next job of ``queue`` in ``slot``; whether one started. A job whose reset raises
    is finished at once with that error, and the one after it is tried."""
    while queue:
        task_id, trial = queue.pop(0)
        try:
            _start(slot, task_id, trial, agent, header, seed, trials)
            return True
        except Exception as exc:  # noqa: BLE001 - an env that fails on one task fails that episode, not the run
            record = {**header, "task_id": task_id, "split": None, "metrics": None, "trajectory": [], "return": 0.0,
                      "error": exception_error(exc, f"{env_id}, task {task_id}, reset")}
            if trials:
                record.update(episode_seed=seed + trial, trial=trial, trials=trials)
            finish(record)
    return False


def _advance(slot: _Slot, step, max_steps: int, env_id: str) -> bool:
    """Take the step's action; True when the episode is over (its record then has the world diff).
    An exception of the env ends only this episode, recorded with the exception as its ``error``."""
    try:
        over = _step(slot, step, max_steps)
        if over:
            record_world_diff(slot.env, slot.record, slot.start)
    except Exception as exc:  # noqa: BLE001
        slot.record.update(metrics=None, error=exception_error(exc, f"{env_id}, task {slot.task_id}, step "
                                                                     f"{slot.steps + 1}"))
        return True
    return over


def _step(slot: _Slot, step, max_steps: int) -> bool:
    record = slot.record
    if step.llm.get("error"):
        record["trajectory"].append({"action": None, "observation": None, "reward": 0.0, "llm": step.llm})
        record["error"] = step.llm["error"] if step.llm.get("exception") else f"backend failed: {step.llm['error']}"
        return True
    slot.observation, reward, terminated, truncated, slot.info = slot.env.step(step.action)
    record["trajectory"].append({"action": step.action, "observation": slot.observation, "reward": reward,
                                 "llm": step.llm})
    record["return"] += reward
    slot.steps += 1
    if terminated or truncated:
        record["metrics"] = slot.info.get("metrics")
        record_conversation(record, slot.info)
        if record["metrics"] is None:
            record["error"] = "episode ended without metrics"
        return True
    if slot.steps >= max_steps:
        record["error"] = f"episode did not end within {max_steps} steps"
        return True
    return False



def evaluate_search(env_id: str, agent_spec: str, strategy, agent=None, env_kwargs: dict | None = None,
                    seed: int = 0, episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
                    batch_size: int = 8, resume: bool = False, overwrite: bool = False,
                    agent_options: dict | None = None) -> tuple[list[dict], gym.Env, dict]:
    """Evaluate with a search strategy (:mod:`toolgym.agents.search`): ``batch_size`` tasks' trees
    advance in lockstep, one policy call per round, into the same results format and resume rule.

    Each record's trajectory is the reported chain (the answer, else the last chain's end) and
    ``search`` holds the whole tree. ``agent`` is a policy (an ``LLMAgent``); without one,
    ``agent_spec`` is built with :func:`toolgym.agents.make_agent` on the run's env and the tasks
    run one at a time (such agents are bound to one env).

    Raises:
        BackendUnavailable: as :func:`evaluate_batched`.
    """
    from toolgym.agents import make_agent
    from toolgym.agents.search import SearchAgent, run_searches
    from toolgym.agents.search.runner import search_record

    env_kwargs = env_kwargs or {}
    envs = [make_env(env_id, env_kwargs)]
    task_ids = select_tasks(envs[0], episodes)
    if agent is None:
        agent = make_agent(agent_spec, envs[0], seed=seed, **(agent_options or {}))
        batch_size = 1
    searcher = SearchAgent(agent, strategy)
    header = run_header(env_id, envs[0], agent_spec, seed, env_kwargs, searcher)
    finished, sink = open_results(out, header, task_ids, resume=resume, overwrite=overwrite,
                                  columns=envs[0].unwrapped.table_columns)
    todo = [t for t in task_ids if t not in finished]
    stop_after = min(FAILURES_BEFORE_STOP, len(todo))
    envs += [make_env(env_id, env_kwargs) for _ in range(min(batch_size, len(todo)) - 1)]
    stats = {"episodes": 0, "generate_calls": 0, "llm_calls": 0, "seconds": 0.0}
    bar = tqdm(total=len(task_ids), initial=len(finished), desc=env_id, disable=not progress, file=sys.stderr,
               unit="ep")
    held: list[dict] = []  # backend-failed first episodes, written once a request succeeds
    answered = [False]
    start = time.perf_counter()

    def on_result(task_id: str, result) -> None:
        record = {**header, "task_id": task_id, "split": result.root.info.get("split"), **search_record(result)}
        stats["llm_calls"] += result.llm_calls
        if result.error and result.error.startswith("backend failed: ") and result.llm_calls == 1 and not answered[0]:
            held.append(record)
            if len(held) >= stop_after:
                raise BackendUnavailable(result.error.removeprefix("backend failed: "))
            return
        answered[0] = True
        for kept in [*held, record]:
            finished[kept["task_id"]] = kept
            stats["episodes"] += 1
            write_record(sink, kept)
            bar.update(1)
        held.clear()

    run_stats: dict = {}
    try:
        run_searches(envs, searcher.policy, strategy, todo, seed=seed, on_result=on_result, stats=run_stats)
    finally:
        bar.close()
        if sink:
            sink.close()
    stats["generate_calls"] = run_stats.get("policy_calls", 0)
    stats["seconds"] = time.perf_counter() - start
    return [finished[t] for t in task_ids if t in finished], envs[0], stats
