"""``make bench``: every benchmark in ``benchmarks/`` in a short mode, into ``benchmarks/RESULTS.md``.

    .venv/bin/python benchmarks/run_all.py [--long] [--timeout 600]

First ``bench_scale.py`` (the table of every env and issue 29's figures), then each other
script with the arguments below that keep it short, its output kept as it printed it. The
file is rewritten after each script, so an interrupted run leaves what it measured. Scripts
that need what a plain checkout lacks (another project's checkout) are listed with the reason.
``--long`` runs ``bench_scale.py`` at the issue's sizes (1,000,000 products, 100,000 resets).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
# script -> the arguments of its short mode (None: not run, with the reason)
SHORT: dict[str, list[str] | str] = {
    "bench_speed.py": ["--repeats", "1"],
    "bench_vector.py": ["--episodes", "4"],
    "bench_webshop.py": ["--sizes", "1000", "--queries", "50", "--no-rank-bm25"],
    "bench_toolllm.py": ["--sizes", "small"],
    "bench_tooltalk.py": [],
    "bench_appbench.py": [],
    "bench_api_program.py": [],
    "bench_rest_api.py": [],
    "bench_tabletop.py": ["--setups-per-type", "1"],
    "bench_virtualhome.py": [],
    "bench_sheets.py": [],
    "bench_search.py": ["--tasks", "2", "--batch-size", "2"],
    "bench_retriever.py": ["--latency-size", "small"],
    "bench_llm.py": ["--episodes", "4", "--batch-sizes", "1,4", "--max-new-tokens", "8"],
    "bench_first_eval.py": ["--episodes", "5"],
    "bench_llm_static_cache.py": ["--hidden-size", "128", "--layers", "2", "--max-new-tokens", "8", "--repeats", "1"],
    "bench_ray.py": ["--episodes", "8"],
    "bench_view.py": ["--episodes", "500"],
    "bench_fuzz.py": [],
    "calibrate_text_similarity.py": "a calibration script, run by hand when the similarity model changes",
    "compare_toolbench.py": "needs a checkout of OpenBMB/ToolBench (--original)",
}


def run(script: str, arguments: list[str], timeout: float) -> str:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, str(HERE / script), *arguments], capture_output=True, text=True,
                              timeout=timeout, cwd=HERE.parent)
        output, status = done.stdout + done.stderr, f"exit {done.returncode}"
    except subprocess.TimeoutExpired as expired:
        output = (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) else (
            expired.stdout or "")
        status = f"stopped after {timeout:.0f} s"
    lines = [line for line in output.splitlines() if "Warning" not in line and line.strip()]
    shown = "\n".join(lines[-40:])
    return (f"### {script} {' '.join(arguments)}\n\n{status}, {time.perf_counter() - start:.0f} s\n\n"
            f"```\n{shown}\n```")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="bench_scale.py at the issue's sizes")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per script")
    args = parser.parse_args()
    if not os.environ.get("TOOLGYM_DATA") and (HERE.parent.parent / "shared" / "data").is_dir():
        os.environ["TOOLGYM_DATA"] = str(HERE.parent.parent / "shared" / "data")
    scale = HERE / ".scale.md"
    subprocess.run([sys.executable, str(HERE / "bench_scale.py"), "--out", str(scale),
                    *(["--long"] if args.long else [])], cwd=HERE.parent)
    parts = [scale.read_text(encoding="utf-8") if scale.exists() else "# Scale\n\n(bench_scale.py failed)",
             "# Every benchmark, short mode"]
    scale.unlink(missing_ok=True)
    for script, arguments in SHORT.items():
        parts.append(f"### {script}\n\nnot run: {arguments}" if isinstance(arguments, str)
                     else run(script, arguments, args.timeout))
        RESULTS.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
        print(parts[-1].splitlines()[0], parts[-1].splitlines()[2], flush=True)
    missing = sorted(p.name for p in HERE.glob("*.py") if p.name not in SHORT and p.name not in (
        "run_all.py", "bench_scale.py"))
    if missing:
        parts.append("Not listed in run_all.py: " + ", ".join(missing))
        RESULTS.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
