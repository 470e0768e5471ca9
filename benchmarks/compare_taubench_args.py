"""TauBench-v0 against τ-bench v1's own tools on perturbed trajectories: every output, database and reward.

For each official task, each ground-truth action is replaced in turn by perturbed forms of it
(15 kinds, below) and the task's actions are replayed from the task's start on both sides: toolgym's
``TauBench-v0`` world and v1's tool classes on v1's dict database, called as v1's ``Env.step``
calls them (``invoke(data=data, **kwargs)``, an exception answered ``Error: <exception>``). Counted:
the text of the perturbed call, the final database (a digest of the records that differ from the
start, by v1's ``to_hashable``, so ``3`` and ``3.0`` differ as in v1's hash) and the reward's database
check (final hash equal to the ground truth's; each side by its own hash). The unperturbed
trajectory of each task is checked the same way. Both sides run in one process::

    PYTHONPATH=. python benchmarks/compare_taubench_args.py --data ../shared/data --taubench /tmp/taubench_v1

where ``/tmp/taubench_v1`` holds v1's ``tau_bench`` package (``git archive HEAD tau_bench`` of
github.com/sierra-research/tau-bench); v1's database is read from ``--data``. ``litellm``, which
v1's user module imports, is stubbed when it is not installed.

Measured (tau-bench 59a200c, 2026-11-29): airline test 1,634 perturbed trajectories, retail test
5,383, retail dev and train 9,135 (16,152 in all, about 4 minutes on one core): every output text,
final database and reward equal to v1's; the 685 ground-truth trajectories equal too.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import importlib
import json
import sys
import types
from collections import Counter
from pathlib import Path

SPLITS = {"airline": ("test",), "retail": ("test", "dev", "train")}
TABLES = {"airline": ("flights", "reservations", "users"), "retail": ("orders", "products", "users")}


def perturbations(arguments: dict) -> list[tuple[str, dict]]:
    """(kind, arguments) of each perturbed form of a call's arguments (15 kinds)."""
    out = []
    names = list(arguments)
    if names:
        out += [("drop_last", {k: v for k, v in arguments.items() if k != names[-1]}),
                ("drop_first", {k: v for k, v in arguments.items() if k != names[0]})]
    out += [("extra", {**arguments, "note": "x"}), ("data", {**arguments, "data": {}})]
    for key, value in arguments.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            out += [(f"float:{key}", {**arguments, key: float(value)}), (f"str:{key}", {**arguments, key: str(value)})]
        elif isinstance(value, str):
            out += [(f"list:{key}", {**arguments, key: [value]}), (f"null:{key}", {**arguments, key: None})]
            if value.isdigit():
                out.append((f"int:{key}", {**arguments, key: int(value)}))
            if key.endswith("_id"):
                out.append((f"badid:{key}", {**arguments, key: value + "X"}))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            first = next(iter(value[0]), None)
            out += [(f"itemextra:{key}", {**arguments, key: [{**item, "note": "x"} for item in value]}),
                    (f"itemmissing:{key}", {**arguments, key: [{k: v for k, v in item.items() if k != first}
                                                               for item in value]}),
                    (f"itemfloat:{key}", {**arguments, key: [{k: float(v) if type(v) is int else v
                                                             for k, v in item.items()} for item in value]}),
                    (f"itemstr:{key}", {**arguments, key: [{k: str(v) if type(v) is int else v
                                                           for k, v in item.items()} for item in value]})]
        elif isinstance(value, list) and value and isinstance(value[0], str):
            out.append((f"listone:{key}", {**arguments, key: value[:1] * 2}))
    return out


def record_text(record) -> str:
    """v1's ``str(to_hashable(record))``: what its hash reads of one record."""
    from toolgym.worlds.taubench.common import to_hashable
    return str(to_hashable(record))


def changes_digest(changed: dict[tuple[str, str], str | None]) -> str:
    """A digest of the changed records ((table, key) -> v1's text of the record, None when deleted)."""
    return hashlib.sha256(json.dumps(sorted(changed.items())).encode()).hexdigest()


