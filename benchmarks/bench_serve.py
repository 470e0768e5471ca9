"""Concurrent sessions against `toolgym serve --protocol openenv` servers on loopback.

    python benchmarks/bench_serve.py [--envs ToolTalk-v0 WebShop-v0 HomeSearch-v0]
                                     [--sessions 1 10 100 1000] [--seconds 15] [--episodes 3]
                                     [--processes 1]

For each env the server runs in its own process (``--processes P``: P of them, the sessions
spread over them), with ``--oracle``, so the scripted client plays the oracle's actions as
the server sends them. For each N the client opens N sessions with OpenEnv's async
``EnvClient`` (connections opened 50 at a time), resets each once (then they idle: the
servers' resident memory over their idle baseline, divided by N, is the memory per idle
session), then every session plays episodes until it has played ``--episodes`` of them or
``--seconds`` have passed. Reported: steps per second over that phase (steps summed over
sessions, until the last session's last answer; resets are not counted as steps), the
servers' CPU time per call (step or reset) in that phase, p50/p99 latency of one step (send
to answer, on the client), memory per idle session and errors (error answers and failed
connections). The client shares the machine's cores with the servers, so the figures are a
floor.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from toolgym.remote import ToolgymClient, describe

REPO = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(env_id: str, max_sessions: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "toolgym.eval.cli", "serve", env_id, "--protocol", "openenv",
                               "--port", str(port), "--oracle", "--max-sessions", str(max_sessions)],
                              cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/health", timeout=1).read()
            return server, url
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the {env_id} server exited with {server.returncode}")
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"the {env_id} server did not answer /health in 120 s")


async def run_level(servers: list[tuple[str, int]], n: int, seconds: float, episodes: int) -> dict:
    """One level: ``n`` sessions spread round-robin over ``servers`` (url, pid)."""
    errors = 0
    why: list[str] = []  # the first errors' messages
    clients: list[ToolgymClient] = []
    gate = asyncio.Semaphore(50)
    pids = [pid for _, pid in servers]
    baseline = sum(map(rss_mb, pids))
    tasks = len(describe(servers[0][0])["task_ids"])

    async def open_session(index: int):
        nonlocal errors
        client = ToolgymClient(base_url=servers[index % len(servers)][0], message_timeout_s=120)
        async with gate:
            try:
                await client.connect()
                result = await client.reset(seed=index, options={"task_index": index % tasks})
            except Exception as exc:
                errors += 1
                why.append(f"connect/reset: {exc}")
                return None
        clients.append(client)
        return result

    firsts = [r for r in await asyncio.gather(*(open_session(i) for i in range(n))) if r is not None]
    await asyncio.sleep(0.5)
    per_session_mb = (sum(map(rss_mb, pids)) - baseline) / max(len(clients), 1)

    latencies: list[float] = []
    steps = resets = 0
    deadline = time.monotonic() + seconds

    async def play(client: ToolgymClient, result, index: int):
        nonlocal errors, steps, resets
        for episode in range(episodes):
            try:
                if episode:
                    result = await client.reset(seed=index, options={"task_index": (index + episode) % tasks})
                    resets += 1
                while not result.done and time.monotonic() < deadline:
                    start = time.perf_counter()
                    result = await client.step(result.observation["oracle_action"])
                    latencies.append(time.perf_counter() - start)
                    steps += 1
            except Exception as exc:
                errors += 1
                why.append(f"play: {exc}")
                return
            if time.monotonic() >= deadline:
                return

    start, cpu = time.monotonic(), sum(map(cpu_seconds, pids))
    await asyncio.gather(*(play(c, r, i) for i, (c, r) in enumerate(zip(clients, firsts))))
    elapsed, cpu = time.monotonic() - start, sum(map(cpu_seconds, pids)) - cpu
    await asyncio.gather(*(c.disconnect() for c in clients))
    latencies.sort()
    return {"sessions": n, "steps_per_s": steps / elapsed, "p50_ms": 1000 * statistics.median(latencies),
            "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "mb_per_idle_session": per_session_mb, "errors": errors, "steps": steps,
            "cpu_ms_per_call": 1000 * cpu / max(steps + resets, 1), "why": why[:3]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=["ToolTalk-v0", "WebShop-v0", "HomeSearch-v0"])
    parser.add_argument("--sessions", nargs="+", type=int, default=[1, 10, 100, 1000])
    parser.add_argument("--seconds", type=float, default=15.0, help="cap on each level's playing phase")
    parser.add_argument("--episodes", type=int, default=3, help="episodes per session at most")
    parser.add_argument("--processes", type=int, default=1, help="server processes, sessions spread over them")
    args = parser.parse_args()

    print(f"{platform.node()}: {os.cpu_count()} CPUs ({platform.machine()}), load average {os.getloadavg()[0]:.1f}, "
          f"Python {platform.python_version()}; server and client on the same machine", flush=True)
    print(f"{args.processes} server process(es) per env", flush=True)
    print(f"{'env':14s} {'sessions':>8s} {'steps/s':>8s} {'p50 ms':>7s} {'p99 ms':>8s} {'CPU ms/call':>11s} "
          f"{'MB/idle session':>15s} {'errors':>6s}", flush=True)
    for env_id in args.envs:
        servers = [start_server(env_id, max(args.sessions) + 10) for _ in range(args.processes)]
        try:
            for n in args.sessions:
                row = asyncio.run(run_level([(url, server.pid) for server, url in servers], n, args.seconds,
                                            args.episodes))
                print(f"{env_id:14s} {n:8d} {row['steps_per_s']:8.0f} {row['p50_ms']:7.1f} {row['p99_ms']:8.1f} "
                      f"{row['cpu_ms_per_call']:11.2f} {row['mb_per_idle_session']:15.2f} {row['errors']:6d}", flush=True)
                for message in row["why"]:
                    print(f"    error: {message}", flush=True)
        finally:
            for server, _ in servers:
                server.terminate()
                server.wait(30)


if __name__ == "__main__":
    main()
