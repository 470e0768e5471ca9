"""The ``toolgym`` command: ``list``, ``eval`` and ``play``."""

from __future__ import annotations

import argparse
import json
import sys

import gymnasium as gym

import toolgym


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
        if args.command == "eval":
            from toolgym.eval.runner import evaluate, format_table
            records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), seed=args.seed,
                                    episodes=args.episodes, out=args.out, progress=not args.no_progress)
            print(format_table(env, records))
            if args.out:
                print(f"wrote {len(records)} episode(s) to {args.out}")
            return 0
        if args.command == "play":
            return play(args)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        print(f"toolgym: error: {exc}", file=sys.stderr)
        return 2
    return 1


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
          "or a reply; 'quit' to stop.\n")
    print(obs)
    total = 0.0
    while True:
        try:
            line = input("> ")
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