class CopyOnRead(dict):
    """A table of v1's database whose records are copied from the pristine table when first read by
    key, so that a trajectory starts from the pristine database without copying all of it."""

    def __init__(self, pristine: dict):
        super().__init__(pristine)
        self.pristine = pristine
        self.copied: set = set()

    def _copy(self, key):
        if key in self.pristine and key not in self.copied and dict.__contains__(self, key):
            self.copied.add(key)
            dict.__setitem__(self, key, copy.deepcopy(self.pristine[key]))

    def __getitem__(self, key):
        self._copy(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._copy(key)
        return dict.get(self, key, default)

    def __setitem__(self, key, value):
        self.copied.add(key)
        dict.__setitem__(self, key, value)

    def changes(self, table: str) -> dict:
        """(table, key) -> v1's text of each record that differs from the pristine one (None if deleted)."""
        out = {}
        for key in self.copied | (self.pristine.keys() - self.keys()):
            now = record_text(dict.__getitem__(self, key)) if dict.__contains__(self, key) else None
            before = record_text(self.pristine[key]) if key in self.pristine else None
            if now != before:
                out[(table, key)] = now
        return out


class TauBenchSide:
    """v1's tools on v1's dict database, called as v1's ``Env.step`` calls them."""

    def __init__(self, data: Path, domain: str):
        self.tools = {tool.get_info()["function"]["name"]: tool
                      for tool in importlib.import_module(f"tau_bench.envs.{domain}.tools").ALL_TOOLS}
        folder = data / "tau2bench" / "tau_bench_v1" / "tau_bench" / "envs" / domain / "data"
        self.pristine = {table: json.loads((folder / f"{table}.json").read_text()) for table in TABLES[domain]}
        self.fingerprint = record_text(self.pristine)

    def replay(self, actions: list[dict], watched: int) -> tuple[str, str]:
        """(text of action ``watched``, digest of the database's changes) after ``actions`` from the start."""
        data = {table: CopyOnRead(records) for table, records in self.pristine.items()}
        text = ""
        for i, action in enumerate(actions):
            try:
                observation = self.tools[action["name"]].invoke(data=data, **action["kwargs"])
            except Exception as error:  # noqa: BLE001 - v1's Env.step answers any exception so
                observation = f"Error: {error}"
            if i == watched:
                text = str(observation)
        changed = {}
        for table, records in data.items():
            changed.update(records.changes(table))
        return text, changes_digest(changed)


class ToolgymSide:
    """TauBench-v0's env: its ``_call`` makes the text a live run sends the model."""

    def __init__(self, data: Path, domain: str, split: str):
        import gymnasium as gym

        import toolgym  # noqa: F401
        self.env = gym.make("TauBench-v0", domain=domain, tasks="official", split=split,
                            data_dir=str(data)).unwrapped
        self.domain = domain
        self.env.reset(options={"task_id": self.env.task_ids()[0]})
        self.pristine = self._rows()

    def _rows(self) -> dict[tuple[str, str], str]:
        world = self.env.world
        world.commit()
        return {(name, key): doc for name in TABLES[self.domain] for key, doc in world.sql().execute(
            f'SELECT key, doc FROM "{world.tables[name].__tablename__}"')}

    def replay(self, actions: list[dict], watched: int) -> tuple[str, str, str]:
        """(text of action ``watched``, digest of the database's changes, toolgym's state hash)."""
        from toolgym.envs.common.actions import ToolCall
        env = self.env
        env.world.restore(env.task_data.initial_state)
        text = ""
        for i, action in enumerate(actions):
            observation = env._call(ToolCall(action["name"], action["kwargs"]))
            if i == watched:
                text = observation
        rows = self._rows()
        changed = {}
        for where in rows.keys() | self.pristine.keys():
            if rows.get(where) != self.pristine.get(where):
                now = record_text(json.loads(rows[where])) if where in rows else None
                before = record_text(json.loads(self.pristine[where])) if where in self.pristine else None
                if now != before:
                    changed[where] = now
        return text, changes_digest(changed), env.world.state_hash()


def compare(data: Path, domains: list[str], splits: list[str] | None, limit: int | None, show: int) -> Counter:
    counts: Counter = Counter()
    shown = 0
    for domain in domains:
        v1 = TauBenchSide(data, domain)
        for split in SPLITS[domain]:
            if splits and split not in splits:
                continue
            ours = ToolgymSide(data, domain, split)
            for task_id in ours.env.task_ids()[:limit]:
                gold = [a for a in ours.env.task_data.tasks[task_id]["actions"] if a["name"] != "respond"]
                gold = [{"name": a["name"], "kwargs": json.loads(json.dumps(a["kwargs"]))} for a in gold]
                _, v1_gold, = v1.replay(gold, -1)
                _, ours_gold_digest, ours_gold = ours.replay(gold, -1)
                counts["ground truth equal"] += v1_gold == ours_gold_digest
                counts["ground truth"] += 1
                for i, action in enumerate(gold):
                    for kind, arguments in perturbations(action["kwargs"]):
                        actions = [*gold[:i], {"name": action["name"], "kwargs": arguments}, *gold[i + 1:]]
                        v1_text, v1_digest = v1.replay(json.loads(json.dumps(actions)), i)
                        our_text, our_digest, our_hash = ours.replay(json.loads(json.dumps(actions)), i)
                        family = kind.split(":")[0]
                        same = {"output": v1_text == our_text, "database": v1_digest == our_digest,
                                "reward": (v1_digest == v1_gold) == (our_hash == ours_gold)}
                        counts["trajectories"] += 1
                        for what, equal in same.items():
                            counts[f"{what} equal"] += equal
                            if not equal:
                                counts[f"{what} differs ({family})"] += 1
                        if not all(same.values()) and shown < show:
                            shown += 1
                            print(f"--- {domain}/{task_id}/{i} {action['name']} {kind} {json.dumps(arguments)[:300]}")
                            print(f"    v1:      {v1_text[:400]!r}\n    toolgym: {our_text[:400]!r}")
                            print(f"    database equal: {same['database']}; reward v1 "
                                  f"{int(v1_digest == v1_gold)}, toolgym {int(our_hash == ours_gold)}")
        assert record_text(v1.pristine) == v1.fingerprint, "a v1 tool changed a record read by iteration"
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the folder holding tau2bench/tau_bench_v1")
    parser.add_argument("--taubench", type=Path, required=True, help="the folder holding v1's tau_bench package")
    parser.add_argument("--domains", nargs="+", default=["airline", "retail"])
    parser.add_argument("--splits", nargs="+", help="only these splits (default: every split)")
    parser.add_argument("--limit", type=int, help="the first N tasks of each split")
    parser.add_argument("--show", type=int, default=20, help="print the first N differing trajectories")
    args = parser.parse_args()
    sys.path.insert(0, str(args.taubench))
    try:
        import litellm  # noqa: F401
    except ImportError:
        sys.modules["litellm"] = types.ModuleType("litellm")
        sys.modules["litellm"].completion = None
    counts = compare(args.data, args.domains, args.splits, args.limit, args.show)
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
