"""CPU per answer and per call: BFCL-v0 against BFCL's own code (bfcl-eval), side by side in one process.

Single-turn: every official item of the Python categories, answered with its ground truth in BFCL's
prompting format (``[f(a=1), g(b='x')]``; no call for irrelevance) and as native tool calls
(the env's oracle action). toolgym grades each as an episode: ``env.reset`` then ``env.step(answer)``.
The native calls are set against BFCL's checker alone (``ast_checker`` on the decoded calls; for
relevance and irrelevance, whether the answer decodes to calls), the text against BFCL's decoder
(``default_decode_ast_prompting``) with the checker, as its evaluation runner grades a model's text.

Multi-turn: every ``multi_turn_base`` entry's ground-truth calls, turn by turn, each call one model
step ``[f(a=1)]``. toolgym makes it through ``env.step``; BFCL as its inference loop does: the
decoder (``default_decode_execute_prompting``) and ``execute_multi_turn_func_call`` on the entry's
instances (made before the first call, untimed). A turn is ended between the timed calls. A turn
of more than 20 calls ends the episode at its 21st (BFCL's step limit); the calls after it are
timed on neither side.

The CPU time of each (``time.process_time_ns``) is the least of ``--rounds`` rounds; medians and
ratios are printed. BFCL's package is imported from ``--bfcl-site`` (the site-packages of a virtual
environment holding bfcl-eval, on the same Python), its model config stood in as in
``benchmarks/compare_bfcl.py``::

    PYTHONPATH=. python benchmarks/bench_bfcl.py --data ../shared/data \\
        --bfcl-site /tmp/bfclvenv/lib/python3.11/site-packages
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import types
from pathlib import Path

PYTHON_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
                     "live_parallel", "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance")
NO_CALL_ANSWER = "I cannot answer this with the functions given."


def import_bfcl(site: Path):
    """BFCL's checker, decoders and multi-turn executor, with the model config stood in."""
    sys.path.append(str(site))
    stand_in = types.ModuleType("bfcl_eval.constants.model_config")

    class AnyModel(dict):
        def __missing__(self, key):
            return types.SimpleNamespace(underscore_to_dot=False)

    stand_in.MODEL_CONFIG_MAPPING = AnyModel()
    sys.modules["bfcl_eval.constants.model_config"] = stand_in
    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting, default_decode_execute_prompting
    from bfcl_eval.utils import is_function_calling_format_output
    return types.SimpleNamespace(ast_checker=ast_checker, Language=Language, ReturnFormat=ReturnFormat, execute=execute_multi_turn_func_call,
                                 decode_ast=default_decode_ast_prompting,
                                 decode_execute=default_decode_execute_prompting,
                                 is_calls=is_function_calling_format_output)


def call_text(name: str, arguments: dict) -> str:
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in arguments.items())})"


def single_turn_answer(task) -> str:
    from toolgym.envs.bfcl.tasks import oracle_calls
    if task.category in ("irrelevance", "live_irrelevance"):
        return NO_CALL_ANSWER
    if task.category == "live_relevance":
        doc = task.functions[0]
        return f"[{call_text(doc['name'], {k: '' for k in doc.get('parameters', {}).get('required', [])})}]"
    return "[" + ", ".join(call_text(name, arguments) for name, arguments in oracle_calls(task)) + "]"


def bfcl_grade(bfcl, task, answer: str, decoded: list[dict], decode: bool) -> bool:
    """BFCL's verdict on ``answer``: its checker on the calls (``decoded``, or decoded here when ``decode``)."""
    calls = None
    if decode or task.category in ("irrelevance", "live_irrelevance", "live_relevance"):
        try:
            calls = bfcl.decode_ast(answer, bfcl.ReturnFormat.PYTHON)
        except Exception:  # noqa: BLE001 - BFCL's runner: an answer that does not decode
            calls = None
    if task.category in ("irrelevance", "live_irrelevance", "live_relevance"):
        made = calls is not None and bfcl.is_calls(calls)
        return made if task.category == "live_relevance" else not made
    if not decode:
        calls = decoded
    return bool(calls is not None and bfcl.ast_checker(task.functions, calls, task.ground_truth, bfcl.Language.PYTHON,
                                                       task.category, "bench")["valid"])


