"""The ``toolgym`` command: ``list``, ``eval``, ``report``, ``view``, ``play``, ``complexity``, ``judge``,
``serve`` and ``rescore``."""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from collections import Counter

import gymnasium as gym

import toolgym
from toolgym.untrusted import escape

LLM_PREFIXES = ("hf", "openai")  # agents that go through the batched runner
EXIT_INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C (128 + SIGINT)

ENV_EPILOG = "environments: " + ", ".join(toolgym.ENV_IDS)

AGENT_HELP = ("oracle | random | fuzz | replay:FILE | hf:MODEL | openai:URL#MODEL | your own class as module.path:Class "
              "or path/to/file.py:Class (it implements reset(observation, info) and act(observation, info) -> "
              "action, and is built as Class(env) or, if it takes no argument, Class())")

# What to type in `play`, by the env's action format (toolgym.agents.llm.prompts.defaults_for),
# for envs that do not say it themselves with an `action_hint` attribute.
ACTION_HINTS = {
    "tool_call": 'a tool call, as JSON {"name": ..., "arguments": {...}} or as Name(key=value), or a text '
                 'reply to the user',
    "curl": "one curl command, as in the API documentation above, e.g. curl -X GET 'https://...'",
    "program": "a program of API calls, one statement per line, as in the API documentation above",
    "plan": "the whole plan, one API call per line, in the format the instructions above show",
    "react": "Thought: ..., then Action: ToolName and Action Input: {JSON arguments}",
    "text": "a text reply",
}
MULTI_STEP_HINT = "one statement per step (for example one API call); the instructions above say how to finish"


def parse_kwarg(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _env_kwargs(args) -> dict:
    kwargs = dict(args.env_kwarg or [])
    for flag in ("tasks", "split", "data_dir", "scoring", "mode"):
        value = getattr(args, flag)
        if value is not None:
            kwargs[flag] = value
    return kwargs


def _add_env_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="the environment (see the list below)")
    p.add_argument("--tasks", choices=["built-in", "official"],
                   help="task source: toolgym's generated tasks (default) or the benchmark's own files")
    p.add_argument("--split", help="subset of the task set, e.g. easy / hard (ToolTalk), ss / sm / ms / mm "
                                   "(AppBench), seen / unseen (Tabletop); default: all")
    p.add_argument("--data-dir", dest="data_dir",
                   help="folder of the official data for --tasks official (default: $TOOLGYM_DATA)")
    p.add_argument("--scoring", help="paper (default: the paper's definition) or paper_compat "
                                     "(the released evaluator's numbers)")
    p.add_argument("--mode", help="plan / interactive (AppBench), single_step / multi_step (HomeSearch, "
                                  "TripBooking, Tabletop); default: the env's first")
    p.add_argument("--env-kwarg", action="append", type=parse_kwarg, metavar="KEY=VALUE",
                   help="any keyword of gym.make (repeatable); VALUE is JSON or a plain string")


def _subparser(sub, name: str, help_text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, description=help_text, epilog=ENV_EPILOG)


