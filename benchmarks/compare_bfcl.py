"""BFCL-v0's single-turn verdicts against BFCL's own AST checker, item by item.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/ShishirPatil/gorilla (or its ``berkeley-function-call-leaderboard/`` folder).
Its ``bfcl_eval.eval_checker.ast_eval.ast_checker`` is imported from there and judges the same
decoded calls as toolgym's checker under ``paper_compat``. BFCL's ``constants.model_config``
imports every model handler's API client, so a stand-in module takes its place: it answers
``underscore_to_dot=False`` for the model name, i.e. calls keep BFCL's dotted names, as a
prompting model's do. Nothing else of BFCL is replaced.

For every official item of the AST categories, five answers in BFCL's decoded form
(``[{name: {param: value}}]``, Java and JavaScript values as source text):

- ``oracle``: the ground truth, each parameter at its first acceptable value;
- ``change_arg``: the first call's first argument changed (numbers +1, booleans flipped,
  strings suffixed, lists extended with their first item);
- ``drop_required``: the first call without its first required argument;
- ``extra_call``: the last call made twice;
- ``wrong_name``: the first call's function renamed.

Agreement is counted on the verdict (valid or not) and on BFCL's ``error_type``; a BFCL crash
counts as a failure with error type ``crash:<exception>``. Usage::

    python benchmarks/compare_bfcl.py --original ~/gorilla --data-dir ../shared/data

Measured (gorilla 6ea5797, 2026-03-23; BFCL v4 data of bfcl-eval 2026.3.23): 12,245 answers over
the ten AST categories (2,501 items), every verdict and every error type agreeing, the 18
ground truths the released checker rejects included. Relevance and irrelevance are judged by
whether a call decodes, with no checker to compare.
"""

from __future__ import annotations

import argparse
import copy
import sys
import types
from collections import Counter
from pathlib import Path

from toolgym.envs.bfcl.ast_checker import ast_check
from toolgym.envs.bfcl.tasks import NO_GROUND_TRUTH, SINGLE_TURN, load_single_turn, oracle_calls
from toolgym.envs.common.official import OfficialLayout

AST_CATEGORIES = tuple(c for c in SINGLE_TURN if c not in NO_GROUND_TRUTH)


def import_original(path: Path):
    """BFCL's ``ast_checker`` and ``Language`` from a checkout, with the model config stood in."""
    root = path / "berkeley-function-call-leaderboard" if (path / "berkeley-function-call-leaderboard").is_dir() \
        else path
    if not (root / "bfcl_eval").is_dir():
        raise SystemExit(f"--original {path}: no bfcl_eval/ in it or in its berkeley-function-call-leaderboard/")
    sys.path.insert(0, str(root))
    stand_in = types.ModuleType("bfcl_eval.constants.model_config")

    class AnyModel(dict):
        def __missing__(self, key):
            return types.SimpleNamespace(underscore_to_dot=False)

    stand_in.MODEL_CONFIG_MAPPING = AnyModel()
    sys.modules["bfcl_eval.constants.model_config"] = stand_in
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    return ast_checker, Language


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "_changed"
    if isinstance(value, list):
        return value + value[:1] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "changed": 1}
    return value


def answers(task) -> dict[str, list[dict]]:
    calls = [{name: args} for name, args in oracle_calls(task)]
    out = {"oracle": calls}
    first_name, first_args = next(iter(calls[0].items()))
    if first_args:
        key = next(iter(first_args))
        out["change_arg"] = [{first_name: {**first_args, key: _changed(first_args[key])}}, *calls[1:]]
    doc = next((d for d in task.functions if d["name"] == first_name), None)
    required = [p for p in (doc or {}).get("parameters", {}).get("required", []) if p in first_args]
    if required:
        out["drop_required"] = [{first_name: {k: v for k, v in first_args.items() if k != required[0]}}, *calls[1:]]
    out["extra_call"] = calls + [copy.deepcopy(calls[-1])]
    out["wrong_name"] = [{first_name + "_x": first_args}, *calls[1:]]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--original", type=Path, required=True, help="a checkout of ShishirPatil/gorilla")
    parser.add_argument("--data-dir", default=None, help="the official data root (default $TOOLGYM_DATA)")
    parser.add_argument("--categories", nargs="*", default=list(AST_CATEGORIES))
    parser.add_argument("--show", type=int, default=10, help="disagreements to print")
    args = parser.parse_args(argv)
    ast_checker, Language = import_original(args.original)
    layout = OfficialLayout(name="BFCL", benchmark="bfcl",
                            expected=tuple(f"BFCL_v4_{c}.json" for c in args.categories))
    folder = layout.locate("BFCL-v0", args.data_dir)
    counts: Counter = Counter()
    disagreements = []
    for category in args.categories:
        for task in load_single_turn(folder, category):
            language = {"java": Language.JAVA, "javascript": Language.JAVASCRIPT}.get(task.language, Language.PYTHON)
            for kind, output in answers(task).items():
                try:
                    original = ast_checker(task.functions, copy.deepcopy(output), task.ground_truth, language,
                                           category, "stand-in")
                    theirs = (bool(original["valid"]), "" if original["valid"] else original.get("error_type", ""))
                except Exception as exc:  # the released checker's crash is its verdict: a failure
                    theirs = (False, f"crash:{type(exc).__name__}")
                verdict = ast_check(task.functions, output, task.ground_truth, category, task.language, compat=True)
                ours = (verdict["valid"], verdict["error_type"])
                counts[(category, kind, "verdict", theirs[0] == ours[0])] += 1
                counts[(category, kind, "error_type", theirs == ours)] += 1
                if theirs != ours:
                    disagreements.append((task.id, kind, theirs, ours))
    print(f"{'category':24} {'answer':14} {'verdicts agree':>16} {'error types agree':>18}")
    for category in args.categories:
        for kind in ("oracle", "change_arg", "drop_required", "extra_call", "wrong_name"):
            v_ok, v_no = counts[(category, kind, "verdict", True)], counts[(category, kind, "verdict", False)]
            e_ok, e_no = counts[(category, kind, "error_type", True)], counts[(category, kind, "error_type", False)]
            if v_ok + v_no:
                print(f"{category:24} {kind:14} {v_ok:>7}/{v_ok + v_no:<8} {e_ok:>8}/{e_ok + e_no:<9}")
    print(f"\n{len(disagreements)} answer(s) judged differently")
    for item in disagreements[:args.show]:
        print("  ", item)
    return 0 if not disagreements else 1


if __name__ == "__main__":
    raise SystemExit(main())
