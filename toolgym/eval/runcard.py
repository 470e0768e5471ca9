"""What a run is, and whether its number can stand next to a leaderboard's: the lines under every
table's title in ``eval``, ``report`` and ``view``.

:func:`run_card` reads a run's settings from its records alone (a results file holds them all;
the env class only adds its defaults), so that a table reprinted from a file says what the
table printed by the run said. :func:`comparability` is the one rule for "leaderboard-comparable":
every reason a number differs from what the original harness would give for the same model.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolgym.registry import env_class, untrusted_env_args


@dataclass(frozen=True)
class Leaderboard:
    """What an original harness runs for its leaderboard, where toolgym's defaults may differ."""

    name: str
    profiles: tuple[str, ...]  # the agent protocol profiles (prompt formats) that send the original's requests
    split: str | None = None  # the task split the leaderboard reports
    caps: dict[str, int] = field(default_factory=dict)  # the env's limits as the original sets them
    trials: int = 1  # trials per task the leaderboard's pass^k comes from
    llm_user: bool = False  # the original's user is an LLM (toolgym's default user is scripted)


LEADERBOARDS = {
    "Tau2-v0": Leaderboard("τ²-bench", ("tau2",), split="base",
                           caps={"max_steps": 200, "max_messages": 200, "max_errors": 10}, trials=4, llm_user=True),
    "TauBench-v0": Leaderboard("τ-bench", ("tau-bench",), split="test", caps={"max_steps": 30}, llm_user=True),
    "BFCL-v0": Leaderboard("BFCL", ("bfcl-fc", "bfcl-fc-responses", "bfcl-prompting")),
}
#: Env arguments that are caps (limits an episode runs under), in the order the header names them
#: (Tau2-v0's ``max_messages`` is τ²'s ``max_steps``, counted as τ² counts).
CAP_ARGUMENTS = ("max_steps", "max_messages", "max_errors")


@dataclass(frozen=True)
class RunCard:
    """A run's settings as its records state them (values from a results file: :func:`header_lines`
    escapes them for a terminal)."""

    env: str
    domain: str | None
    split: str | None  # the split asked for, else the subsets the episodes ran in
    subsets: tuple[str, ...]
    tasks_source: str | None
    tasks_digest: str | None
    user: str | None  # the user spec (envs with a simulated user)
    agent: str | None
    model: str | None
    profile: str | None  # the agent's prompt format (its protocol profile)
    scoring: str | None
    trials: int
    caps: dict[str, int | None]  # None: the cap is off
    tasks: int  # distinct tasks run
    errors: int
    unscored: int  # episodes with a component no one graded (Tau2's NL assertions without a judge)
    scorings: tuple[str, ...] = ()  # the env's scorings (paper_compat: the released evaluator's)
    solo: bool = False  # Tau2-v0's solo mode (τ³'s solo agent: no user)
    retrieval: str | None = None  # Tau2-v0 banking_knowledge's retrieval config (the env's default when unset)


def _defaults(env_id: str) -> tuple[dict, tuple[str, ...]]:
    """The env class's constructor defaults and scorings; none for an env id that names a module
    (a results file's env id never makes toolgym import code) or that toolgym does not know."""
    if untrusted_env_args(env_id, {}):
        return {}, ()
    try:
        cls = env_class(env_id)
    except ValueError:
        return {}, ()
    parameters = inspect.signature(cls.__init__).parameters.values()
    return ({p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty},
            tuple(getattr(cls, "scorings", ())))


def run_card(records: Sequence[dict], env_id: str | None = None) -> RunCard:
    """The card of one run's records (those of one env and env arguments, as the tables group
    them); ``env_id`` names the env when the records do not."""
    first = records[0]
    env_id = first.get("env", env_id)
    kwargs = first.get("env_kwargs") if isinstance(first.get("env_kwargs"), dict) else {}
    defaults, scorings = _defaults(env_id) if isinstance(env_id, str) else ({}, ())
    setting = {**defaults, **kwargs}
    provenance = first.get("provenance") if isinstance(first.get("provenance"), dict) else {}
    subsets = tuple(dict.fromkeys(_text(r["split"]) for r in records if r.get("split") is not None))
    user = setting.get("user") if "user" in defaults or "user" in kwargs else None
    trials = max((r["trials"] for r in records if isinstance(r.get("trials"), int)), default=1)
    return RunCard(
        env=str(env_id), domain=_text(setting.get("domain")), split=_text(kwargs.get("split")), subsets=subsets,
        tasks_source=_text(provenance.get("tasks_source") or first.get("task_set")),
        tasks_digest=_text(provenance.get("tasks_digest")),
        user=_text(user) if isinstance(user, str) or user is None else "custom",
        agent=_text(first.get("agent")), model=_text(first.get("model")), profile=_text(first.get("prompt_format")),
        scoring=_text(first.get("scoring")), trials=trials,
        caps={k: setting[k] for k in CAP_ARGUMENTS if k in setting and (isinstance(setting[k], int)
                                                                        or setting[k] is None)},
        tasks=len({r.get("task_id") for r in records}),
        errors=sum(1 for r in records if r.get("error")),
        unscored=sum(1 for r in records if isinstance(r.get("metrics"), dict) and r["metrics"].get("unscored")),
        scorings=scorings, solo=setting.get("solo_mode") is True,
        retrieval=_text(setting.get("retrieval_config")) if setting.get("domain") == "banking_knowledge" else None)