DATA_CHECK_HELP = ("check an official data folder for ENV in its original layout: each required file or folder "
                   "present or missing, and where it comes from upstream; the digest of the files a run reads. "
                   "Exit code 0 when complete, 1 when something is missing")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolgym", description=__doc__, epilog=ENV_EPILOG)
    parser.add_argument("--version", action="version", version=toolgym.__version__,
                        help="print toolgym's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _subparser(sub, "list", "list the registered envs")

    ev = _subparser(sub, "eval", "evaluate an agent on a task set, print the paper's table and write "
                                 "one JSON line per episode")
    _add_env_flags(ev)
    ev.add_argument("--agent", required=True, help=AGENT_HELP)
    ev.add_argument("--seed", type=int, default=0, help="seed of every episode's reset and of the agent (default 0)")
    ev.add_argument("--episodes", type=int, help="run only the first N tasks of the task set (default: all)")
    ev.add_argument("--out", help="results file: one JSON line per episode, written as each episode ends")
    existing = ev.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true",
                          help="continue the run in --out: keep its finished episodes, run the others "
                               "(refused if --out is from other settings)")
    existing.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--save-as", action="append", metavar="FORMAT:PATH",
                    help="after the run, export --out as the original's results (tau2, tau-bench or bfcl; see "
                         "`toolgym export`) to PATH (repeatable)")
    ev.add_argument("--trials", type=int, metavar="K",
                    help="run each task K times (trial t with seed SEED+t) and report pass^1..pass^K, "
                         "τ-bench's reliability estimate (default 1; an LLM agent under a benchmark's protocol "
                         "profile: its leaderboard's, τ²'s 4 under tau2); with --resume, only the (task, trial) pairs "
                         "--out lacks are played")
    ev.add_argument("--env-url", metavar="URL",
                    help="run the episodes on a `toolgym serve ENV_ID --protocol openenv` server (its env "
                         "arguments are checked against these); the oracle needs the server's --oracle")
    ev.add_argument("--strategy", metavar="react|react@N|dfsdt",
                    help="search over the env's snapshot()/restore() (ToolLLM's decision procedures): react "
                         "(one chain), react@N (up to N chains, the first that answers kept) or dfsdt (ToolLLM's "
                         "depth-first decision tree: width 2, 12 steps a chain, 200 LLM calls); the tree is "
                         "written to each record's 'search'. Default: the agent steps the env once per action")
    ev.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                    help="spread the episodes over a Ray cluster (the [ray] extra): env workers as Ray actors, "
                         "results streamed to --out; without ADDRESS a local Ray. LLM agents go through "
                         "openai:URL[,URL2...]#MODEL servers, one endpoint per worker in turn")
    ev.add_argument("--ray-workers", type=int, metavar="N", help="Ray env workers (default: the cluster's CPUs)")
    llm = ev.add_argument_group("LLM agents (hf:, openai:)")
    llm.add_argument("--batch-size", type=int, default=8, help="episodes stepped in lockstep (default 8)")
    llm.add_argument("--max-concurrency", type=int, help="openai: requests in flight at once (default 8)")
    llm.add_argument("--temperature", type=float, default=0.0, help="0 is greedy decoding (default)")
    llm.add_argument("--top-p", type=float,
                     help="nucleus sampling threshold (default: not sent to openai: servers; 1.0 for hf:)")
    llm.add_argument("--max-new-tokens", type=int,
                     help="tokens per completion at most (default: openai: sends none; hf: the env's longest "
                          "oracle action with the scripted user, in the model's tokens, with a margin)")
    llm.add_argument("--prompt-format", help="chat | tooltalk | toolbench | messages | plain | react | tau2 | "
                                             "tau-bench | bfcl-fc | bfcl-fc-responses | bfcl-prompting | "
                                             "bfcl-prompting-responses (default: the env's; on official tasks the "
                                             "benchmark's own protocol where toolgym has it)")
    llm.add_argument("--tool-choice", metavar="auto|required|NAME",
                     help="ask for tool calls: required (every completion is one or more calls) or a tool's name; "
                          "hf: models decode them under a grammar of the tools' schemas (llguidance, the [models] "
                          "extra); needs --prompt-format chat or tooltalk. Default: none sent")
    llm.add_argument("--parser", help="tool_call | react | curl | program | plan | text (default: the env's)")
    llm.add_argument("--backend-kwarg", action="append", type=parse_kwarg, metavar="KEY=VALUE",
                     help="backend option, e.g. device=cuda, dtype=bfloat16, gguf_file=model.gguf, timeout=60, "
                          "max_retries=2 (repeatable)")
    llm.add_argument("--threads", type=int, metavar="N",
                     help="hf: CPU threads for torch (default: the cores not busy now, at least 1; more threads "
                          "than free cores is slower)")

    rp = _subparser(sub, "report", "reprint the paper's table of each results file, with the run's settings and "
                                   "whether it is leaderboard-comparable, then the tables across the files (BFCL's "
                                   "leaderboard columns, τ's pass^k per domain); a warning (on stderr) for "
                                   "each provenance key (toolgym version and commit, task data source, digest "
                                   "and folder) in which runs of one env differ")
    rp.add_argument("results", metavar="RESULTS.jsonl", nargs="+", help="results files written by toolgym eval --out")
    rp.add_argument("--price-in", type=float, metavar="USD", help="price per million prompt tokens: report the cost")
    rp.add_argument("--price-out", type=float, metavar="USD", help="price per million completion tokens")
    rp.add_argument("--data-dir", dest="data_dir", metavar="DIR",
                    help="the official data to make the envs of official runs with, in place of the folder the file "
                         "names (a warning when its tasks' digest differs from the run's; default: the file's "
                         "folder with --trust-env-kwargs, else $TOOLGYM_DATA)")
    rp.add_argument("--trust-env-kwargs", action="store_true",
                    help="make the envs with the file's env ids and env_kwargs as they are (user=, judge=, "
                         "data_dir=, db_url=, module:Env ids ...); without it a results file, which may come from "
                         "anyone, gives only plain values and cannot choose code to import or a path")

    vw = _subparser(sub, "view", "look at results files in a browser: each run's summary (the paper table, pass^k, "
                                 "trials, errors, tokens, charts), runs side by side with per-task wins and losses, "
                                 "and episodes with filters, each as a timeline of actions, observations, rewards, "
                                 "the LLM's completions and what it changed in the world")
    vw.add_argument("results", metavar="RESULTS.jsonl", nargs="+",
                    help="results files written by toolgym eval --out; several are compared side by side, the "
                         "first one's episodes listed")
    vw.add_argument("--html", metavar="OUT.html", help="write the page to one static HTML file instead of serving it")
    vw.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1: this machine only)")
    vw.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")

    cx = _subparser(sub, "complexity", "API selection complexity of a task set and its demo pool "
                                       "(Xu et al. 2023, appendix D)")
    _add_env_flags(cx)
    cx.add_argument("-k", type=int, default=3, help="demonstrations in the prompt (default 3)")

    play = _subparser(sub, "play", "be the agent yourself in a terminal session")
    _add_env_flags(play)
    play.add_argument("--seed", type=int, default=0, help="seed of the first reset (default 0)")
    play.add_argument("--task-id", help="play this task (default: one drawn from the seed)")

    jd = _subparser(sub, "judge", "ToolEval (ToolLLM's judge): pass rate and SoPR per group of a results file, and "
                                  "its win rate against another (ToolLLM-v0 results; built-in tasks keep their "
                                  "programmatic pass, and the judge's agreement with it is shown)")
    jd.add_argument("results", metavar="RESULTS.jsonl", help="a results file written by toolgym eval --out")
    jd.add_argument("--against", metavar="OTHER.jsonl", help="reference run for the win rate")
    jd.add_argument("--agent", required=True, help="the judge: hf:MODEL | openai:URL#MODEL | module:Class or "
                                                   "file.py:Class with generate(requests, sampling)")
    jd.add_argument("--judgements", type=int, default=3, help="judgements per query, majority kept (default 3)")
    jd.add_argument("--scoring", default="paper", choices=["paper", "paper_compat"],
                    help="paper (default): an unsolved answer never passes; paper_compat: ToolEval's rule, an "
                         "unsolved answer to a query judged unsolvable passes")
    jd.add_argument("--seed", type=int, default=0, help="seed of ToolEval's coin flips and of sampling (default 0)")
    jd.add_argument("--temperature", type=float, default=0.0, help="judge decoding (default 0: greedy)")
    jd.add_argument("--max-new-tokens", type=int, default=256, help="tokens per judgement at most (default 256)")
    jd.add_argument("--backend-kwarg", action="append", type=parse_kwarg, metavar="KEY=VALUE",
                    help="backend option, e.g. device=cuda (repeatable)")

    rs = _subparser(sub, "rescore", "replay the runs of a τ-bench or τ²-bench results file (the original harness's "
                                    "trajectories) through toolgym's env and compare each run's reward with the "
                                    "recorded one; pass^k per domain from both")
    rs.add_argument("file", metavar="FILE",
                    help="a results file written by τ-bench (run.py) or τ²-bench (tau2 run), or a folder of BFCL's "
                         "result/ and score/ files (or toolgym export's)")
    rs.add_argument("--format", required=True, choices=["tau-bench", "tau2", "bfcl"], dest="file_format",
                    help="tau-bench: a JSON list of {task_id, trial, reward, info, traj}, replayed in TauBench-v0; "
                         "tau2: τ²'s results JSON with simulations[], replayed in Tau2-v0; bfcl: a folder with "
                         "result/<model>/ and score/<model>/, each entry replayed in BFCL-v0 and compared with "
                         "BFCL's verdict")
    rs.add_argument("--domain", help="the domain (default: the file's; τ-bench files say it only in their policy)")
    rs.add_argument("--split", help="tau-bench: the task split the runs used (default test)")
    rs.add_argument("--data-dir", dest="data_dir", help="folder of the official data (default: $TOOLGYM_DATA)")
    rs.add_argument("--judge", metavar="hf:MODEL|openai:URL#MODEL",
                    help="tau2: a model to judge NL assertions (default: the verdicts the file recorded)")
    rs.add_argument("--fresh-tasks", action="store_true",
                    help="tau2: grade against today's tasks of the runs' ids (default: the tasks the file holds, "
                         "as tau2 evaluate-trajs does)")
    rs.add_argument("--out", help="write toolgym's results file (one JSON line per run, then a pass^k line)")
    rs.add_argument("--overwrite", action="store_true", help="replace an existing --out")

    ex = _subparser(sub, "export", "write a toolgym results file (eval --out) as the original harness's "
                                   "results: τ²-bench's results JSON, τ-bench's results list or BFCL's result and "
                                   "score files")
    ex.add_argument("file", metavar="RUN.jsonl", help="a results file written by toolgym eval --out")
    ex.add_argument("--format", required=True, choices=["tau2", "tau-bench", "bfcl"], dest="file_format",
                    help="tau2: for tau2 view / evaluate-trajs (Tau2-v0 runs); tau-bench: v1's results list "
                         "(TauBench-v0); bfcl: result/<model>/... for bfcl evaluate, and score/<model>/ (BFCL-v0)")
    ex.add_argument("--out", required=True, help="the file to write (bfcl: the folder)")
    ex.add_argument("--data-dir", dest="data_dir", help="folder of the official data (default: $TOOLGYM_DATA)")
    ex.add_argument("--bfcl-model", metavar="NAME",
                    help="bfcl: the BFCL model whose handler decodes the results (a name ending in -FC: function "
                         "calling; default gpt-4.1-2025-04-14-FC)")
    dm = _subparser(sub, "demos", "write the oracle's solved episodes as a chat dataset: one JSON line per episode "
                                  "with 'messages' (OpenAI form: tool_calls and tool messages) and 'tools', for "
                                  "datasets.load_dataset('json', ...) and TRL's SFTTrainer")
    _add_env_flags(dm)
    dm.add_argument("--episodes", type=int, help="episodes to write (default: every task the oracle solves)")
    dm.add_argument("--seed", type=int, default=0, help="order in which tasks are drawn, and the resets' seed "
                                                       "(default 0)")
    dm.add_argument("--out", required=True, help="the JSON-lines file to write")

    cp = _subparser(sub, "compare", "two runs on the same tasks, task by task: each one's accuracy per category and "
                                    "overall, with McNemar's exact test on the tasks only one of them solved "
                                    "(records paired by env, category, task id and trial)")
    cp.add_argument("run_a", metavar="RUN_A.jsonl", help="a results file written by toolgym eval --out")
    cp.add_argument("run_b", metavar="RUN_B.jsonl", help="the run to compare it with, on the same tasks")

    dt = _subparser(sub, "data", "official data folders")
    data_sub = dt.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    dc = data_sub.add_parser("check", help=DATA_CHECK_HELP, description=DATA_CHECK_HELP)
    dc.add_argument("env_id", metavar="ENV", help="an env id (toolgym list)")
    dc.add_argument("--data-dir", dest="data_dir", metavar="DIR",
                    help="the data root (the folder that holds the benchmark's folder) or the benchmark's folder "
                         "itself (default: $TOOLGYM_DATA)")

    sv = _subparser(sub, "serve", "serve an env's html pages so a person can use it in a browser "
                                  "(WebShop-v0, the way its human demonstrations were collected), or any env "
                                  "to programs: --protocol openenv (OpenEnv's WebSocket sessions) or mcp")
    _add_env_flags(sv)
    sv.add_argument("--protocol", choices=["openenv", "mcp"],
                    help="openenv: a session per client at ws://HOST:PORT/ws (toolgym.remote.make, OpenEnv's "
                         "EnvClient); mcp: the env's tools over MCP, stdio unless --port is given "
                         "(default: the html pages)")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=int, help="port (default 3000 for the html pages, 8000 for openenv; "
                                             "mcp: Streamable HTTP at /mcp on this port instead of stdio)")
    sv.add_argument("--max-sessions", type=int, default=1024, help="sessions at once (default 1024)")
    sv.add_argument("--max-message-bytes", type=int, default=1 << 20,
                    help="longest client message read (default 1 MiB)")
    sv.add_argument("--step-timeout", type=float, default=10.0, help="seconds a reset or step may take (default 10)")
    sv.add_argument("--idle-timeout", type=float, default=600.0,
                    help="seconds without a message before a session is closed (default 600)")
    sv.add_argument("--oracle", action="store_true",
                    help="openenv: send the oracle's next action with each result (for tests and benchmarks: "
                         "it gives the answer away)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (2: bad configuration, 1: the run failed, 130: Ctrl-C)."""
    args = build_parser().parse_args(argv)
    from toolgym.eval.batch import BackendUnavailable, EpisodesFailed

    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        hint = f"; run again with --resume to continue {args.out}" if getattr(args, "out", None) else ""
        print(f"\ntoolgym: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BackendUnavailable as exc:
        slow = " (a slow server needs a longer timeout: --backend-kwarg timeout=SECONDS)" if "timed out" in str(exc) \
            else ""
        print(f"toolgym: error: every request to the backend failed: {escape(exc)}{slow}", file=sys.stderr)
        return 1
    except EpisodesFailed as exc:
        print(f"toolgym: error: {escape(exc)}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, OSError, ImportError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"toolgym: error: {escape(message, keep_newlines=True)}", file=sys.stderr)  # it may quote a file
        return 2


def compare_command(args) -> int:
    """``toolgym compare``: two runs' accuracy per category with McNemar's exact p (:mod:`toolgym.eval.compare`)."""
    from toolgym.eval.compare import compare_lines
    from toolgym.eval.runner import read_results

    print("\n".join(compare_lines(args.run_a, read_results(args.run_a), args.run_b, read_results(args.run_b))))
    return 0


def demos_command(args) -> int:
    """``toolgym demos``: oracle episodes as a chat dataset (:mod:`toolgym.train.demos`)."""
    from toolgym.train.demos import write_demonstrations

    count = write_demonstrations(args.out, args.env_id, _env_kwargs(args), args.episodes, args.seed)
    print(f"wrote {count} demonstrations of {args.env_id} to {args.out}")
    return 0


def list_envs(args) -> int:
    """``toolgym list``: the registered ids and their classes."""
    from toolgym.registry import env_ids

    for env_id in env_ids():
        print(f"{env_id:18s} {gym.spec(env_id).entry_point}")
    return 0


def eval_command(args) -> int:
    """``toolgym eval``: the sequential runner, or the batched one for LLM agents; then ``--save-as``."""
    from toolgym.eval.runner import check_out_options

    check_out_options(args.out, args.resume, args.overwrite)  # before a model is loaded
    save_as = _save_as(args)
    code = _run_eval(args)
    from toolgym.eval.export import export_file

    for file_format, path in save_as if code == 0 else ():
        print(export_file(args.out, file_format, path, data_dir=args.data_dir))
    return code


def _save_as(args) -> list[tuple[str, str]]:
    """``eval --save-as``'s exports, checked before the run (they export --out)."""
    from toolgym.eval.export import parse_save_as

    exports = [parse_save_as(text) for text in args.save_as or ()]
    if exports and not args.out:
        raise ValueError("--save-as exports the run's results file: give --out too")
    return exports


def _run_eval(args) -> int:
    from toolgym.eval.runner import evaluate

    if args.env_url is not None:
        return eval_remote(args)
    if args.trials is None:
        args.trials = _default_trials(args)
    if args.trials != 1:
        return eval_trials(args)
    if args.strategy is not None:
        return eval_search(args)
    if args.ray is not None:
        return eval_ray(args)
    if args.agent.partition(":")[0] in LLM_PREFIXES:
        return eval_llm(args)
    records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), seed=args.seed, episodes=args.episodes,
                            out=args.out, progress=not args.no_progress, resume=args.resume,
                            overwrite=args.overwrite)
    code = print_results(env, records)
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run")
    return code


def eval_remote(args) -> int:
    """``eval --env-url``: the sequential runner, each episode on the server's session."""
    from toolgym.eval.runner import evaluate
    from toolgym.registry import env_class

    if args.strategy is not None or args.ray is not None:
        raise ValueError("--env-url runs the episodes one after another on the server; drop --strategy and --ray")
    try:
        import toolgym.remote
    except ImportError as exc:
        raise ImportError(f"--env-url needs the serve extra: pip install 'toolgym[serve]' ({exc})") from exc
    env = toolgym.remote.make(args.env_url, args.env_id, **_env_kwargs(args))
    options = None
    if args.agent.partition(":")[0] in LLM_PREFIXES:  # the LLM flags, as the other runners take them
        options = {"temperature": args.temperature, "top_p": args.top_p, "max_new_tokens": args.max_new_tokens,
                   "max_concurrency": args.max_concurrency, "parser": args.parser, "tool_choice": args.tool_choice,
                   "prompt_format": _profile(args, env_class(args.env_id)),
                   "backend_kwargs": dict(args.backend_kwarg or [])}
    try:
        records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), seed=args.seed, episodes=args.episodes,
                                out=args.out, progress=not args.no_progress, resume=args.resume,
                                overwrite=args.overwrite, env=env, agent_options=options)
        code = print_results(env, records)
    finally:
        env.close()
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run on {args.env_url}")
    return code
