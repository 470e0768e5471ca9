"""Evaluation spread over a Ray cluster (the ``[ray]`` extra): ``toolgym eval ... --ray [ADDRESS]``.

Env workers are Ray actors, each with its own env and agent; the driver hands them one task
at a time and writes each record to the one results file as it arrives, with the rule of
every runner (:func:`toolgym.eval.runner.open_results`: resume, overwrite or refuse). A
worker plays an episode exactly as the sequential runner does
(:func:`toolgym.eval.runner.run_episode`) and the driver adds the same record header, so a
Ray run writes the records a local run writes for the same seeds.

A worker that dies (its process killed, its node lost) takes no record with it: its task goes
back to the queue and runs again on a new worker, up to ``max_retries`` times, after which
the episode is recorded with an error (and runs again on ``--resume``). Only the driver
writes, once per finished task, so no episode is written twice.

LLM agents talk to servers: ``openai:URL1,URL2#MODEL`` spreads the workers over several
endpoints (vLLM replicas), worker i using endpoint i mod n.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from pathlib import Path

import gymnasium as gym
from tqdm import tqdm

from toolgym.eval.runner import exception_error, open_results, run_episode, run_header, select_tasks, write_record
from toolgym.registry import make_env

DEFAULT_RETRIES = 3


def worker_agent_spec(agent_spec: str, worker: int) -> str:
    """The agent spec of one worker: one endpoint of ``openai:URL1,URL2#MODEL``, the spec otherwise."""
    kind, _, rest = agent_spec.partition(":")
    if kind != "openai" or "," not in rest:
        return agent_spec
    urls, sep, model = rest.partition("#")
    endpoints = [u for u in urls.split(",") if u]
    return f"openai:{endpoints[worker % len(endpoints)]}{sep}{model}"


class EpisodeWorker:
    """A Ray actor body: one env and one agent, playing the tasks it is given."""

    def __init__(self, env_id: str, env_kwargs: dict, agent_spec: str, seed: int, agent_options: dict):
        from toolgym.agents import make_agent

        self.env = make_env(env_id, env_kwargs)
        self.agent = make_agent(agent_spec, self.env, seed=seed, **agent_options)
        self.seed = seed

    def run(self, task_id: str) -> dict:
        """The episode's record without the run header (the driver adds it)."""
        try:
            return run_episode(self.env, self.agent, task_id, self.seed)
        except Exception as exc:  # an agent or backend that fails: the episode's error, rerun on --resume
            return {"task_id": task_id, "split": None, "metrics": None, "trajectory": [], "return": 0.0,
                    "error": exception_error(exc, task_id)}

    def ping(self) -> bool:
        return True


def evaluate_ray(env_id: str, agent_spec: str, env_kwargs: dict | None = None, seed: int = 0,
                 episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
                 resume: bool = False, overwrite: bool = False, address: str | None = None,
                 num_workers: int | None = None, agent_options: dict | None = None,
                 max_retries: int = DEFAULT_RETRIES) -> tuple[list[dict], gym.Env, dict]:
    """Evaluate ``agent_spec`` on the task set with Ray actors as env workers.

    Args:
        env_id, agent_spec, env_kwargs, seed, episodes, out, progress, resume, overwrite: As
            for :func:`toolgym.eval.runner.evaluate`.
        address: A Ray cluster address (``ray://host:10001``, ``auto``); None or ``"local"``
            starts a local Ray (or joins the one this process already started).
        num_workers: Env workers (actors); default: the cluster's CPUs, at most the episodes.
        agent_options: Keywords of :func:`toolgym.agents.make_agent` (decoding, backend kwargs).
        max_retries: Times a task whose worker died is run again on another worker.

    Returns:
        The records of the run's tasks in task order (kept and new), an env (for the table)
        and statistics: episodes, seconds, worker restarts.
    """
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("--ray needs Ray: pip install 'toolgym[ray]'") from exc
    from toolgym.agents import make_agent

    env_kwargs = dict(env_kwargs or {})
    agent_options = dict(agent_options or {})
    env = make_env(env_id, env_kwargs)
    task_ids = select_tasks(env, episodes)
    header = run_header(env_id, env, agent_spec, seed, env_kwargs,
                        make_agent(worker_agent_spec(agent_spec, 0), env, seed=seed, **agent_options))
    finished, sink = open_results(out, header, task_ids, resume=resume, overwrite=overwrite,
                                  columns=env.unwrapped.table_columns)
    todo = deque(t for t in task_ids if t not in finished)
    stats = {"episodes": 0, "seconds": 0.0, "workers": 0, "restarts": 0}
    if not ray.is_initialized():
        ray.init(address=None if address in (None, "local") else address, log_to_driver=False,
                 include_dashboard=False)
    if num_workers is None:
        num_workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    num_workers = max(1, min(num_workers, len(todo) or 1))
    actor_class = ray.remote(num_cpus=1, max_restarts=0)(EpisodeWorker)
    serial = iter(range(sys.maxsize))  # worker numbers, for endpoint assignment

    def spawn():
        number = next(serial)
        return actor_class.remote(env_id, env_kwargs, worker_agent_spec(agent_spec, number), seed, agent_options)

    bar = tqdm(total=len(task_ids), initial=len(finished), desc=env_id, disable=not progress, file=sys.stderr,
               unit="ep")
    start = time.perf_counter()
    attempts: dict[str, int] = {}
    idle = [spawn() for _ in range(num_workers)] if todo else []
    stats["workers"] = len(idle)
    running: dict = {}  # future -> (worker, task id)
    try:
        while todo or running:
            while todo and idle:
                worker, task_id = idle.pop(), todo.popleft()
                running[worker.run.remote(task_id)] = (worker, task_id)
            (ready,), _ = ray.wait(list(running), num_returns=1)
            worker, task_id = running.pop(ready)
            try:
                episode = ray.get(ready)
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                attempts[task_id] = attempts.get(task_id, 0) + 1
                stats["restarts"] += 1
                idle.append(spawn())  # the dead worker's place
                if attempts[task_id] <= max_retries:
                    todo.appendleft(task_id)
                    continue
                episode = {"task_id": task_id, "split": None, "metrics": None, "trajectory": [], "return": 0.0,
                           "error": f"worker failed {attempts[task_id]} times: {type(exc).__name__}"}
            else:
                idle.append(worker)
            record = {**header, **episode}
            finished[task_id] = record
            write_record(sink, record)
            stats["episodes"] += 1
            bar.update(1)
    finally:
        bar.close()
        if sink:
            sink.close()
        for worker in idle + [w for w, _ in running.values()]:
            ray.kill(worker)
    stats["seconds"] = time.perf_counter() - start
    return [finished[t] for t in task_ids if t in finished], env, stats
