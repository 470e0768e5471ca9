"""Memory stays flat over resets: RL runs reset one env millions of times.

Each check runs the same sequence of resets several times and compares the memory after each
pass: every pass ends in the same episode, so a leak grows the memory on every pass, while
caches and allocator noise move it either way (the smallest growth is compared). The bound
per reset is 100 bytes, i.e. 10 MB over 100,000 resets (``benchmarks/bench_memory.py`` runs
the full count).
"""

from __future__ import annotations

import gc
import tracemalloc

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)

BYTES_PER_RESET = 100


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def _python_heap_growth(env, seeds, passes: int = 3) -> int:
    """The least growth of the Python heap over a pass of resets through ``seeds``."""
    for seed in seeds:
        env.reset(seed=seed)
    tracemalloc.start()
    try:
        growths = []
        for _ in range(passes):
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            for seed in seeds:
                env.reset(seed=seed)
            gc.collect()
            growths.append(tracemalloc.get_traced_memory()[0] - before)
        return min(growths)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("env_id, kwargs", [
    ("ToolTalk-v0", {}), ("HomeSearch-v0", {}), ("TripBooking-v0", {}), ("OpenWeather-v0", {}),
    ("VirtualHome-v0", {}), ("AppBench-v0", {"tasks_per_category": 5}),
])
def test_resets_keep_no_python_memory(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    try:
        env.reset(seed=0)
        seeds = range(100)
        assert _python_heap_growth(env, seeds) < BYTES_PER_RESET * len(seeds)
    finally:
        env.close()


def test_tabletop_resets_keep_no_native_memory(monkeypatch):
    """PyBullet keeps a removed bowl's shapes (15 KB) until disconnect; the sim reconnects."""
    pytest.importorskip("pybullet")
    from toolgym.worlds.tabletop import sim
    from toolgym.worlds.tabletop.sim import ObjectSpec, TabletopSim

    monkeypatch.setattr(sim, "OBJECT_LOADS_PER_CLIENT", 30)
    bowls = [ObjectSpec(color, "bowl", (x, -0.5)) for color, x in (("red", -0.2), ("blue", 0.0), ("green", 0.2))]
    table = TabletopSim()
    try:
        builds = 40
        for _ in range(builds):
            table.build(bowls)
        growths = []
        for _ in range(2):
            before = _resident_bytes()
            for _ in range(builds):
                table.build(bowls)
            growths.append(_resident_bytes() - before)
        grown = min(growths)
    finally:
        table.close()
    # Without the reconnect each build keeps 3 bowls' shapes: 40 builds, 1.8 MB.
    assert grown < 1000 * builds, f"{grown} bytes over {builds} builds"


def test_tabletop_plays_the_same_on_a_fresh_client(monkeypatch):
    """The reconnect changes nothing an episode sees: a setup plays out as on the first client."""
    pytest.importorskip("pybullet")
    import numpy as np

    from toolgym.worlds.tabletop import sim

    monkeypatch.setattr(sim, "OBJECT_LOADS_PER_CLIENT", 12)
    connects = []
    connect = sim.TabletopSim._connect
    monkeypatch.setattr(sim.TabletopSim, "_connect", lambda self: (connects.append(1), connect(self)))
    finals = []
    for resets_before in (0, 9):  # 9 setups of 3 to 6 objects: fresh clients on the way
        env = gym.make("Tabletop-v0").unwrapped
        try:
            for seed in range(resets_before):
                env.reset(seed=seed)
            env.reset(seed=3, options={"task_id": "blocks_in_bowl-3"})
            env.step(env.oracle_action())
            finals.append(env.world.positions())
        finally:
            env.close()
    assert len(connects) >= 4  # one per env, and at least two reconnects
    for name, xyz in finals[0].items():
        assert np.allclose(xyz, finals[1][name], atol=1e-6, rtol=0)