def eval_trials(args) -> int:
    """``eval --trials K``: every task K times, trial t reset with seed ``--seed`` + t (an LLM
    agent plays every trial in the same batches, its sampling one stream from ``--seed``); the
    table gains pass^1..pass^K, and ``--out`` gets the episodes (each with its ``trial``, written
    as it ends) and, once the run is over, a last line with the pass^k values per subset.
    ``--resume`` plays only the (task, trial) pairs the file lacks."""
    from toolgym.eval.passk import pass_hat_table
    from toolgym.eval.runner import SUMMARY_KEY, evaluate, read_results, rewrite_results

    if args.trials < 1:
        raise ValueError(f"--trials must be 1 or more, got {args.trials}")
    if args.strategy is not None or args.ray is not None:
        raise ValueError("--trials runs the plain and LLM runners; it does not combine with --strategy or --ray")
    options = {"seed": args.seed, "episodes": args.episodes, "out": args.out, "progress": not args.no_progress,
               "resume": args.resume, "overwrite": args.overwrite, "trials": args.trials}
    if args.agent.partition(":")[0] in LLM_PREFIXES:  # every trial of every task in the same batches
        from toolgym.eval.batch import evaluate_batched

        records, env, _ = evaluate_batched(args.env_id, _llm_agent(args), args.agent, _env_kwargs(args),
                                           batch_size=args.batch_size, **options)
    else:
        records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), **options)
    if args.out:  # records of other tasks the file kept, this run's in its order (a resumed run appended
        # its new ones), then pass^k
        ours = {(r["task_id"], r["trial"]) for r in records}
        others = [r for r in read_results(args.out) if (r["task_id"], r.get("trial")) not in ours]
        rewrite_results(args.out, [*others, *records, {"env": args.env_id, "agent": args.agent, "seed": args.seed,
                                                       "trials": args.trials, SUMMARY_KEY: "pass^k",
                                                       "pass^k": pass_hat_table(records)}])
        print(f"{args.out}: {len(records)} episode(s) of this run ({args.trials} trials per task)")
    return print_results(env, records)