def single_turn(bfcl, data: Path, rounds: int) -> None:
    import gymnasium as gym

    from toolgym.envs.bfcl.tasks import oracle_calls
    env = gym.make("BFCL-v0", tasks="official", category=list(PYTHON_CATEGORIES), data_dir=str(data)).unwrapped
    items = [(task_id, env.task_records()[task_id]) for task_id in env.task_ids()]
    answers = {task_id: single_turn_answer(task) for task_id, task in items}
    native = {}  # the same answers as native tool calls (the env's oracle action): nothing to decode
    for task_id, _ in items:
        env.reset(options={"task_id": task_id}, seed=0)
        native[task_id] = env.oracle_action()
    # the checker alone takes the calls decoded, as BFCL's runner hands them to it
    decoded = {task_id: [{name: arguments} for name, arguments in oracle_calls(task)] for task_id, task in items}
    best = {side: {} for side in ("toolgym", "toolgym native", "checker", "decode+checker")}
    agree = 0
    for _ in range(rounds):
        for task_id, task in items:
            for side, answer in (("toolgym native", native[task_id]), ("toolgym", answers[task_id])):
                start = time.process_time_ns()
                env.reset(options={"task_id": task_id}, seed=0)
                reward = env.step(answer)[1]
                spent = time.process_time_ns() - start
                best[side][task_id] = min(spent, best[side].get(task_id, spent))
            for side, decode in (("checker", False), ("decode+checker", True)):
                start = time.process_time_ns()
                verdict = bfcl_grade(bfcl, task, answers[task_id], decoded[task_id], decode)
                spent = time.process_time_ns() - start
                best[side][task_id] = min(spent, best[side].get(task_id, spent))
            agree += verdict == bool(reward)
    print(f"single-turn: {len(items)} answers, verdicts agreeing {agree // rounds}; median CPU ms per answer")
    for group, categories in (("AST", [c for c in PYTHON_CATEGORIES if "relevance" not in c]),
                              ("relevance/irrelevance", [c for c in PYTHON_CATEGORIES if "relevance" in c])):
        ids = [task_id for task_id, task in items if task.category in categories]
        ours, native_ours, checker, decoded = (statistics.median(best[side][i] for i in ids) / 1e6 for side in (
            "toolgym", "toolgym native", "checker", "decode+checker"))
        print(f"  {group}, {len(ids)} answers: native calls: toolgym reset+step {native_ours:.4f}, BFCL checker "
              f"{checker:.4f}, ratio {native_ours / checker:.2f}; prompting text: toolgym reset+step {ours:.4f}, "
              f"BFCL decoder+checker {decoded:.4f}, ratio {ours / decoded:.2f}")


def multi_turn(bfcl, data: Path, rounds: int) -> None:
    import gymnasium as gym
    env = gym.make("BFCL-v0", tasks="official", category="multi_turn_base", data_dir=str(data)).unwrapped
    tasks = [env.task_records()[task_id] for task_id in env.task_ids()]
    best: dict[str, list[int]] = {}
    for round_number in range(rounds):
        times = {"toolgym": [], "BFCL": []}
        for task in tasks:
            env.reset(options={"task_id": task.id}, seed=0)
            played = []  # the calls toolgym ran: a turn of more than 20 calls ends the episode (BFCL's step limit)
            over = False
            for turn in task.ground_truth:
                for call in turn:
                    if over:
                        break
                    start = time.process_time_ns()
                    over = env.step(f"[{call}]")[2]
                    times["toolgym"].append(time.process_time_ns() - start)
                    played.append(call)
                if not over:
                    over = env.step(NO_CALL_ANSWER)[2]  # the turn's end
            model = f"bench{round_number}"  # a fresh set of BFCL's instances each round
            bfcl.execute([], task.initial_config, task.involved_classes, model, task.id)
            for call in played:  # the same calls
                start = time.process_time_ns()
                bfcl.execute(bfcl.decode_execute(f"[{call}]"), task.initial_config, task.involved_classes,
                             model, task.id)
                times["BFCL"].append(time.process_time_ns() - start)
        best = times if not best else {side: list(map(min, best[side], times[side])) for side in times}
    ours, theirs = (statistics.median(best[side]) / 1e6 for side in ("toolgym", "BFCL"))
    print(f"multi-turn (multi_turn_base): {len(best['BFCL'])} calls, median CPU ms per call: BFCL {theirs:.4f}, "
          f"toolgym {ours:.4f}, ratio {ours / theirs:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the data root holding bfcl/")
    parser.add_argument("--bfcl-site", type=Path, default=Path("/tmp/bfclvenv/lib/python3.11/site-packages"),
                        help="site-packages holding bfcl_eval")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", nargs="+", default=["single", "multi"], choices=("single", "multi"))
    args = parser.parse_args()
    bfcl = import_bfcl(args.bfcl_site)
    import toolgym  # noqa: F401
    if "single" in args.parts:
        single_turn(bfcl, args.data, args.rounds)
    if "multi" in args.parts:
        multi_turn(bfcl, args.data, args.rounds)


if __name__ == "__main__":
    main()
