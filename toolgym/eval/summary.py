"""Tables across runs, as the leaderboards lay them out: BFCL's overall columns per agent over
several results files (each usually a category or a group of them), and τ-bench's and τ²'s
pass^k per domain. ``report`` prints them after each file's own table."""

from __future__ import annotations

from collections.abc import Sequence

from toolgym.envs.bfcl.leaderboard import ENTRY_COUNTS, category_counts, format_sensitivity_stats, leaderboard_columns
from toolgym.eval.passk import pass_hat_k
from toolgym.eval.runcard import comparability, printable_line, run_card
from toolgym.eval.tables import text_table

#: BFCL's overall table's columns that the summary shows, in the leaderboard's order.
BFCL_SUMMARY_COLUMNS = ("Overall Acc", "Non-Live AST Acc", "Live Acc", "Multi Turn Acc", "Agentic Acc", "Memory Acc",
                        "Relevance Detection", "Irrelevance Detection")
TAU_ENVS = ("Tau2-v0", "TauBench-v0")


def _by_agent(records: Sequence[dict]) -> dict[str, list[dict]]:
    agents: dict[str, list[dict]] = {}
    for record in records:
        agents.setdefault(str(record.get("agent")), []).append(record)
    return agents


def bfcl_summary(records: Sequence[dict]) -> list[str]:
    """BFCL's leaderboard columns (:func:`~toolgym.envs.bfcl.leaderboard.leaderboard_columns`), one
    row per agent over every BFCL-v0 record given (a task run twice counts once, its last
    record), then each agent's comparability; no lines without BFCL records."""
    bfcl = [r for r in records if r.get("env") == "BFCL-v0"]
    if not bfcl:
        return []
    body, verdicts = [], []
    for agent, runs in _by_agent(bfcl).items():
        latest = list({(r.get("split"), r["task_id"]): r for r in runs}.values())
        counts = category_counts(latest)
        columns = leaderboard_columns(counts)
        body.append([agent, str(len(latest)), str(len(counts)),
                     *("N/A" if columns[c].shown is None else f"{100 * columns[c].accuracy:.2f}"
                       for c in BFCL_SUMMARY_COLUMNS)])
        card = run_card(latest)
        official = sum(ENTRY_COUNTS.get(c, 0) for c in counts) if card.tasks_source == "official" else None
        reasons = comparability(card, official)
        verdicts.append(f"{agent}: leaderboard-comparable: " + ("yes" if not reasons else "no: " + "; ".join(reasons)))
    head = ["agent", "n", "categories", *BFCL_SUMMARY_COLUMNS]
    lines = ["BFCL leaderboard columns (computed as BFCL's generate_leaderboard_csv; N/A: a category not run, "
             "counted 0 in Overall Acc)", *text_table(head, body), *verdicts]
    for agent, runs in _by_agent(bfcl).items():
        stats = format_sensitivity_stats({r["task_id"]: r for r in runs}.values())
        if stats is not None:
            configs = [(k, v) for k, v in stats.items() if isinstance(v, dict)]
            lines += [f"BFCL format sensitivity, {agent} (data_format_sensitivity.csv's columns): Max Delta "
                      f"{stats['accuracy_max_delta']}, Standard Deviation {stats['accuracy_std']}",
                      *text_table(["config", "n", "accuracy"],
                                  [[k, str(v["total_count"]), f"{100 * v['accuracy']:.2f}"] for k, v in configs])]
    return [printable_line(line) for line in lines]


def tau_domain_summary(records: Sequence[dict]) -> list[str]:
    """τ-bench's and τ²'s table per domain: one row per env, domain and agent, with the mean reward
    and pass^1..pass^k (k up to the fewest trials of a task of the row, τ²'s rule); no lines
    when the records hold fewer than two such rows."""
    rows: dict[tuple, list[dict]] = {}
    for record in records:
        if record.get("env") in TAU_ENVS and isinstance(record.get("metrics"), dict):
            domain = run_card([record]).domain
            rows.setdefault((record["env"], domain, str(record.get("agent"))), []).append(record)
    if len(rows) < 2:
        return []
    tables = {}
    for key, runs in rows.items():
        outcomes: dict[str, list[bool]] = {}
        for record in runs:
            outcomes.setdefault(record["task_id"], []).append(bool(record["metrics"].get("success")))
        k = min(len(trials) for trials in outcomes.values())
        rewards = [float(r["metrics"].get("reward") or 0.0) for r in runs]
        tables[key] = (len(outcomes), sum(rewards) / len(rewards), [pass_hat_k(outcomes, i) for i in range(1, k + 1)])
    most = max(len(passes) for _, _, passes in tables.values())
    head = ["env", "domain", "agent", "tasks", "reward", *(f"pass^{i}" for i in range(1, most + 1))]
    body = [[env, str(domain), agent, str(n), f"{100 * reward:.1f}",
             *(f"{100 * p:.1f}" for p in passes), *("-" for _ in range(most - len(passes)))]
            for (env, domain, agent), (n, reward, passes) in tables.items()]
    return [printable_line(line) for line in ["τ per domain", *text_table(head, body)]]