def eval_ray(args) -> int:
    """``eval --ray``: the episodes on Ray actors, the same records and resume rule as a local run."""
    from toolgym.eval.ray_runner import evaluate_ray

    options = {"temperature": args.temperature, "top_p": args.top_p, "max_new_tokens": args.max_new_tokens,
               "max_concurrency": args.max_concurrency, "prompt_format": args.prompt_format,
               "parser": args.parser, "backend_kwargs": dict(args.backend_kwarg or [])}
    is_llm = args.agent.partition(":")[0] in LLM_PREFIXES
    records, env, stats = evaluate_ray(args.env_id, args.agent, _env_kwargs(args), seed=args.seed,
                                       episodes=args.episodes, out=args.out, progress=not args.no_progress,
                                       resume=args.resume, overwrite=args.overwrite, address=args.ray,
                                       num_workers=args.ray_workers, agent_options=options if is_llm else {})
    code = print_results(env, records)
    restarted = f", {stats['restarts']} worker(s) replaced" if stats["restarts"] else ""
    print(f"{stats['episodes']} episode(s) in {stats['seconds']:.1f}s on {stats['workers']} Ray "
          f"worker(s){restarted}")
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run")
    return code


def eval_search(args) -> int:
    """``eval --strategy``: ReAct, ReAct@N or DFSDT over the env's snapshots; LLM agents batched."""
    from toolgym.agents.search import parse_strategy
    from toolgym.eval.batch import evaluate_search

    strategy = parse_strategy(args.strategy)
    agent = _llm_agent(args) if args.agent.partition(":")[0] in LLM_PREFIXES else None
    records, env, stats = evaluate_search(args.env_id, args.agent, strategy, agent=agent, env_kwargs=_env_kwargs(args),
                                          seed=args.seed, episodes=args.episodes, out=args.out,
                                          progress=not args.no_progress, batch_size=args.batch_size,
                                          resume=args.resume, overwrite=args.overwrite)
    code = print_results(env, records)
    print(f"{stats['episodes']} episode(s) with {strategy.name} in {stats['seconds']:.1f}s: {stats['llm_calls']} "
          f"LLM calls in {stats['generate_calls']} batched calls")
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run")
    return code


