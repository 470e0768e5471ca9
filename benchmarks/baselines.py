"""Baselines with real models: a packaged instruct model on every env, rendered as docs/baselines.md.

    python benchmarks/baselines.py                          # SmolLM2-135M-Instruct, the full run
    python benchmarks/baselines.py --quick                  # 3 episodes per env (a first look)
    python benchmarks/baselines.py --episodes 10 --envs ToolTalk-v0 CatAPI-v0
    python benchmarks/baselines.py --render                 # docs/baselines.md from the results files

Each env runs on its built-in tasks with its own prompt format and parser, greedy decoding.
The full run takes every task of a set of at most ``FULL_TASKS`` tasks and the first
``FULL_TASKS`` of a larger one; on a CPU the long multi-turn envs (``CPU_EPISODES``: a WebShop
episode is up to 15 model turns over pages of text) take fewer, so that the run fits in about an
hour on 2 cores with bfloat16 weights. Results files go to ``results/baselines/<model>-<cpu|cuda>/<env>.jsonl``
(one JSON line per episode, the format of ``toolgym eval --out``; git keeps its ``.jsonl.gz``
copy) with a ``.timing.json`` beside each; a file from an earlier, interrupted run is continued. The table shows the paper's
metrics (the env's own table columns), success, the share of steps whose action the env could
not read (``invalid_actions`` / steps), steps and seconds per episode, and the episodes each
row used, next to the numbers the papers publish for their models.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENVS = ("ToolTalk-v0", "AppBench-v0", "OpenWeather-v0", "CatAPI-v0", "HomeSearch-v0", "TripBooking-v0",
        "Tabletop-v0", "ToolLLM-v0", "WebShop-v0", "VirtualHome-v0", "GoogleSheets-v0", "Tau2-v0.max_steps_30",
        "Tau2-v0.banking_knowledge.bm25", "TauBench-v0", "BFCL-v0.single_turn.bfcl", "BFCL-v0.single_turn.chat",
        "BFCL-v0.multi_turn.bfcl", "BFCL-v0.multi_turn.chat")
FULL_TASKS = 100
# Episodes of the multi-turn envs on a CPU (many long model turns per episode); a GPU runs FULL_TASKS.
CPU_EPISODES = {"ToolTalk-v0": 30, "ToolLLM-v0": 10, "WebShop-v0": 10, "AppBench-v0": 30, "Tau2-v0.max_steps_30": 5,
                "Tau2-v0.banking_knowledge.bm25": 5, "TauBench-v0": 5, "BFCL-v0.multi_turn.bfcl": 5,
                "BFCL-v0.multi_turn.chat": 5}
# Rows that run one env with keywords and a prompt format other than its default: the row's name is
# ENV.PART.PART (its results file's name too), and a plain env id is a row of its defaults.
# BFCL-v0 runs in both of BFCL's action modes: its prompting format (``bfcl``: calls as
# ``[f(a=1)]`` text) and tool calls (``chat``: the tools in the chat template, JSON calls back).
VARIANTS = {
    # τ²'s 200 actions an episode are hours of a CPU for a model that never ends one (SmolLM2 ran
    # 70 minutes on 4 episodes without finishing); a truncated episode scores 0 at any cap.
    "Tau2-v0.max_steps_30": ("Tau2-v0", {"max_steps": 30}, None, None),
    # τ³'s knowledge domain under its one exact offline search (BM25), on built-in test tasks, capped alike
    "Tau2-v0.banking_knowledge.bm25": ("Tau2-v0", {"domain": "banking_knowledge", "retrieval_config": "bm25",
                                                   "split": "test", "max_steps": 30}, None, None),
    "BFCL-v0.single_turn.bfcl": ("BFCL-v0", {"category": "single_turn"}, "bfcl", "bfcl"),
    "BFCL-v0.single_turn.chat": ("BFCL-v0", {"category": "single_turn"}, "chat", "tool_call"),
    "BFCL-v0.multi_turn.bfcl": ("BFCL-v0", {"category": "multi_turn"}, "bfcl", "bfcl"),
    "BFCL-v0.multi_turn.chat": ("BFCL-v0", {"category": "multi_turn"}, "chat", "tool_call"),
}
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
    "Tau2-v0.max_steps_30": "pass^1 per domain and model (Barres et al. 2025, Table 2; the τ² leaderboard)",
    "Tau2-v0.banking_knowledge.bm25": "pass^1 per retrieval config and model (τ³-bench, banking_knowledge)",
    "TauBench-v0": "pass^1 per domain and model, GPT-4o airline 42, retail 60 (Yao et al. 2024)",
    "BFCL-v0.single_turn.bfcl": "accuracy per category and model, prompting and FC modes (BFCL v4 leaderboard)",
    "BFCL-v0.single_turn.chat": "accuracy per category and model, prompting and FC modes (BFCL v4 leaderboard)",
    "BFCL-v0.multi_turn.bfcl": "multi-turn accuracy per model (the BFCL v4 leaderboard)",
    "BFCL-v0.multi_turn.chat": "multi-turn accuracy per model (the BFCL v4 leaderboard)",
}


def row_setup(row: str) -> tuple[str, dict, str | None, str | None]:
    """The env id, its keywords, the prompt format and the parser of a table row (None: the env's)."""
    return VARIANTS.get(row, (row, {}, None, None))


# What reading the failures of the SmolLM2-135M-Instruct run showed (kept with the table it explains).
READING = """\
## These runs

**CPU** (2026-11-26): the project's 2-core Xeon (AMX), bfloat16 weights, batch size 8. A
first run took 30 episodes per env with one torch thread while GRPO runs shared the machine;
a second, on the free machine with two threads, continued the single-step envs to 100
episodes each (the first 100 built-in tasks), Tabletop from scratch after its task fix (below),
ToolTalk to 30 and WebShop to 10 (CPU_EPISODES). *s/ep* spans both runs: the free machine's
alone was 1.2 to 2.2 s per episode on CatAPI, OpenWeather, HomeSearch, VirtualHome and
Tabletop, 4 s on TripBooking and GoogleSheets, 100 s on ToolTalk and 60 s on WebShop. ToolLLM
stayed at 5 episodes and AppBench at 30 (its plan prompt is 4,000 tokens; 41 s an episode in
the first run), so the whole CPU table took about an hour and a half of machine time. The
single-step envs ran with 128 new tokens; TripBooking and GoogleSheets with 256, because the
oracle's own programs are longer than 128 of SmolLM2's tokens (TripBooking's median is 152, its
longest 232; GoogleSheets' longest 185): at 128, 24 of TripBooking's first 30 programs failed
on a last line the cap had cut. AppBench's row is at 128 (its longest oracle plan is 160
tokens; the model wrote no plan in any of its 30 answers, see below). The full run
(`python benchmarks/baselines.py`: 100 tasks or all per env, 256 tokens, no CPU caps) is for a
GPU.

The TauBench-v0, Tau2-v0 and BFCL-v0 rows (2026-11-27 and 28) ran later, with float32 weights
(no `--dtype`) and one or two threads on a machine other work kept busy (load 2 to 9), so their
*s/ep* are slow by a factor of up to three.

**GPU** (one H100, bfloat16, batch size 32, 256 tokens): only VirtualHome's 100 episodes
finished (86 s for all of them). The other envs' runs, started at the same time as 19 other
processes on the one GPU (tests, GRPO runs), ran out of GPU memory; the runner recorded each
failed episode as an error naming the env, task and step (`CatAPI-v0, task 2, step 1:
RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR ...`, VirtualHome's 3 errored
episodes), and the session's GPU time was spent before a rerun.

## Reading the failures (SmolLM2-135M-Instruct)

- **Formats that were the cause, and are fixed.** The ToolBench prompt as one system text made
  the model answer every task with a new `Task:` of its own (no action at all on OpenWeather,
  HomeSearch, TripBooking in a first run); the `toolbench` format now sends the demonstrations
  as chat turns, and the model writes curl commands and `API.*` programs. The token cap was
  the cause on TripBooking (above). Results files of VirtualHome episodes that failed could not
  be read back (their `first_failure` object was refused), which broke resuming and this page.
  In `mode=multi_step` (not in this table) HomeSearch and TripBooking showed whole programs as
  demonstrations, so the model answered with whole programs, which that mode refuses, at every
  turn; their demonstrations are now the turns they take, one statement each with the env's
  answer (README, training).
- **The REST envs.** CatAPI: 33% success; the failures are the model's: repetition loops
  (`-O -P -S -O -P ...`, `{"image_id":{"image_id":...`) and JSON bodies without shell quotes,
  which a shell would split (the env reads curl as a shell does: "expected one URL, got 5").
  OpenWeather: 7%; it writes an invented key (`appid=123456789`, a 401) where the prompt says
  `{API_KEY}`, and invents endpoints (`/data/3/air_pollution/forecast`, a 404).
- **The program envs.** HomeSearch: 4% success, 45% of the programs run (criteria F1 30%),
  the rest call functions that do not exist (`set_num_bathrooms`) or go on past `API.search()`
  until the cap cuts a name. TripBooking: 12% of the programs run, none books the right trip.
  VirtualHome: 59% of the programs are executable, LCS 33%, 9% reach the goal; the failures
  are preconditions (`Open(nightstand)` before walking to it). Tabletop, GoogleSheets: the model
  writes `def` functions, DataFrames built from made-up data and `del`, which the program
  envs refuse (`def is not allowed`, unterminated literals): 2 of 100 Tabletop programs and 1
  of 100 GoogleSheets programs ran, none reached the goal. Tabletop's first run had one
  success, on a task whose blocks already stood in a line at reset (the model's program was
  refused, and doing nothing succeeded): the task generator now rejects a setup whose goal
  already holds.
- **The conversational envs.** ToolTalk (tools as text in the system message: SmolLM2's
  template has no `tools`): in most episodes no tool call at all (JavaScript or Python about the
  task, or a made-up answer); where it does write a call, as a Python dict, it names a tool that
  does not exist (`Custom Alert`, `user_name`) and repeats it until the 20-turn cap. AppBench (a 4,000-token prompt): prose about the
  request or Python functions instead of a plan of API calls. WebShop: at every one of its 15
  steps the model writes the `search` tool's schema back (the tools are text in its system
  message) instead of a call, malformed JSON the env refuses. ToolLLM: plain sentences at every
  one of its 12 steps (made-up answers, or code about the task), which its own *invalid calls*
  counts (12 of 12), never a call or `Finish`.
- **Tau2-v0** (4 built-in airline tasks, the scripted user, capped at 30 actions: τ²'s 200
  were hours of CPU per episode, see `VARIANTS`): reward 0 in all 4, every episode ends at the
  cap. No tool call in any of the 120 turns: the model answers the customer with Python that calls
  a made-up URL with `requests`, or apologises that it cannot help ("as a tool, I don't have the
  ability..."), and repeats that answer turn after turn while the customer repeats the request.
- **Tau2-v0, banking_knowledge** (`Tau2-v0.banking_knowledge.bm25`: 3 built-in test tasks, the
  credit-limit template, τ³'s BM25 config and prompt, the scripted user, capped at 30 actions;
  float32, one thread, 2026-11-29 on the shared AMD EPYC VM): reward 0 in all 3, each at the cap.
  No tool call in any of the 93 turns, not even `KB_search`: the model answers as the bank in
  prose, refusing ("as a credit card issuer, I'm not able to change the current credit limit")
  or inventing a rule ("you can only earn a credit of $2,500.00 per year"), and repeats it while
  the customer repeats the request.
- **BFCL** (built-in tasks; rows per action mode: `bfcl` is BFCL's prompting format, calls as
  `[f(a=1)]` text; `chat` gives the tools to the chat template and reads JSON calls back, the
  function-calling mode as far as SmolLM2's template goes, which has no `tools`, so they are text
  in its system message). Single-turn: 6 of 42 in both modes, every one of them an `irrelevance`
  task (no call is the right answer, and the model never made one); in the other six categories
  it answered in prose (`The area of a circle is given by the formula πr^2...`) or wrote Python,
  JavaScript or a JSON object of its own instead of a call, which BFCL's decoder refuses
  (`Failed to decode AST: not a list of calls`). Multi-turn: no call in any turn of 3 episodes
  per mode; each turn's answer is code that uses `requests` against a made-up ticket URL, so the
  first turn whose ground truth changes state fails.
- The parsers read what was there: every refused action above holds no call or program in the
  env's format. Gemma 3 270M (`hf:gemma3-270m`) is Google's pretrained model, not the instruct
  one, and without a chat template it continues the transcript with markup (`<h2><h2>...`):
  no row.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="smollm2-135m-instruct",
                   help="an hf: model: a packaged short name, a .gguf path or a folder (default smollm2-135m-instruct)")
    p.add_argument("--envs", nargs="+", default=list(ENVS), metavar="ENV",
                   help="env ids or rows of VARIANTS such as BFCL-v0.multi_turn.bfcl (default: all rows)")
    p.add_argument("--episodes", type=int,
                   help=f"episodes per env (default: every task, at most {FULL_TASKS}; on a CPU at most CPU_EPISODES "
                        "for the long multi-turn envs)")
    p.add_argument("--quick", action="store_true", help=f"{QUICK_EPISODES} episodes per env")
    p.add_argument("--max-new-tokens", type=int, default=256, help="tokens per model turn (default 256)")
    p.add_argument("--batch-size", type=int, default=4, help="episodes stepped in lockstep (default 4)")
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's)")
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    p.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16"],
                   help="model weights (default auto: float32 for a GGUF file); bfloat16 is 4-7x faster on CPUs "
                        "with AMX or AVX-512 BF16")
    p.add_argument("--no-static-cache", action="store_true",
                   help="decode with transformers' dynamic cache on CUDA too (no compiled static cache)")
    p.add_argument("--results", default=str(ROOT / "results" / "baselines"), help="results folder")
    p.add_argument("--doc", default=str(ROOT / "docs" / "baselines.md"), help="the markdown table to write")
    p.add_argument("--render", action="store_true", help="only render --doc from the results files")
    p.add_argument("--no-progress", action="store_true")
    return p


def run(args) -> None:
    import toolgym  # noqa: F401
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import SamplingParams, TransformersBackend
    from toolgym.eval.batch import evaluate_batched
    from toolgym.eval.runner import select_tasks
    from toolgym.registry import check_env_args, make_env

    backend = TransformersBackend(args.model, device=args.device, dtype=args.dtype, threads=args.threads,
                                  progress=not args.no_progress, static_cache=False if args.no_static_cache else None)
    folder = Path(args.results) / f"{_slug(args.model)}-{'cuda' if backend.device.startswith('cuda') else 'cpu'}"
    folder.mkdir(parents=True, exist_ok=True)
    setting = {"device": _device_name(backend.device), "dtype": str(backend.model.dtype).removeprefix("torch."),
               "batch_size": args.batch_size, "max_new_tokens": args.max_new_tokens}
    for row in args.envs:
        env_id, env_kwargs, prompt_format, parser = row_setup(row)
        episodes = QUICK_EPISODES if args.quick else (args.episodes or FULL_TASKS)
        if not backend.device.startswith("cuda"):
            episodes = min(episodes, CPU_EPISODES.get(row, episodes))
        episodes = min(episodes, len(select_tasks(make_env(env_id, env_kwargs))))
        agent = LLMAgent(backend, env=check_env_args(env_id, env_kwargs), prompt_format=prompt_format, parser=parser,
                         sampling=SamplingParams(max_new_tokens=args.max_new_tokens))
        out = results_file(folder, row)
        start = time.perf_counter()
        records, _, stats = evaluate_batched(env_id, agent, f"hf:{args.model}", env_kwargs, seed=0, episodes=episodes,
                                             out=out, progress=not args.no_progress, batch_size=args.batch_size,
                                             resume=out.exists() and out.stat().st_size > 0)
        timing = _read_json(out.with_suffix(".timing.json")) or {"seconds": 0.0, "episodes": 0}
        # A continued run adds its command and threads to those of the runs before it (s/ep spans them all).
        timing.update(setting, commands=list(dict.fromkeys([*timing.get("commands", []), _command(args)])),
                      threads=sorted({*timing.get("threads", []), *([args.threads] if args.threads else [])}))
        timing["seconds"] += time.perf_counter() - start
        timing["episodes"] += stats["episodes"]
        out.with_suffix(".timing.json").write_text(json.dumps(timing))
        _pack(out)
        print(f"{row}: {len(records)} episodes, {stats['episodes']} run now in {stats['seconds']:.0f}s",
              file=sys.stderr)


def results_file(folder: Path, env_id: str) -> Path:
    """The env's results file, to run into and read. Git keeps only its gzip copy (the token ids of
    every prompt make the plain file several MB), unpacked here when the plain file is missing."""
    path = folder / f"{env_id}.jsonl"
    packed = path.with_suffix(".jsonl.gz")
    if not path.exists() and packed.exists():
        path.write_bytes(gzip.decompress(packed.read_bytes()))
    return path


def _pack(path: Path) -> None:
    """The gzip copy of a results file that git keeps (no timestamp: the same file packs the same)."""
    path.with_suffix(".jsonl.gz").write_bytes(gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))


def _device_name(device: str) -> str:
    """The accelerator's name, or the CPU's model and core count."""
    import platform

    import torch

    if device.startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    model = next((line.split(":", 1)[1].strip() for line in _cpuinfo() if line.startswith("model name")),
                 platform.processor() or "CPU")
    return f"{model}, {os.cpu_count()} cores"


def _cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []


def summarise(row: str, records: list[dict], timing: dict | None) -> dict:
    """One row of the table: the paper's metrics (the env's table columns), success, invalid share."""
    from toolgym.envs.base import INVALID_ACTIONS
    from toolgym.registry import make_env

    env_id, env_kwargs, _, _ = row_setup(row)
    env = make_env(env_id, env_kwargs).unwrapped
    scored = [r["metrics"] for r in records if r.get("metrics")]
    steps = sum(len(r.get("trajectory") or []) for r in records)
    invalid = sum(int(m.get(INVALID_ACTIONS) or 0) for m in scored)
    paper = []
    for column in env.table_columns:
        value = column.value(scored) if scored else float("nan")
        paper.append(f"{column.title} {100 * value:.1f}" if column.percent else f"{column.title} {value:.3f}")
    successes = [m.get("success") for m in scored if m.get("success") is not None]
    seconds = timing["seconds"] / timing["episodes"] if timing and timing.get("episodes") else None
    return {"env": row, "max_new_tokens": (timing or {}).get("max_new_tokens"), "episodes": len(records),
            "errors": sum(1 for r in records if r.get("error")),
            "paper": "; ".join(paper), "success": 100 * sum(successes) / len(successes) if successes else None,
            "invalid_share": 100 * invalid / steps if steps else None,
            "steps": steps / len(records) if records else None, "seconds": seconds}


def render(args) -> str:
    """The page: one table per device that has results (CPU first), then the reading of the failures."""
    lines = [f"# Baselines: `hf:{args.model}` on every env", "",
             "Built-in tasks, each env's own prompt format and parser, greedy decoding. "
             "*episodes*: how many of the env's built-in tasks the row used (the first N in task order). "
             "*invalid*: steps whose action the env could not read (`info['metrics']['invalid_actions']`) "
             "over all steps. *paper metrics*: the env's table columns over the scored episodes. "
             "*s/ep*: wall-clock seconds per episode of the run (episodes run in lockstep batches).", ""]
    for device in ("cpu", "cuda"):
        folder = Path(args.results) / f"{_slug(args.model)}-{device}"
        if folder.is_dir():
            lines += _device_section(args, folder)
    return "\n".join(lines) + "\n" + READING


def _device_section(args, folder: Path) -> list[str]:
    from toolgym.eval.runner import read_results

    rows, missing, settings = [], [], []
    for row in args.envs:
        path = results_file(folder, row)
        try:
            records = [r for r in read_results(path, torn_tail_ok=True) if "task_id" in r]
        except (OSError, ValueError):  # not run yet, or no episode finished
            missing.append(row)
            continue
        timing = _read_json(path.with_suffix(".timing.json"))
        rows.append(summarise(row, records, timing))
        if timing and timing.get("device"):
            settings.append(timing)

    def cell(value, digits=1):
        return "–" if value is None else f"{value:.{digits}f}"

    first = settings[0] if settings else {}
    title = "GPU" if folder.name.endswith("-cuda") else "CPU"
    lines = [f"## {title}: {first.get('device', 'unknown device')}", ""]
    if first:
        # Each command as run, with its --envs: the rows come from runs of different settings.
        commands = list(dict.fromkeys(c for t in settings for c in t["commands"]))
        threads = sorted({n for t in settings for n in t["threads"]})
        lines += [f"{first['dtype']} weights, batch size {first['batch_size']}"
                  + (f", {' or '.join(map(str, threads))} torch thread" + "s" * (threads[-1] > 1) if threads else "")
                  + ". Made with", "",
                  "```", *commands, "```", ""]
    lines += ["| env | episodes | new tokens | paper metrics | success % | invalid % | steps/ep | s/ep | published "
              "(their models, official tasks) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        errors = f" ({row['errors']} errored)" if row["errors"] else ""
        lines.append(f"| {row['env']} | {row['episodes']}{errors} | {row['max_new_tokens'] or '–'} | {row['paper']} | "
                     f"{cell(row['success'])} | {cell(row['invalid_share'])} | {cell(row['steps'])} | "
                     f"{cell(row['seconds'])} | {PUBLISHED.get(row['env'], '')} |")
    if missing:
        lines += ["", f"No finished episode yet (no row): {', '.join(missing)}; the same command continues the run."]
    return lines + [""]


def _command(args) -> str:
    parts = ["python benchmarks/baselines.py", f"--model {args.model}"]
    if args.quick:
        parts.append("--quick")
    elif args.episodes:
        parts.append(f"--episodes {args.episodes}")
    if args.max_new_tokens != 256:
        parts.append(f"--max-new-tokens {args.max_new_tokens}")
    for flag, value in (("--device", args.device), ("--dtype", args.dtype)):
        if value != "auto":
            parts.append(f"{flag} {value}")
    if args.threads:
        parts.append(f"--threads {args.threads}")
    if args.batch_size != 4:
        parts.append(f"--batch-size {args.batch_size}")
    if args.no_static_cache:
        parts.append("--no-static-cache")
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
