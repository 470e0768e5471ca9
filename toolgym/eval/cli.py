"""The ``toolgym`` command: ``list``, ``eval``, ``play`` and ``complexity``."""

from __future__ import annotations

import argparse
import json
import sys

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import toolgym

LLM_PREFIXES = ("hf", "openai")  # agents that go through the batched runner


def _parse_kwarg(text: str) -> tuple[str, object]:
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
    p.add_argument("env_id")
    p.add_argument("--tasks", choices=["built-in", "official"])
    p.add_argument("--split")
    p.add_argument("--data-dir", dest="data_dir")
    p.add_argument("--scoring")
    p.add_argument("--mode")
    p.add_argument("--env-kwarg", action="append", type=_parse_kwarg, metavar="KEY=VALUE",
                   help="any keyword of gym.make (repeatable); VALUE is JSON or a plain string")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolgym", description=__doc__)
    parser.add_argument("--version", action="version", version=toolgym.__version__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the registered envs")

    ev = sub.add_parser("eval", help="evaluate an agent on a task set and print the paper's table")
    _add_env_flags(ev)
    ev.add_argument("--agent", required=True, help="oracle | random | replay:FILE | hf:MODEL | openai:URL#MODEL")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--episodes", type=int)
    ev.add_argument("--out", help="write one JSON line per episode here")
    ev.add_argument("--no-progress", action="store_true")
    llm = ev.add_argument_group("LLM agents (hf:, openai:)")
    llm.add_argument("--batch-size", type=int, default=8, help="episodes stepped in lockstep (default 8)")
    llm.add_argument("--max-concurrency", type=int, help="openai: requests in flight at once (default 8)")
    llm.add_argument("--temperature", type=float, default=0.0, help="0 is greedy decoding (default)")
    llm.add_argument("--top-p", type=float, default=1.0)
    llm.add_argument("--max-new-tokens", type=int, default=512)
    llm.add_argument("--prompt-format", help="chat | tooltalk | toolbench | messages | plain | react "
                                             "(default: the env's)")
    llm.add_argument("--parser", help="tool_call | react | curl | program | plan | text (default: the env's)")
    llm.add_argument("--backend-kwarg", action="append", type=_parse_kwarg, metavar="KEY=VALUE",
                     help="backend option, e.g. device=cuda, dtype=bfloat16, timeout=60 (repeatable)")
    llm.add_argument("--resume", action="store_true", help="keep the finished episodes of --out, run the rest")

    cx = sub.add_parser("complexity", help="API selection complexity of a task set and its demo pool "
                                           "(Xu et al. 2023, appendix D)")
    _add_env_flags(cx)
    cx.add_argument("-k", type=int, default=3, help="demonstrations in the prompt (default 3)")

    play = sub.add_parser("play", help="be the agent yourself in a terminal session")
    _add_env_flags(play)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--task-id")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "list":
            for env_id in toolgym.ENV_IDS:
                spec = gym.spec(env_id)
                print(f"{env_id:18s} {spec.entry_point}")
            return 0
        if args.command == "eval" and args.agent.partition(":")[0] in LLM_PREFIXES:
            return eval_llm(args)
        if args.command == "eval":
            from toolgym.eval.runner import evaluate, format_table
            records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), seed=args.seed,
                                    episodes=args.episodes, out=args.out, progress=not args.no_progress)
            print(format_table(env, records))
            if args.out:
                print(f"wrote {len(records)} episode(s) to {args.out}")
            return 0
        if args.command == "complexity":
            from toolgym.eval.complexity import env_complexity
            result = env_complexity(gym.make(args.env_id, **_env_kwargs(args)), k=args.k)
            print(f"{result['env']} ({result['task_set']} tasks): {result['tests']} test tasks, "
                  f"{result['demos']} demonstrations, k={result['k']}")
            print(f"API selection complexity (edit distance, eq. 1-3): {result['edit']:.3f}")
            print(f"API selection complexity (reversed F1, eq. 5):     {result['reversed_f1']:.3f}")
            return 0
        if args.command == "play":
            return play(args)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        print(f"toolgym: error: {exc}", file=sys.stderr)
        return 2
    return 1


def eval_llm(args) -> int:
    """``eval`` with a language model: batched rollouts, token counts, resumable results."""
    from toolgym.agents import make_agent
    from toolgym.agents.llm import BackendError
    from toolgym.eval.batch import evaluate_batched
    from toolgym.eval.runner import format_table

    if args.resume and not args.out:
        raise ValueError("--resume needs --out (the results file to continue)")
    env_kwargs = _env_kwargs(args)
    options = {"seed": args.seed, "temperature": args.temperature, "top_p": args.top_p,
               "max_new_tokens": args.max_new_tokens, "max_concurrency": args.max_concurrency,
               "prompt_format": args.prompt_format, "parser": args.parser,
               "backend_kwargs": dict(args.backend_kwarg or [])}
    env_class = load_env_creator(gym.spec(args.env_id).entry_point)  # for the env's prompt defaults
    try:
        agent = make_agent(args.agent, env_class, **options)
    except BackendError as exc:
        print(f"toolgym: error: {exc}", file=sys.stderr)
        return 2
    records, env, stats = evaluate_batched(args.env_id, agent, args.agent, env_kwargs, seed=args.seed,
                                           episodes=args.episodes, out=args.out, progress=not args.no_progress,
                                           batch_size=args.batch_size, resume=args.resume)
    print(format_table(env, records))
    seconds = max(stats["seconds"], 1e-9)
    print(f"{stats['episodes']} episode(s) in {stats['seconds']:.1f}s: {stats['episodes'] / seconds:.2f} ep/s, "
          f"{stats['completion_tokens'] / seconds:.1f} completion tok/s, {stats['generate_calls']} batched calls")
    if args.out:
        print(f"wrote {len(records)} episode(s) to {args.out}")
    return 0


def play(args) -> int:
    """A terminal session: type a tool call (JSON or Name(k=v)) or a reply; 'quit' ends."""
    env = gym.make(args.env_id, **_env_kwargs(args))
    options = {"task_id": args.task_id} if args.task_id else None
    obs, info = env.reset(seed=args.seed, options=options)
    print(f"== {args.env_id} task {info['task_id']} ==")
    for schema in info.get("tools", []):
        fn = schema["function"]
        params = ", ".join(fn["parameters"].get("properties", {}))
        print(f"  {fn['name']}({params}): {fn['description']}")
    print("Type a tool call such as {\"name\": ..., \"arguments\": {...}} or Name(key=value), "
          "or a reply (a command, plan or program where the env wants one); end a line with \\ "
          "to continue on the next; 'quit' to stop.\n")
    print(obs)
    total = 0.0
    while True:
        try:
            line = input("> ")
            while line.endswith("\\"):
                line = line[:-1] + "\n" + input("... ")
        except EOFError:
            break
        if line.strip() == "quit":
            break
        obs, reward, terminated, truncated, info = env.step(line)
        total += reward
        print(obs)
        if terminated or truncated:
            print("\n== episode over; return", round(total, 4), "==")
            print(json.dumps(info.get("metrics", {}), indent=2, default=str))
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