def _llm_agent(args):
    """The LLM agent of ``eval``'s options (``hf:`` / ``openai:``), checked before the model loads."""
    from toolgym.agents import make_agent
    from toolgym.llm import BackendError
    from toolgym.registry import check_env_args

    env_class = check_env_args(args.env_id, _env_kwargs(args))
    backend_kwargs = dict(args.backend_kwarg or [])
    if args.agent.startswith("hf:"):
        backend_kwargs.setdefault("progress", not args.no_progress)
        backend_kwargs.setdefault("threads", cpu_threads(args.threads))
    # a server gets no seed of toolgym's own (a benchmark's protocol sends its own seeds); hf: samples from it
    seed = args.seed if args.agent.startswith("hf:") else None
    options = {"seed": seed, "temperature": args.temperature, "top_p": args.top_p,
               "max_new_tokens": args.max_new_tokens, "max_concurrency": args.max_concurrency,
               "prompt_format": _profile(args, env_class), "parser": args.parser, "backend_kwargs": backend_kwargs,
               "tool_choice": args.tool_choice}
    try:
        agent = make_agent(args.agent, env_class, **options)
    except BackendError as exc:
        raise ValueError(str(exc)) from exc
    except TypeError as exc:  # a --backend-kwarg the backend does not take
        raise ValueError(f"{args.agent}: {exc} (check --backend-kwarg)") from exc
    if args.max_new_tokens is None and args.agent.startswith("hf:"):
        import dataclasses

        longest = longest_oracle_action(scripted_env(args.env_id, _env_kwargs(args)),
                                        getattr(agent.backend, "tokenizer", None))
        # Calls under a grammar end only when their JSON closes: room for its bounds (toolgym.llm.constrained).
        budget = 1024 if args.tool_choice not in (None, "auto", "none") else min(1024, longest + longest // 4 + 32)
        agent.sampling = dataclasses.replace(agent.sampling, max_new_tokens=budget)
        if not args.no_progress:  # with the progress display; the results record it (decoding)
            print(f"toolgym: at most {agent.sampling.max_new_tokens} new tokens a step (the oracle's longest action "
                  f"on {args.env_id} is {longest} tokens; --max-new-tokens sets it)", file=sys.stderr)
    return agent


def _profile(args, env_class) -> str | None:
    """The LLM agent's prompt format: ``--prompt-format``, else on official tasks the benchmark's
    own protocol where toolgym has it (None: the env's default format)."""
    if args.prompt_format is None and _env_kwargs(args).get("tasks") == "official":
        return getattr(env_class, "official_prompt_format", None)
    return args.prompt_format


def _default_trials(args) -> int:
    """``--trials``' default: for an LLM agent whose protocol profile is a benchmark's, the trials of
    its leaderboard runs (τ²'s 4 under ``tau2``, τ-bench's 1 under ``tau-bench``); else 1. Said on
    stderr when it is not 1."""
    from toolgym.agents.llm.prompts import prompt_formats
    from toolgym.registry import check_env_args

    if args.agent.partition(":")[0] not in LLM_PREFIXES or args.strategy is not None or args.ray is not None:
        return 1
    profile = _profile(args, check_env_args(args.env_id, _env_kwargs(args)))
    trials = getattr(prompt_formats().get(profile), "trials", 1)
    if trials != 1:
        print(f"toolgym: {trials} trials per task, as the leaderboard of the {profile} profile's benchmark runs "
              f"them (--trials sets it)", file=sys.stderr)
    return trials


def scripted_env(env_id: str, env_kwargs: dict) -> gym.Env:
    """The env with its scripted user and no judge where it takes them: the oracle plays it
    without a model call (sizing ``max_new_tokens``)."""
    from toolgym.registry import env_class, env_keywords, make_env

    accepted = env_keywords(env_class(env_id))
    offline = {key: value for key, value in (("user", "scripted"), ("judge", None)) if key in accepted}
    return make_env(env_id, {**env_kwargs, **offline})


def cpu_threads(asked: int | None) -> int:
    """The CPU threads for an hf model: ``asked``, or the cores not busy now (at least 1). Asking
    for more than are free gets a warning: threads that wait for a core slow every token."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    free = max(1, cores - int(os.getloadavg()[0]))
    if asked is None:
        return free
    if asked > free:
        print(f"toolgym: warning: --threads {asked}, but {free} of {cores} cores are free now (load "
              f"{os.getloadavg()[0]:.1f}): generation will be slower than with --threads {free}", file=sys.stderr)
    return asked


def longest_oracle_action(env: gym.Env, tokenizer=None, tasks: int = 20) -> int:
    """The longest action the env's oracle takes over its first ``tasks`` tasks, in the model's
    tokens (characters / 2 without a tokenizer): how long a completion needs to be."""
    base = env.unwrapped
    longest = 0
    for task_id in base.task_ids()[:tasks]:
        env.reset(seed=0, options={"task_id": task_id})
        for _ in range(50):
            action = base.oracle_action()
            if action is None:
                break
            text = action if isinstance(action, str) else json.dumps(action)
            longest = max(longest, len(tokenizer(text)["input_ids"]) if tokenizer is not None else len(text) // 2)
            *_, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
    return longest


def eval_llm(args) -> int:
    """``eval`` with a language model: batched rollouts, token counts, resumable results."""
    from toolgym.eval.batch import evaluate_batched

    env_kwargs = _env_kwargs(args)
    agent = _llm_agent(args)
    records, env, stats = evaluate_batched(args.env_id, agent, args.agent, env_kwargs, seed=args.seed,
                                           episodes=args.episodes, out=args.out, progress=not args.no_progress,
                                           batch_size=args.batch_size, resume=args.resume, overwrite=args.overwrite)
    code = print_results(env, records)
    seconds = max(stats["seconds"], 1e-9)
    print(f"{stats['episodes']} episode(s) in {stats['seconds']:.1f}s: {stats['episodes'] / seconds:.2f} ep/s, "
          f"{stats['completion_tokens'] / seconds:.1f} completion tok/s, {stats['generate_calls']} batched calls")
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run")
    return code


def print_results(env: gym.Env, records: list[dict]) -> int:
    """Print the paper's table; exit code 1 (and why) when no episode was scored."""
    from toolgym.eval.runner import format_table

    if not any(r.get("metrics") for r in records):
        first = next((r for r in records if r.get("error")), None)
        why = f" (first: {escape(first['task_id'])}: {escape(first['error'])})" if first else ""
        print(f"toolgym: error: nothing was evaluated: all {len(records)} episode(s) ended with an error{why}",
              file=sys.stderr)
        return 1
    print(format_table(env, records))
    return 0


def report(args) -> int:
    """``toolgym report``: the paper's table of each run in a results file.

    The envs are made from the ``env`` and ``env_kwargs`` the file stores. A results file is
    untrusted input, so before anything is imported every record's env id and keywords are
    checked against an allow-list of plain values (:func:`toolgym.eval.runner.untrusted_env_args`):
    a keyword that names code (``user="x.py:User"``, ``judge``, ``text_similarity="cls:PATH"``),
    a path (``data_dir``, ``db_url``) or an env outside toolgym's registry is refused unless
    ``--trust-env-kwargs``. The ``agent`` field is only printed, never loaded.

    Runs of one env, in several files or resumed within one, whose records' ``provenance``
    differs get a warning per differing key on stderr (:func:`~toolgym.eval.provenance.provenance_warnings`).
    ``--data-dir`` replaces the data folder a file names (so such a file needs no
    ``--trust-env-kwargs``). After the files' tables come the tables across them
    (:mod:`toolgym.eval.summary`): BFCL's leaderboard columns and τ's pass^k per domain.
    """
    from toolgym.eval.provenance import provenance_warnings
    from toolgym.eval.runner import read_numbered_results
    from toolgym.eval.summary import bfcl_summary, tau_domain_summary

    files = [(path, read_numbered_results(path)) for path in args.results]
    for warning in provenance_warnings(_runs_by_provenance(files)):  # escaped there
        print(warning, file=sys.stderr)
    code = 0
    for path, numbered in files:
        code = max(code, _report_file(path, numbered, args))
    every = [record for _, numbered in files for _, record in numbered]
    for lines in (bfcl_summary(every), tau_domain_summary(every)):
        if lines:
            print("\n".join(lines) + "\n")
    return code


def _runs_by_provenance(files: list[tuple[str, list[tuple[int, dict]]]]) -> list[tuple[str, dict]]:
    """``(name, record)`` per env and distinct provenance in each file, for the envs that
    several such runs share: a file's name, with the record's line when the file has more."""
    by_env: dict[str, list[tuple[str, dict]]] = {}
    for path, numbered in files:
        seen: dict[str, list[tuple[int, dict]]] = {}
        for n, record in numbered:
            key = json.dumps(record.get("provenance"), sort_keys=True)
            seen.setdefault(record["env"], [])
            if all(json.dumps(r.get("provenance"), sort_keys=True) != key for _, r in seen[record["env"]]):
                seen[record["env"]].append((n, record))
        for env_id, firsts in seen.items():
            by_env.setdefault(env_id, []).extend(
                (path if len(firsts) == 1 else f"{path}:{n}", record) for n, record in firsts)
    return [run for runs in by_env.values() if len(runs) > 1 for run in runs]


def _report_file(path: str, numbered_records: list[tuple[int, dict]], args) -> int:
    """The paper's table of each run in one results file (see :func:`report`)."""
    from toolgym.eval.runner import check_metrics
    from toolgym.registry import make_env, untrusted_env_args

    runs: dict[tuple, list[tuple[int, dict]]] = {}
    for n, record in numbered_records:
        kwargs = record.get("env_kwargs") or {}
        if args.data_dir is not None and "data_dir" in kwargs:  # the command line's folder, not the file's
            kwargs = {k: v for k, v in kwargs.items() if k != "data_dir"}
        named = untrusted_env_args(record["env"], kwargs)
        if named and not args.trust_env_kwargs:
            paths = [k for k in named
                     if k in ("data_dir", "db_url") or any(c in json.dumps(kwargs.get(k)) for c in "/\\")]
            what = (f"env_kwargs names a path ({', '.join(paths)}); a results file may come from anyone, so report "
                    "does not make an env that reads or writes where it says" if paths else
                    f"{'env' if named == ['env'] else 'env_kwargs'} may name code ({', '.join(named)}); a results "
                    "file may come from anyone, so report takes only toolgym's env ids and plain values from it")
            fix = "pass --data-dir DIR, or --trust-env-kwargs if you trust this file" if paths == ["data_dir"] else \
                "pass --trust-env-kwargs if you trust this file"
            raise ValueError(f"{path}:{n}: {what}: {fix}")
        key = (record["env"], json.dumps(kwargs, sort_keys=True), record.get("agent"), record.get("seed"))
        runs.setdefault(key, []).append((n, record))
    code = 0
    for (env_id, kwargs, agent, seed), numbered in runs.items():
        kwargs = json.loads(kwargs)
        if args.data_dir is not None and kwargs.get("tasks") == "official":
            kwargs["data_dir"] = args.data_dir
        env = make_env(env_id, kwargs)
        if args.data_dir is not None:
            _warn_if_other_tasks(path, numbered[0][1], env)
        for n, record in numbered:
            if record.get("metrics") is not None:
                check_metrics(env_id, record["metrics"], f"{path}:{n}", env.unwrapped.table_columns)
        records = [record for _, record in numbered]
        print(f"{escape(path)}: {len(records)} episode(s), agent {escape(agent)}, seed {escape(seed)}")
        code = max(code, print_results(env, records))
        print(usage_line(records, args.price_in, args.price_out) or "", end="")
        print()
    return code


def _warn_if_other_tasks(path: str, record: dict, env: gym.Env) -> None:
    """A warning on stderr when ``report --data-dir``'s tasks are not the ones the run had (their
    digests differ): the table shows the file's scores, which other tasks might not give."""
    from toolgym.eval.provenance import run_provenance
    from toolgym.eval.runcard import printable_line

    ran = (record.get("provenance") or {}).get("tasks_digest")
    now = run_provenance(env).get("tasks_digest")
    if ran and now and ran != now:
        print(printable_line(f"warning: {path}: the run's tasks have digest {str(ran)[:80]}, the data in "
                             f"--data-dir {now}: the table shows the file's scores, graded on the run's tasks"),
              file=sys.stderr)


def usage_line(records: list[dict], price_in: float | None = None, price_out: float | None = None) -> str | None:
    """The model's tokens over the records' episodes (their ``usage``), with the cost at the given
    prices per million tokens; None when no model played them."""
    used = [r["usage"] for r in records if r.get("usage")]
    if not used:
        return None
    tokens_in = sum(u.get("prompt_tokens", 0) for u in used)
    tokens_out = sum(u.get("completion_tokens", 0) for u in used)
    calls = sum(u.get("calls", 0) for u in used)
    line = (f"tokens: {tokens_in:,} in, {tokens_out:,} out over {len(used)} episode(s) and {calls:,} model call(s) "
            f"({tokens_in / len(used):,.0f} in, {tokens_out / len(used):,.0f} out per episode)")
    if price_in is not None or price_out is not None:
        cost = tokens_in / 1e6 * (price_in or 0.0) + tokens_out / 1e6 * (price_out or 0.0)
        line += f"; cost ${cost:,.4f} at ${price_in or 0:g} / ${price_out or 0:g} per million tokens in / out"
    return line + "\n"


def complexity(args) -> int:
    """``toolgym complexity``: API selection complexity of a ToolBench task set."""
    from toolgym.eval.complexity import env_complexity
    from toolgym.registry import make_env

    result = env_complexity(make_env(args.env_id, _env_kwargs(args)), k=args.k)
    print(f"{result['env']} ({result['task_set']} tasks): {result['tests']} test tasks, "
          f"{result['demos']} demonstrations, k={result['k']}")
    print(f"API selection complexity (edit distance, eq. 1-3): {result['edit']:.3f}")
    print(f"API selection complexity (reversed F1, eq. 5):     {result['reversed_f1']:.3f}")
    return 0


def action_hint(env: gym.Env) -> str:
    """What a player types: the env's own ``action_hint``, else one for its action format and mode."""
    from toolgym.agents.llm.prompts import defaults_for

    base = env.unwrapped
    own = getattr(base, "action_hint", None)
    if own:
        return own
    action_format = defaults_for(env)[1]
    if getattr(base, "mode", None) == "multi_step":
        return MULTI_STEP_HINT
    return ACTION_HINTS.get(action_format, ACTION_HINTS["text"])


def finish_hint(env: gym.Env, tools: list[dict]) -> str | None:
    """How a player ends the episode: the env's own ``finish_hint``, else from its tools and format."""
    from toolgym.agents.llm.prompts import defaults_for

    own = getattr(env.unwrapped, "finish_hint", None)
    if own:
        return own
    names = [t.get("function", {}).get("name") for t in tools]
    if "Finish" in names:
        return "call Finish (return_type give_answer with final_answer, or give_up_and_restart)"
    if defaults_for(env)[0] == "tooltalk":  # a conversation: text replies end turns, the data ends it
        return "answer the user in plain text; the episode ends after the last user turn"
    return None


def _json_type(schema: dict) -> str:
    """A JSON schema's type, short: ``string``, ``integer | null``, ``array of string``, ``"a" | "b"``."""
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"][:8])
    if "anyOf" in schema or "oneOf" in schema:
        return " | ".join(_json_type(s) for s in schema.get("anyOf", schema.get("oneOf", [])))
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return " | ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_json_type(schema['items'])}"
    return kind


def tool_signature(schema: dict) -> str:
    """``name(argument: type, optional?: type)`` of an OpenAI tool schema."""
    fn = schema.get("function", schema)
    parameters = fn.get("parameters") or {}
    required = set(parameters.get("required") or [])
    arguments = [f"{name}{'' if name in required else '?'}: {_json_type(spec if isinstance(spec, dict) else {})}"
                 for name, spec in (parameters.get("properties") or {}).items()]
    return f"{fn.get('name')}({', '.join(arguments)})"


def format_message(message: dict) -> str:
    """A chat message for the terminal: a role header, then its text and tool calls."""
    role = message.get("role", "?")
    label = f"{role} {message['name']}" if message.get("name") else role
    parts = [str(message["content"])] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call)
        parts.append(f"call {fn.get('name')}({fn.get('arguments')})")
    return f"[{label}]\n" + "\n".join(parts)


