"""Baselines with real models: a packaged instruct model on every env, rendered as docs/baselines.md.

    python benchmarks/baselines.py                          # SmolLM2-135M-Instruct, the full run
    python benchmarks/baselines.py --quick                  # 3 episodes per env (a first look)
    python benchmarks/baselines.py --episodes 10 --envs ToolTalk-v0 CatAPI-v0
    python benchmarks/baselines.py --render                 # docs/baselines.md from the results files

Each env runs on its built-in tasks with its own prompt format and parser, greedy decoding.
The full run takes every task of a set of at most ``FULL_TASKS`` tasks and the first
``FULL_TASKS`` of a larger one. Results files go to ``results/baselines/<model>/<env>.jsonl``
(one JSON line per episode, the format of ``toolgym eval --out``) with a ``.timing.json``
beside each; a file from an earlier, interrupted run is continued. The table shows the paper's
metrics (the env's own table columns), success, the share of steps whose action the env could
not read (``invalid_actions`` / steps), steps and seconds per episode, and the episodes each
row used, next to the numbers the papers publish for their models.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENVS = ("ToolTalk-v0", "AppBench-v0", "OpenWeather-v0", "CatAPI-v0", "HomeSearch-v0", "TripBooking-v0",
        "Tabletop-v0", "ToolLLM-v0", "WebShop-v0", "VirtualHome-v0", "GoogleSheets-v0")
FULL_TASKS = 100
QUICK_EPISODES = 3

# What the papers report for their own models, on their own (official) tasks: a reader's yardstick,
# not a comparison on the same tasks.
PUBLISHED = {
    "ToolTalk-v0": "GPT-3.5 26.0, GPT-4 50.0 success on hard (Farn & Shin 2023, Table 3)",
    "AppBench-v0": "GPT-4o and others: success per SS/SM/MS/MM subset (Wang et al. 2024, Table 3)",
    "OpenWeather-v0": "success rate per model (Xu et al. 2023, Table 2)",
    "CatAPI-v0": "success rate per model (Xu et al. 2023, Table 2)",
    "HomeSearch-v0": "success rate per model (Xu et al. 2023, Table 2)",
    "TripBooking-v0": "success rate per model (Xu et al. 2023, Table 2)",
    "Tabletop-v0": "success rate per model (Xu et al. 2023, Table 2)",
    "ToolLLM-v0": "ToolEval pass rate, ChatGPT / ToolLLaMA with ReAct and DFSDT (Qin et al. 2023, Table 4)",
    "WebShop-v0": "reward per model (Xu et al. 2023, Table 2; Yao et al. 2022)",
    "VirtualHome-v0": "executability and LCS per model (Xu et al. 2023, Table 2)",
    "GoogleSheets-v0": "success rate per model (Xu et al. 2023, Table 2)",
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="smollm2-135m-instruct",
                   help="an hf: model: a packaged short name, a .gguf path or a folder (default smollm2-135m-instruct)")
    p.add_argument("--envs", nargs="+", default=list(ENVS), metavar="ENV", help="env ids (default: all eleven)")
    p.add_argument("--episodes", type=int, help=f"episodes per env (default: every task, at most {FULL_TASKS})")
    p.add_argument("--quick", action="store_true", help=f"{QUICK_EPISODES} episodes per env")
    p.add_argument("--max-new-tokens", type=int, default=256, help="tokens per model turn (default 256)")
    p.add_argument("--batch-size", type=int, default=4, help="episodes stepped in lockstep (default 4)")
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's)")
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    p.add_argument("--results", default=str(ROOT / "results" / "baselines"), help="results folder")
    p.add_argument("--doc", default=str(ROOT / "docs" / "baselines.md"), help="the markdown table to write")
    p.add_argument("--render", action="store_true", help="only render --doc from the results files")
    p.add_argument("--no-progress", action="store_true")
    return p


def run(args) -> None:
    import toolgym  # noqa: F401
    from toolgym.agents.llm import LLMAgent, SamplingParams, TransformersBackend
    from toolgym.eval.batch import evaluate_batched
    from toolgym.eval.runner import check_env_args, make_env, select_tasks

    backend = TransformersBackend(args.model, device=args.device, threads=args.threads,
                                  progress=not args.no_progress)
    folder = Path(args.results) / _slug(args.model)
    folder.mkdir(parents=True, exist_ok=True)
    for env_id in args.envs:
        episodes = QUICK_EPISODES if args.quick else args.episodes
        if episodes is None:
            episodes = min(FULL_TASKS, len(select_tasks(make_env(env_id, {}))))
        agent = LLMAgent(backend, env=check_env_args(env_id, {}),
                         sampling=SamplingParams(max_new_tokens=args.max_new_tokens))
        out = folder / f"{env_id}.jsonl"
        start = time.perf_counter()
        records, _, stats = evaluate_batched(env_id, agent, f"hf:{args.model}", {}, seed=0, episodes=episodes,
                                             out=out, progress=not args.no_progress, batch_size=args.batch_size,
                                             resume=out.exists() and out.stat().st_size > 0)
        timing = _read_json(out.with_suffix(".timing.json")) or {"seconds": 0.0, "episodes": 0}
        timing["seconds"] += time.perf_counter() - start
        timing["episodes"] += stats["episodes"]
        out.with_suffix(".timing.json").write_text(json.dumps(timing))
        print(f"{env_id}: {len(records)} episodes, {stats['episodes']} run now in {stats['seconds']:.0f}s",
              file=sys.stderr)


def summarise(env_id: str, records: list[dict], timing: dict | None) -> dict:
    """One row of the table: the paper's metrics (the env's table columns), success, invalid share."""
    from toolgym.envs.base import INVALID_ACTIONS
    from toolgym.eval.runner import make_env

    env = make_env(env_id, {}).unwrapped
    scored = [r["metrics"] for r in records if r.get("metrics")]
    steps = sum(len(r.get("trajectory") or []) for r in records)
    invalid = sum(int(m.get(INVALID_ACTIONS) or 0) for m in scored)
    paper = []
    for column in env.table_columns:
        value = column.value(scored) if scored else float("nan")
        paper.append(f"{column.title} {100 * value:.1f}" if column.percent else f"{column.title} {value:.3f}")
    successes = [m.get("success") for m in scored if m.get("success") is not None]
    seconds = timing["seconds"] / timing["episodes"] if timing and timing.get("episodes") else None
    return {"env": env_id, "episodes": len(records), "errors": sum(1 for r in records if r.get("error")),
            "paper": "; ".join(paper), "success": 100 * sum(successes) / len(successes) if successes else None,
            "invalid_share": 100 * invalid / steps if steps else None,
            "steps": steps / len(records) if records else None, "seconds": seconds}


def render(args) -> str:
    from toolgym.eval.runner import read_results

    folder = Path(args.results) / _slug(args.model)
    rows = []
    for env_id in args.envs:
        path = folder / f"{env_id}.jsonl"
        if not path.exists():
            continue
        records = [r for r in read_results(path, torn_tail_ok=True) if "task_id" in r]
        rows.append(summarise(env_id, records, _read_json(path.with_suffix(".timing.json"))))

    def cell(value, digits=1):
        return "–" if value is None else f"{value:.{digits}f}"

    lines = [f"# Baselines: `hf:{args.model}` on every env", "",
             "Built-in tasks, each env's own prompt format and parser, greedy decoding, "
             f"{args.max_new_tokens} new tokens per turn at most, CPU. Made with", "",
             "```", _command(args), "```", "",
             "*episodes*: how many of the env's built-in tasks the row used (the first N in task order). "
             "*invalid*: steps whose action the env could not read (`info['metrics']['invalid_actions']`) "
             "over all steps. *paper metrics*: the env's table columns over the scored episodes.", "",
             "| env | episodes | paper metrics | success % | invalid % | steps/ep | s/ep | published (their models, "
             "official tasks) |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        errors = f" ({row['errors']} errored)" if row["errors"] else ""
        lines.append(f"| {row['env']} | {row['episodes']}{errors} | {row['paper']} | {cell(row['success'])} | "
                     f"{cell(row['invalid_share'])} | {cell(row['steps'])} | {cell(row['seconds'])} | "
                     f"{PUBLISHED.get(row['env'], '')} |")
    return "\n".join(lines) + "\n"


def _command(args) -> str:
    parts = ["python benchmarks/baselines.py", f"--model {args.model}"]
    if args.quick:
        parts.append("--quick")
    elif args.episodes:
        parts.append(f"--episodes {args.episodes}")
    if args.max_new_tokens != 256:
        parts.append(f"--max-new-tokens {args.max_new_tokens}")
    if list(args.envs) != list(ENVS):
        parts.append("--envs " + " ".join(args.envs))
    return " ".join(parts)


def _slug(model: str) -> str:
    return Path(model).name.replace(".gguf", "") or "model"


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not args.render:
        run(args)
    Path(args.doc).parent.mkdir(parents=True, exist_ok=True)
    Path(args.doc).write_text(render(args))
    print(f"wrote {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
