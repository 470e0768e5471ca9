"""BFCL-v0's multi-turn APIs against BFCL's own API classes, call by call: outputs and states.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/ShishirPatil/gorilla (or its ``berkeley-function-call-leaderboard/`` folder);
its classes in ``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/`` are imported from
there (they need ``mpmath``). toolgym keeps each API's state in SQLite tables
(:mod:`toolgym.worlds.bfcl.world`), BFCL in Python attributes; this checks that the two agree.

For every official multi-turn task, both are loaded from the task's ``initial_config`` and play
the ground-truth calls turn by turn; with ``--perturb`` each call is also played with its first
two arguments changed (one at a time), then again as given. toolgym runs each call as BFCL does
(``rollback=False``: a raising call keeps what it changed). Compared:

- every call's result text (BFCL's executor text: a string as is, a dict as JSON, else ``str``;
  an exception as ``Error during execution: <message>``);
- after every turn, every stateful API's state: equal by ``==`` (what BFCL's checker compares)
  and each attribute's ``repr`` equal (key order, int against float, list order); for the file
  system, BFCL's ``Directory`` against toolgym's view, by ``repr`` (names, parents, contents).

Then ``FILE_SYSTEM_SEQUENCES``: calls that lean on the object identities BFCL's file system has
(a moved folder's children and their parent, a copied folder's shared files, ``.`` as a name,
writing to a folder), with and without long context. Usage::

    python benchmarks/compare_bfcl_apis.py --original ~/gorilla --data-dir ../shared/data --perturb

Measured (gorilla 6ea5797; BFCL v4 data of bfcl-eval 2026.3.23): 4,625 ground-truth calls, 15,480
with ``--perturb``, every output equal; 5,268 states after turns (736 of them file systems), every
one equal; 144 file-system sequence calls, every output and state equal.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import sys
from pathlib import Path

from toolgym.envs.bfcl.multi_turn import MULTI_TURN_CATEGORIES, load_multi_turn_tasks, parse_ground_truth_call
from toolgym.envs.common.official import OfficialLayout
from toolgym.worlds.bfcl.api import result_text, run_call
from toolgym.worlds.bfcl.apis import DOC_FILES, make_instances

TREE = {"root": {"alex": {"type": "directory", "contents": {
    "a": {"type": "directory", "contents": {
        "b": {"type": "directory", "contents": {"n.txt": {"type": "file", "content": "one\ntwo"}}},
        "f.txt": {"type": "file", "content": "alpha beta\ngamma"}}},
    "c": {"type": "directory", "contents": {}}, "g.txt": {"type": "file", "content": "zeta"}}}}}
FILE_SYSTEM_SEQUENCES = [
    [("mv", {"source": "a", "destination": "c"}), ("cd", {"folder": "c"}), ("cd", {"folder": "a"}),
     ("cd", {"folder": "b"}), ("cd", {"folder": ".."}), ("pwd", {}), ("ls", {}), ("cd", {"folder": ".."}), ("pwd", {}),
     ("du", {"human_readable": True})],
    [("cp", {"source": "a", "destination": "a2"}), ("cd", {"folder": "a2"}),
     ("echo", {"content": "new", "file_name": "f.txt"}), ("cd", {"folder": ".."}), ("cd", {"folder": "a"}),
     ("cat", {"file_name": "f.txt"}), ("touch", {"file_name": "only_in_a"}), ("cd", {"folder": ".."}),
     ("cd", {"folder": "a2"}), ("ls", {}), ("find", {"path": "/alex", "name": "t"})],
    [("echo", {"content": "x", "file_name": "a"}), ("cat", {"file_name": "a"}), ("touch", {"file_name": "."}),
     ("ls", {"a": True}), ("cat", {"file_name": "."}), ("echo", {"content": "y", "file_name": "."}),
     ("rm", {"file_name": "."}), ("ls", {"a": True})],
    [("mv", {"source": "g.txt", "destination": "a"}), ("mv", {"source": "c", "destination": "a"}),
     ("cd", {"folder": "a"}), ("rmdir", {"dir_name": "b"}), ("rmdir", {"dir_name": "c"}),
     ("rmdir", {"dir_name": "g.txt"}), ("tail", {"file_name": "f.txt", "lines": 0}),
     ("wc", {"file_name": "f.txt", "mode": "w"}), ("sort", {"file_name": "f.txt"}),
     ("diff", {"file_name1": "f.txt", "file_name2": "g.txt"}), ("cp", {"source": "f.txt", "destination": "b"}),
     ("cp", {"source": "f.txt", "destination": "b"}), ("mv", {"source": "g.txt", "destination": "b"}),
     ("cd", {"folder": "/alex/a/b"}), ("cd", {"folder": "b"}), ("ls", {}), ("find", {}),
     ("mkdir", {"dir_name": "b"}), ("mkdir", {"dir_name": "x/y"})],
    [("cp", {"source": "a", "destination": "c"}), ("cd", {"folder": "c"}), ("cd", {"folder": "a"}),
     ("cd", {"folder": "b"}), ("echo", {"content": "shared", "file_name": "n.txt"}), ("cd", {"folder": ".."}),
     ("cd", {"folder": ".."}), ("pwd", {}), ("cd", {"folder": ".."}), ("cd", {"folder": "a"}), ("cd", {"folder": "b"}),
     ("cat", {"file_name": "n.txt"}), ("mv", {"source": "n.txt", "destination": "m.txt"}), ("cd", {"folder": "/"}),
     ("cd", {"folder": ".."}), ("du", {})],
    [("mv", {"source": "a", "destination": "a"}), ("ls", {}), ("cd", {"folder": "a"}), ("mkdir", {"dir_name": 5}),
     ("touch", {"file_name": ["x"]}), ("echo", {"content": 7, "file_name": "g.txt"}), ("du", {}),
     ("cat", {"file_name": "g.txt"})],
]


def import_original(path: Path) -> dict[str, type]:
    """BFCL's API classes by class name, imported from a checkout."""
    root = path / "berkeley-function-call-leaderboard" if (path / "berkeley-function-call-leaderboard").is_dir() \
        else path
    if not (root / "bfcl_eval").is_dir():
        raise SystemExit(f"--original {path}: no bfcl_eval/ in it or in its berkeley-function-call-leaderboard/")
    sys.path.insert(0, str(root))
    package = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
    return {name: getattr(importlib.import_module(f"{package}.{module}"), name) for name, module in DOC_FILES.items()}