def new_messages(before: list[dict], after: list[dict]) -> list[dict]:
    """The messages of ``after`` that ``before`` does not hold (counting repeats)."""
    remaining = Counter(json.dumps(m, sort_keys=True, default=str) for m in before)
    new = []
    for message in after:
        key = json.dumps(message, sort_keys=True, default=str)
        if remaining[key]:
            remaining[key] -= 1
        else:
            new.append(message)
    return new


def history_news(before: list[dict], after: list[dict], action: str, observation: str) -> list[dict]:
    """What a step added to ``info["messages"]`` that the player has not seen.

    Leaves out the player's own reply or tool call and what the observation shows. What
    remains is, in ToolTalk, the ground-truth turn that replaced the player's, or any other
    message an env adds.
    """
    new = new_messages(before, after)
    news = []
    for i, message in enumerate(new):
        following = new[i + 1] if i + 1 < len(new) else {}
        content = message.get("content")
        if content and (content == observation or message.get("role") == "assistant" and content == action.strip()):
            continue
        if (message.get("role") == "assistant" and message.get("tool_calls") and following.get("role") == "tool"
                and following.get("content") == observation):
            continue  # the player's own call, whose result is the observation
        news.append(message)
    return news


def play(args) -> int:
    """``toolgym play``: a terminal session in which the user is the agent; 'quit' ends."""
    from toolgym.agents.llm.prompts import defaults_for
    from toolgym.registry import make_env

    env = make_env(args.env_id, _env_kwargs(args))
    options = {"task_id": args.task_id} if args.task_id else None
    seed = args.seed
    while True:
        obs, info = env.reset(seed=seed, options=options)
        seed = None  # later episodes continue the env's random stream: another task unless --task-id
        base = env.unwrapped
        print(f"== {args.env_id} task {info['task_id']} ({base.task_set} tasks, split {info.get('split')}, "
              f"scoring {base.scoring}{f', mode {base.mode}' if base.mode else ''}) ==")
        messages = copy.deepcopy(info.get("messages") or [])
        for message in messages:
            print(format_message(message) + "\n")
        if not messages:
            print(obs + "\n")
        tools = info.get("tools") or []
        if defaults_for(env)[1] == "tool_call" and tools:
            print("Tools (argument: JSON type; ? marks an optional one):")
            for schema in tools:
                print(f"  {tool_signature(schema)}: {schema.get('function', schema).get('description') or ''}")
            print()
        elif tools:  # a program env: its functions are the names in scope (argument: JSON type)
            print("In scope for your program (? marks an optional argument):")
            for schema in tools:
                about = (schema.get("function", schema).get("description") or "").strip().split("\n")[0]
                print(f"  {tool_signature(schema)}: {about}")
            print()
        print(f"Type {action_hint(env)}. End a line with \\ to continue on the next; 'quit' stops.")
        finish = finish_hint(env, tools)
        if finish:
            print(f"To finish: {finish}.")
        if not _play_episode(env, messages):
            return 0
        if not _ask("another episode? [y/N] "):
            return 0