#: The most characters of one setting a header shows (a results file may hold anything there).
MAX_SETTING_CHARS = 200


def _text(value) -> str | None:
    """A setting as text, cut to :data:`MAX_SETTING_CHARS` (None stays None)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= MAX_SETTING_CHARS else text[:MAX_SETTING_CHARS] + "..."


def user_text(user: str | None) -> str:
    """A user spec, short: ``scripted``, ``llm (MODEL)``; an endpoint's URL left out."""
    if user is None:
        return "none"
    if user.startswith("llm:"):
        model = user.rpartition("#")[2] if "#" in user else user.removeprefix("llm:").partition(":")[2]
        return f"llm ({model})"
    return user


def comparability(card: RunCard, tasks_total: int | None = None) -> list[str]:
    """Why the run's number is not the leaderboard's: one reason per difference from the original
    harness's run; an empty list when there is none. ``tasks_total`` is the task set's size (a run
    of fewer tasks is a subset)."""
    from toolgym.envs.bfcl.leaderboard import LEADERBOARD_CATEGORIES  # here: the BFCL package imports its env

    board = LEADERBOARDS.get(card.env)
    reasons = []
    if card.tasks_source != "official":
        reasons.append(f"{card.tasks_source or 'unknown'} tasks (the published numbers are on the official ones: "
                       f"--tasks official)")
    if board is not None and board.split and card.split not in (None, board.split):
        reasons.append(f"split {card.split} (the leaderboard's: {board.split})")
    if tasks_total is not None and card.tasks < tasks_total:
        reasons.append(f"{card.tasks} of {tasks_total} tasks run")
    if card.model is None:
        reasons.append(f"agent {card.agent} is not a model")
    elif board is not None and card.profile not in board.profiles:
        reasons.append(f"agent protocol profile {card.profile} (the original's requests: --prompt-format "
                       f"{' or '.join(board.profiles)})")
    if card.solo:
        reasons.append("solo mode (the leaderboard's runs have a user; compare with τ³'s solo-mode runs)")
    elif board is not None and board.llm_user and not (card.user or "").startswith("llm:"):
        reasons.append(f"{user_text(card.user)} user (the original's user is an LLM: --env-kwarg "
                       f"user=llm:openai:URL#MODEL)")
    if board is not None:
        for cap, value in board.caps.items():
            if card.caps.get(cap, value) != value:
                shown = "none" if card.caps[cap] is None else card.caps[cap]
                reasons.append(f"{cap} {shown} (the original's: {value})")
        if card.trials < board.trials:
            reasons.append(f"{card.trials} trial(s) per task (the leaderboard's: {board.trials}, --trials "
                           f"{board.trials})")
    if "paper_compat" in card.scorings and card.scoring != "paper_compat":
        reasons.append(f"scoring={card.scoring} (the published numbers are the released evaluator's: "
                       f"--scoring paper_compat)")
    if card.errors:
        reasons.append(f"{card.errors} episode(s) ended with an error")
    if card.unscored:
        reasons.append(f"{card.unscored} episode(s) not fully graded (no judge for their NL assertions)")
    if card.env == "BFCL-v0":
        missing = [c for c in LEADERBOARD_CATEGORIES if c not in card.subsets]
        if missing:
            reasons.append(f"{len(missing)} of {len(LEADERBOARD_CATEGORIES)} leaderboard categories not run "
                           f"(Overall counts them 0): {', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''}")
    return reasons


def header_lines(card: RunCard, tasks_total: int | None = None) -> list[str]:
    """The two lines under a table's title: the run's settings, and whether it is leaderboard-comparable."""
    split = card.split or "/".join(card.subsets[:6]) + ("/..." if len(card.subsets) > 6 else "") or "all"
    digest = f" {card.tasks_digest[:19]}" if card.tasks_digest else ""
    parts = [f"domain {card.domain}" if card.domain else None,
             f"retrieval {card.retrieval or _default_retrieval()}" if card.domain == "banking_knowledge" else None,
             f"{'categories' if card.env == 'BFCL-v0' else 'split'} {split}",
             f"tasks {card.tasks_source}{digest}",
             "user none (solo mode)" if card.solo else f"user {user_text(card.user)}" if card.user is not None else None,
             f"agent {card.agent}" + (f" (model {card.model})" if card.model and card.model not in str(card.agent)
                                      else ""),
             f"profile {card.profile or '-'}", f"scoring {card.scoring}", f"trials {card.trials}",
             "caps " + ", ".join(f"{k} {'none' if v is None else v}" for k, v in card.caps.items())
             if card.caps else None]
    reasons = comparability(card, tasks_total)
    word = "leaderboard-comparable" if card.env in LEADERBOARDS else "comparable with the paper's numbers"
    verdict = f"{word}: yes" if not reasons else f"{word}: no: " + "; ".join(reasons)
    return [printable_line("run: " + ", ".join(p for p in parts if p)), printable_line(verdict)]


def _default_retrieval() -> str:
    from toolgym.worlds.tau2.banking_knowledge.knowledge import DEFAULT_RETRIEVAL_CONFIG
    return DEFAULT_RETRIEVAL_CONFIG


def printable_line(text: str) -> str:
    """A line for a terminal: control characters replaced (a results file may hold anything)."""
    return "".join(c if c.isprintable() else "?" for c in text)