def original_instances(classes: dict[str, type], involved: list[str], config: dict, long_context: bool) -> dict:
    instances = {}
    for name in involved:
        instance = classes[name]()
        if name != "MathAPI":  # BFCL's STATELESS_CLASSES are not loaded
            instance._load_scenario(copy.deepcopy(config.get(name, {})), long_context=long_context)
        instances[name] = instance
    return instances


def original_call(instances: dict, name: str, arguments: dict) -> str:
    owner = [instance for instance in instances.values() if hasattr(instance, name)][-1]
    try:
        return result_text(getattr(owner, name)(**copy.deepcopy(arguments)))
    except Exception as exc:
        return f"Error during execution: {exc}"


def original_state(instance) -> dict:
    return {key: value for key, value in vars(instance).items() if not key.startswith("_")}


def same_state(ours: dict, theirs: dict, file_system: bool) -> bool:
    if set(ours) != set(theirs):
        return False
    same_repr = all(repr(ours[key]) == repr(theirs[key]) for key in theirs)
    return same_repr if file_system else same_repr and ours == theirs


def changed(value):
    """Another value of a nearby kind: int <-> float, another string, a longer list, reordered keys."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return float(value) if value % 2 else value + 1
    if isinstance(value, float):
        return int(value) if value == int(value) else value * 2
    if isinstance(value, str):
        return value + "x" if len(value) % 2 else value.upper()
    if isinstance(value, list):
        return value + value[:1]
    if isinstance(value, dict):
        return dict(reversed(list(value.items())))
    return value


def variants(name: str, arguments: dict, perturb: bool):
    yield name, arguments
    if perturb:
        for key in list(arguments)[:2]:
            yield name, {**arguments, key: changed(arguments[key])}
        yield name, arguments


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--original", type=Path, required=True, help="a checkout of ShishirPatil/gorilla")
    parser.add_argument("--data-dir", default=None, help="the official data root (default $TOOLGYM_DATA)")
    parser.add_argument("--perturb", action="store_true", help="also play each call with changed arguments")
    parser.add_argument("--show", type=int, default=10, help="differences to print")
    args = parser.parse_args(argv)
    classes = import_original(args.original)
    layout = OfficialLayout(name="BFCL", benchmark="bfcl",
                            expected=tuple(f"BFCL_v4_{c}.json" for c in MULTI_TURN_CATEGORIES))
    folder = layout.locate("BFCL-v0", args.data_dir)
    calls = outputs = states = equal_states = 0
    differences = []
    for category in MULTI_TURN_CATEGORIES:
        for task in load_multi_turn_tasks(folder, category):
            ours = make_instances(task.involved_classes, task.initial_config, task.long_context)
            theirs = original_instances(classes, task.involved_classes, task.initial_config, task.long_context)
            for turn in task.ground_truth:
                for text in turn:
                    for name, arguments in variants(*parse_ground_truth_call(text, task.involved_classes), args.perturb):
                        mine, original = run_call(ours, name, arguments, rollback=False), original_call(theirs, name, arguments)
                        calls += 1
                        outputs += mine == original
                        if mine != original:
                            differences.append((task.id, name, arguments, mine[:200], original[:200]))
                for name in task.involved_classes:
                    if name == "MathAPI":
                        continue
                    states += 1
                    if same_state(ours[name].state(), original_state(theirs[name]), name == "GorillaFileSystem"):
                        equal_states += 1
                    else:
                        differences.append((task.id, f"state of {name}"))
    print(f"official ground truth{' and perturbed' if args.perturb else ''}: {outputs}/{calls} outputs equal, "
          f"{equal_states}/{states} states equal")
    fs_calls = fs_equal = 0
    for long_context in (False, True):
        for sequence in FILE_SYSTEM_SEQUENCES:
            ours = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": TREE}, long_context)
            theirs = original_instances(classes, ["GorillaFileSystem"], {"GorillaFileSystem": TREE}, long_context)
            for name, arguments in sequence:
                mine, original = run_call(ours, name, arguments, rollback=False), original_call(theirs, name, arguments)
                same = mine == original and same_state(ours["GorillaFileSystem"].state(),
                                                       original_state(theirs["GorillaFileSystem"]), True)
                fs_calls += 1
                fs_equal += same
                if not same:
                    differences.append(("file-system sequence", long_context, name, arguments, mine[:200], original[:200]))
    print(f"file-system sequences: {fs_equal}/{fs_calls} calls with equal output and state")
    print(f"\n{len(differences)} difference(s)")
    for item in differences[:args.show]:
        print("  ", item)
    return 0 if not differences else 1


if __name__ == "__main__":
    raise SystemExit(main())
