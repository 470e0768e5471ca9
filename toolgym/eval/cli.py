"""The ``toolgym`` command: ``list``, ``eval``, ``report``, ``play`` and ``complexity``."""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections import Counter

import gymnasium as gym

import toolgym

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
    p.add_argument("--env-kwarg", action="append", type=_parse_kwarg, metavar="KEY=VALUE",
                   help="any keyword of gym.make (repeatable); VALUE is JSON or a plain string")


def _subparser(sub, name: str, help_text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, description=help_text, epilog=ENV_EPILOG)


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
    llm = ev.add_argument_group("LLM agents (hf:, openai:)")
    llm.add_argument("--batch-size", type=int, default=8, help="episodes stepped in lockstep (default 8)")
    llm.add_argument("--max-concurrency", type=int, help="openai: requests in flight at once (default 8)")
    llm.add_argument("--temperature", type=float, default=0.0, help="0 is greedy decoding (default)")
    llm.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling threshold (default 1.0)")
    llm.add_argument("--max-new-tokens", type=int, default=512, help="tokens per completion at most (default 512)")
    llm.add_argument("--prompt-format", help="chat | tooltalk | toolbench | messages | plain | react "
                                             "(default: the env's)")
    llm.add_argument("--parser", help="tool_call | react | curl | program | plan | text (default: the env's)")
    llm.add_argument("--backend-kwarg", action="append", type=_parse_kwarg, metavar="KEY=VALUE",
                     help="backend option, e.g. device=cuda, dtype=bfloat16, timeout=60, max_retries=2 "
                          "(repeatable)")

    rp = _subparser(sub, "report", "reprint the paper's table of a results file")
    rp.add_argument("results", metavar="RESULTS.jsonl", help="a results file written by toolgym eval --out")

    cx = _subparser(sub, "complexity", "API selection complexity of a task set and its demo pool "
                                       "(Xu et al. 2023, appendix D)")
    _add_env_flags(cx)
    cx.add_argument("-k", type=int, default=3, help="demonstrations in the prompt (default 3)")

    play = _subparser(sub, "play", "be the agent yourself in a terminal session")
    _add_env_flags(play)
    play.add_argument("--seed", type=int, default=0, help="seed of the first reset (default 0)")
    play.add_argument("--task-id", help="play this task (default: one drawn from the seed)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (2: bad configuration, 1: the run failed, 130: Ctrl-C)."""
    args = build_parser().parse_args(argv)
    from toolgym.eval.batch import BackendUnavailable

    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        hint = f"; run again with --resume to continue {args.out}" if getattr(args, "out", None) else ""
        print(f"\ntoolgym: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BackendUnavailable as exc:
        print(f"toolgym: error: every request to the backend failed: {exc}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, OSError, ImportError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"toolgym: error: {message}", file=sys.stderr)
        return 2


def list_envs(args) -> int:
    """``toolgym list``: the registered ids and their classes."""
    for env_id in toolgym.ENV_IDS:
        print(f"{env_id:18s} {gym.spec(env_id).entry_point}")
    return 0


def eval_command(args) -> int:
    """``toolgym eval``: the sequential runner, or the batched one for LLM agents."""
    from toolgym.eval.runner import check_out_options, evaluate

    check_out_options(args.out, args.resume, args.overwrite)  # before a model is loaded
    if args.agent.partition(":")[0] in LLM_PREFIXES:
        return eval_llm(args)
    records, env = evaluate(args.env_id, args.agent, _env_kwargs(args), seed=args.seed, episodes=args.episodes,
                            out=args.out, progress=not args.no_progress, resume=args.resume,
                            overwrite=args.overwrite)
    code = print_results(env, records)
    if args.out:
        print(f"{args.out}: {len(records)} episode(s) of this run")
    return code


def eval_llm(args) -> int:
    """``eval`` with a language model: batched rollouts, token counts, resumable results."""
    from toolgym.agents import make_agent
    from toolgym.agents.llm import BackendError
    from toolgym.eval.batch import evaluate_batched
    from toolgym.eval.runner import check_env_args

    env_kwargs = _env_kwargs(args)
    env_class = check_env_args(args.env_id, env_kwargs)  # before a model is loaded
    options = {"seed": args.seed, "temperature": args.temperature, "top_p": args.top_p,
               "max_new_tokens": args.max_new_tokens, "max_concurrency": args.max_concurrency,
               "prompt_format": args.prompt_format, "parser": args.parser,
               "backend_kwargs": dict(args.backend_kwarg or [])}
    try:
        agent = make_agent(args.agent, env_class, **options)
    except BackendError as exc:
        raise ValueError(str(exc)) from exc
    except TypeError as exc:  # a --backend-kwarg the backend does not take
        raise ValueError(f"{args.agent}: {exc} (check --backend-kwarg)") from exc
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
        why = f" (first: {first['task_id']}: {first['error']})" if first else ""
        print(f"toolgym: error: nothing was evaluated: all {len(records)} episode(s) ended with an error{why}",
              file=sys.stderr)
        return 1
    print(format_table(env, records))
    return 0


def report(args) -> int:
    """``toolgym report``: the paper's table of each run in a results file."""
    from toolgym.eval.runner import make_env, read_results

    runs: dict[tuple, list[dict]] = {}
    for record in read_results(args.results):
        kwargs = record.get("env_kwargs") or {}
        key = (record["env"], json.dumps(kwargs, sort_keys=True), record.get("agent"), record.get("seed"))
        runs.setdefault(key, []).append(record)
    code = 0
    for (env_id, _, agent, seed), records in runs.items():
        env = make_env(env_id, records[0].get("env_kwargs") or {})
        print(f"{args.results}: {len(records)} episode(s), agent {agent}, seed {seed}")
        code = max(code, print_results(env, records))
        print()
    return code


def complexity(args) -> int:
    """``toolgym complexity``: API selection complexity of a ToolBench task set."""
    from toolgym.eval.complexity import env_complexity
    from toolgym.eval.runner import make_env

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
    from toolgym.eval.runner import make_env

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
        if defaults_for(env)[1] == "tool_call" and info.get("tools"):
            print("Tools:")
            for schema in info["tools"]:
                fn = schema["function"]
                params = ", ".join(fn["parameters"].get("properties", {}))
                print(f"  {fn['name']}({params}): {fn['description']}")
            print()
        print(f"Type {action_hint(env)}. End a line with \\ to continue on the next; 'quit' stops.")
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


COMMANDS = {"list": list_envs, "eval": eval_command, "report": report, "complexity": complexity, "play": play}


if __name__ == "__main__":
    sys.exit(main())