def _play_episode(env: gym.Env, messages: list[dict]) -> bool:
    """Read actions until the episode ends (True) or the user quits (False)."""
    total = 0.0
    while True:
        try:
            line = input("> ")
            while line.endswith("\\"):
                line = line[:-1] + "\n" + input("... ")
        except EOFError:
            return False
        if line.strip() == "quit":
            return False
        obs, reward, terminated, truncated, info = env.step(line)
        total += reward
        shown = messages
        messages = copy.deepcopy(info.get("messages") or [])  # an env may change its list in place
        extra = history_news(shown, messages, line, obs)
        if extra:
            ground_truth = any(m.get("role") == "assistant" for m in extra)
            print("-- the history continues with" + (" the env's ground truth, not your turn:" if ground_truth
                                                      else ":"))
            for message in extra:
                print(format_message(message))
            print("--")
        if obs:
            print(obs)
        print(f"(reward {reward:+.4g}, return {total:.4g})")
        if terminated or truncated:
            print(f"\n== episode over; return {round(total, 4)} ==")
            print(json.dumps(info.get("metrics", {}), indent=2, default=str))
            return True


def _ask(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def serve_command(args) -> int:
    """``toolgym serve``: the env's html pages over HTTP, or the env over OpenEnv or MCP (``--protocol``)."""
    from toolgym.registry import make_env

    if args.protocol is not None:
        return serve_protocol(args)
    if args.env_id != "WebShop-v0":
        raise ValueError(f"serve supports WebShop-v0 only (the env with html pages), not {args.env_id}; "
                         f"--protocol openenv or mcp serves any env")
    from toolgym.envs.webshop.serve import serve

    serve(make_env(args.env_id, {**_env_kwargs(args), "observation_mode": "html"}), args.host,
          3000 if args.port is None else args.port)
    return 0


def serve_protocol(args) -> int:
    """``serve --protocol openenv|mcp``: see :mod:`toolgym.serve`."""
    try:
        from toolgym.serve.wire import ServeLimits

        limits = ServeLimits(max_sessions=args.max_sessions, max_message_bytes=args.max_message_bytes,
                             step_timeout_s=args.step_timeout, idle_timeout_s=args.idle_timeout)
        if args.protocol == "openenv":
            from toolgym.serve.openenv_app import serve
        else:
            from toolgym.serve.mcp_app import serve
    except ImportError as exc:
        extra = "serve" if args.protocol == "openenv" else "mcp"
        raise ImportError(f"serve --protocol {args.protocol} needs the {extra} extra: pip install "
                          f"'toolgym[{extra}]' ({exc})") from exc
    if args.protocol == "openenv":
        serve(args.env_id, _env_kwargs(args), args.host, 8000 if args.port is None else args.port, limits,
              oracle=args.oracle)
    else:
        if args.oracle:
            raise ValueError("--oracle is an openenv option (MCP clients play the tools themselves)")
        serve(args.env_id, _env_kwargs(args), args.host, args.port, limits)
    return 0


def view_command(args) -> int:
    """``toolgym view``: see :mod:`toolgym.eval.view`."""
    from toolgym.eval.view import view_command as run

    return run(args)


def judge_command(args) -> int:
    """``toolgym judge``: see :func:`toolgym.eval.tooleval.judge_command`."""
    from toolgym.eval.tooleval import judge_command as run

    return run(args)


def rescore_command(args) -> int:
    """``toolgym rescore``: see :mod:`toolgym.eval.rescore`. Exit code 1 when no run could be replayed."""
    from pathlib import Path

    from toolgym.eval.rescore import pass_hat_by_domain, pass_hat_rows, rescore, format_rescore_table
    from toolgym.eval.runner import SUMMARY_KEY, write_record

    if args.out and Path(args.out).is_file() and Path(args.out).stat().st_size > 0 and not args.overwrite:
        raise ValueError(f"{args.out} already holds results: pass --overwrite to replace the file, or another --out")
    if args.judge and args.file_format != "tau2":
        raise ValueError("--judge scores τ²'s NL assertions; τ-bench runs have none")
    records, runs = rescore(args.file, args.file_format, domain=args.domain, split=args.split, data_dir=args.data_dir,
                            judge=args.judge, fresh_tasks=args.fresh_tasks)
    print(format_rescore_table(args.file, args.file_format, records, runs))
    if args.out:
        toolgym_rows, recorded_rows = pass_hat_rows(records, runs)
        with open(args.out, "w", encoding="utf-8") as sink:
            for record in records:
                write_record(sink, record)
            write_record(sink, {"env": runs[0].env_id, "agent": records[0]["agent"], SUMMARY_KEY: "pass^k",
                                "pass^k": pass_hat_by_domain(toolgym_rows),
                                "recorded_pass^k": pass_hat_by_domain(recorded_rows)})
        print(f"{args.out}: {len(records)} run(s)")
    if not any(record.get("rescore") for record in records):
        first = records[0].get("error")
        print(f"toolgym: error: {escape(args.file)}: no run could be replayed (first: {escape(first)})",
              file=sys.stderr)
        return 1
    return 0


def export_command(args) -> int:
    """``toolgym export``: see :mod:`toolgym.eval.export`."""
    from toolgym.eval.export import export_file

    print(export_file(args.file, args.file_format, args.out, data_dir=args.data_dir, bfcl_model=args.bfcl_model))
    return 0


def data_command(args) -> int:
    """``toolgym data check ENV``: whether a folder holds ENV's official data (exit code 0) or
    not (1, naming each missing file and where it comes from).

    Each part of the env's data (τ²'s and τ-bench's domains; one for other envs) is checked
    against its layouts: the first complete one is shown with its digest (over every split's
    files; a run of one split records its own files' digest), else the preferred one with what
    it lacks. An env without official data says so and exits 0.
    """
    import os
    from pathlib import Path

    from toolgym.registry import env_class

    cls = env_class(args.env_id)
    parts = cls.official_layouts() if hasattr(cls, "official_layouts") else {}
    if not parts:
        print(f"{args.env_id} has no official data: its tasks are built-in only")
        return 0
    given = args.data_dir if args.data_dir is not None else os.environ.get("TOOLGYM_DATA")
    if not given:
        raise ValueError(f"data check {args.env_id}: pass --data-dir DIR or set TOOLGYM_DATA to the folder that holds "
                         f"'{next(iter(parts.values()))[0].benchmark}/'")
    root = Path(given).expanduser()
    try:
        if not root.is_dir():
            why = "not a folder" if root.exists() else "no such folder"
            raise ValueError(f"data check {args.env_id}: {root}: {why}")
        os.listdir(root)
    except PermissionError as error:
        raise ValueError(f"data check {args.env_id}: {root}: cannot read the folder ({error.strerror})") from None
    complete = True
    for part, layouts in parts.items():
        complete &= _check_part(args.env_id, root, part, layouts)
    print(f"{args.env_id}: {'complete' if complete else 'incomplete'} in {escape(root)}")
    return 0 if complete else 1


def _check_part(env_id: str, root, part: str, layouts) -> bool:
    """Print one part's check (see :func:`data_command`); whether its data is complete."""
    checks = [(layout, *layout.check(root)) for layout in layouts]
    chosen = next((c for c in checks if all(ok for _, ok in c[2])), checks[0])
    layout, folder, found = chosen
    ok = all(present for _, present in found)
    title = f"{env_id} {part}" if part else env_id
    print(f"{title}: {layout.name}, from {layout.source or 'the benchmark release'}")
    print(f"  folder: {escape(folder)}")
    for pattern, present in found:
        count = sum(1 for p in folder.glob(pattern) if p.is_file()) if present else 0
        files = f" ({count} files)" if present and any(c in pattern for c in "*?[") else ""
        print(f"  {'present' if present else 'MISSING'}  {pattern}{files}")
    optional = [p for p in layout.also_reads if p not in layout.expected_files()
                and folder.is_dir() and next(folder.glob(p), None) is not None]
    if optional:
        print(f"  also read: {', '.join(optional)}")
    if ok:
        print(f"  digest: {layout.digest(folder)}")
    else:
        missing = [pattern for pattern, present in found if not present]
        print(f"  missing {', '.join(missing)}: get {'it' if len(missing) == 1 else 'them'} from "
              f"{layout.source or 'the benchmark release'}")
        for other in layouts:
            if other is not layout:
                print(f"  or instead: {other.name}: {', '.join(other.expected_files())}, from {other.source}")
    return ok


COMMANDS = {"list": list_envs, "eval": eval_command, "report": report, "complexity": complexity, "play": play,
            "judge": judge_command, "serve": serve_command, "view": view_command, "rescore": rescore_command,
            "export": export_command, "data": data_command, "demos": demos_command,
            "compare": compare_command}


if __name__ == "__main__":
    sys.exit(main())
