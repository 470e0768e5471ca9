"""``toolgym view RESULTS.jsonl [MORE.jsonl ...] [--html OUT]``: results files as a web page.

The page (the Jinja2 template ``toolgym/assets/templates/viewer.html``) starts with each run's
summary: the paper table ``report`` prints (built by :func:`toolgym.eval.runner.table_rows`),
pass^1..pass^K for a run of K trials per task (:mod:`toolgym.eval.passk`), the trials, episodes,
errors and model tokens in and out, and three charts drawn in the page as SVG from the data
(success per subset, mean reward per step, tokens per episode). With several files the runs
stand side by side: a win/loss/tie count per pair of runs over the tasks both ran (by success,
then return, each a task's mean over its trials), and a warning for each key of the runs'
``provenance`` whose values differ (the same lines `report` prints). Below, the episodes are listed with filters (env, split,
agent, trial, success, task id), 50 a page, and the one chosen is shown as a timeline: the
prompt, each action, observation and reward, an LLM step's completion text and finish reason
(its token ids and logprobs folded, on demand), the metrics at the end and what the episode
changed in the world's rows (the record's ``world_diff``); each other run's episode of the same
env, task and trial stands beside it.
The records are read with :func:`toolgym.eval.runner.read_numbered_results` (checked: a results
file is untrusted input) and drawn by the page's script with ``textContent``, never as markup. The
page's data is JSON in a script element, written by Jinja2's ``tojson``, which writes ``<``, ``>``,
``&`` and ``'`` as ``\\u003c``...: no text of the file can end or comment out the element. Values
a browser's JSON cannot hold (NaN, Infinity, integers past 2**53) reach the page as text, and a
success that is not a number is shown as its JSON text. A paper table is built only for an env id
toolgym knows (a file's env id never makes view import a module) and only from the columns every
scored episode holds as numbers.

The page is light whatever the file's size: it holds one short summary per episode (task, env,
split, agent, success, return, steps, trial) and fetches an episode's record only when it is shown.
Served (without ``--html``, on 127.0.0.1 until Ctrl-C; ``--host`` to change), the server keeps
each record's place in its file and answers ``GET /record/<run>/<index>`` with that line; as one
static file (``--html OUT``), each record is in the page as a JSON string, parsed when shown.
Bound to loopback, the server answers only requests for 127.0.0.1, localhost or [::1] with a
port (421 otherwise) and no other site's page (403): a page whose name was rebound to 127.0.0.1
cannot read the results (:func:`toolgym.serving.loopback_refusal`, the MCP server's rule).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from toolgym.eval.passk import pass_hat_table, trials_of
from toolgym.eval.provenance import provenance_warnings as report_warnings
from toolgym.eval.runcard import header_lines, run_card
from toolgym.eval.runner import MAX_RESULTS_FILE, read_numbered_results, table_rows
from toolgym.registry import env_class, untrusted_env_args
from toolgym.templating import render
from toolgym.untrusted import read_text

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines ends a line
RECORD_PATH = re.compile(r"/record/(\d{1,9})/(\d{1,9})", re.ASCII)
# A line that may hold a number a browser's JSON.parse cannot keep (JSON.parse reads 10**400 as Infinity,
# 2**53 + 1 as 2**53; NaN and Infinity it refuses) is rewritten with those numbers as text.
LONG_NUMBER = re.compile(r"[0-9]{16}", re.ASCII)
SHOWN_CHARS = 40  # of a success that is not a number, in the list
MAX_SAFE_INTEGER = 2**53
CHART_POINTS = 200  # steps in the reward chart, episodes in the tokens chart, at most
TRIAL = 7  # the place of the trial in an episode's summary (eval --trials; "" for a run of one trial)


@dataclass
class Run:
    """A results file as the page lists it.

    Attributes:
        path: The file.
        summaries: One ``[task_id, env, split, agent, success, return, steps, trial]`` per record.
        keys: Each record's ``(env, task_id)``, to check that a line read again is still its record.
        spans: Each record's line as (byte offset, byte length) in the file.
        as_is: Whether each record's line is JSON a browser reads as Python does (no NaN,
            Infinity or long integer in it).
        summary: The run's summary (:func:`run_summary`).
        provenance: The first record's ``provenance`` (the run header's; ``{}`` without one).
        outcomes: Each record's ``(success, return)`` as numbers, to compare runs.
    """

    path: Path
    summaries: list[list]
    keys: list[tuple[str, str]]
    spans: list[tuple[int, int]]
    as_is: list[bool]
    summary: dict
    provenance: dict
    outcomes: list[tuple[float, float]]

    @classmethod
    def read(cls, path: str | Path) -> Run:
        """The records of ``path``, checked; raises ValueError ``FILE[:LINE]: why`` for a bad one."""
        path = Path(path)
        try:
            numbered = read_numbered_results(path)
            text = read_text(path, MAX_RESULTS_FILE, "results file")
        except ValueError as exc:  # json's own limits (an integer of over 4300 digits) do not name the file
            if str(exc).startswith(str(path)):
                raise
            raise ValueError(f"{path}: {exc}") from None
        starts, plain, offset = [], [], 0
        # The lines as read_numbered_results numbers them (str.splitlines: \f, \x85, ... end lines too).
        for line in text.splitlines(keepends=True):
            content = line.rstrip(LINE_BREAKS)  # a piece ends with one break ("\r\n" is one)
            starts.append((offset, len(content.encode("utf-8"))))
            plain.append("NaN" not in content and "Infinity" not in content and not LONG_NUMBER.search(content))
            offset += len(line.encode("utf-8"))
        records = [record for _, record in numbered]
        provenance = next((r["provenance"] for r in records if isinstance(r.get("provenance"), dict)), {})
        return cls(path, [_summary(record) for record in records], [(r["env"], r["task_id"]) for r in records],
                   [starts[n - 1] for n, _ in numbered], [plain[n - 1] for n, _ in numbered], run_summary(records),
                   provenance, [(_number(_success(r)), _number(r.get("return"))) for r in records])

    def pairing_keys(self) -> list[tuple]:
        """Each record's ``(env, task_id, trial)``: the episode another run's is shown beside."""
        return [(env, task_id, summary[TRIAL]) for (env, task_id), summary in zip(self.keys, self.summaries)]

    def record_text(self, index: int, file=None) -> str:
        """Record ``index`` as JSON a browser reads: its line, or the record rewritten with NaN,
        Infinity and long integers as text."""
        offset, length = self.spans[index]
        if file is None:
            with self.path.open("rb") as opened:
                return self.record_text(index, opened)
        file.seek(offset)
        text = file.read(length).decode("utf-8", errors="replace")
        if not self.as_is[index]:  # JSON.parse refuses NaN and Infinity and rounds long integers
            text = json.dumps(_browser_json(json.loads(text)))
        return text

    def served_record(self, index: int) -> str | None:
        """:meth:`record_text` read again from the file for the server; None when the line there is
        no longer record ``index`` (the file changed since it was read)."""
        try:
            text = self.record_text(index)
            record = json.loads(text)
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(record, dict) or (record.get("env"), record.get("task_id")) != self.keys[index]:
            return None
        return text


def _summary(record: dict) -> list:
    """The episode's row in the list: what the filters and columns read."""
    metrics = record.get("metrics") or {}
    success = metrics.get("success")
    if record.get("error"):
        outcome = "error"
    elif success is None:
        outcome = ""
    else:
        outcome = _shown(success)
    trajectory = record.get("trajectory") or []
    returned = record.get("return")
    if returned is None or isinstance(returned, bool):
        returned = int(returned or 0)
    elif not isinstance(returned, (int, float)) or not _is_browser_number(returned):
        returned = _shown(returned)
    trial = record.get("trial")
    if isinstance(trial, bool) or not isinstance(trial, int) or not _is_browser_number(trial):
        trial = ""
    return [record["task_id"], record["env"], record.get("split") or "", record.get("agent") or "", outcome,
            returned, len(trajectory), trial]


def _success(record: dict):
    """An episode's success as recorded (None for an episode that ended with an error)."""
    return None if record.get("error") else (record.get("metrics") or {}).get("success")


def _number(value) -> float:
    """A recorded value as a finite number for the charts and the comparison (0 for anything else)."""
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an integer past float's range
            return 0.0
        return number if math.isfinite(number) else 0.0
    return 0.0


def run_summary(records: list[dict]) -> dict:
    """What the page shows above a run's episodes: ``episodes``, ``errors``, ``trials`` (per task,
    :func:`toolgym.eval.passk.trials_of`), ``passk`` (``{"pass^1": ..., "pass^K": ...}`` over all
    tasks; ``{}`` for a run of one trial), ``tokens`` (``{"in", "out", "calls", "episodes"}`` from
    the records' ``usage``; None when no model played), ``tables`` (the paper table per env,
    agent and seed, as ``report`` prints it) and ``charts`` (their data)."""
    scored = [r for r in records if r.get("metrics")]
    trials = trials_of(scored)
    passes = pass_hat_table(scored) if trials > 1 else {}
    used = [r["usage"] for r in records if r.get("usage")]
    tokens = None
    if used:
        tokens = {"in": sum(u.get("prompt_tokens", 0) for u in used),
                  "out": sum(u.get("completion_tokens", 0) for u in used),
                  "calls": sum(u.get("calls", 0) for u in used), "episodes": len(used)}
    return {"episodes": len(records), "errors": sum(1 for r in records if r.get("error")), "trials": trials,
            "passk": passes.get("all", next(iter(passes.values()), {})), "tokens": tokens,
            "tables": paper_tables(records), "charts": _charts(records)}


def paper_tables(records: list[dict]) -> list[dict]:
    """The paper table of each run in ``records`` (grouped as ``report`` groups them: env,
    env_kwargs, agent, seed) as ``{"title", "card", "head", "body", "note"}``: the card is the
    lines ``report`` prints under the title (the run's settings, whether it is
    leaderboard-comparable); the note says why a table is missing or what it leaves out."""
    runs: dict[tuple, list[dict]] = {}
    for record in records:
        key = (record["env"], json.dumps(record.get("env_kwargs") or {}, sort_keys=True), record.get("agent"),
               record.get("seed"))
        runs.setdefault(key, []).append(record)
    tables = []
    for (env_id, _, agent, seed), group in runs.items():
        first = group[0]
        title = (f"{env_id} ({first.get('task_set', '?')} tasks, scoring={first.get('scoring', '?')}), "
                 f"agent {agent}, seed {seed}")
        table = {"title": title, "card": header_lines(run_card(group)), "head": [], "body": [], "note": ""}
        tables.append(table)
        errors = sum(1 for r in group if r.get("error"))
        if errors:
            table["note"] = f"{errors} episode(s) ended with an error and are not in the table"
        scored = [r["metrics"] for r in group if r.get("metrics")]
        if not scored:
            table["note"] = table["note"] or "no episode was scored"
            continue
        if untrusted_env_args(env_id, {}):  # a file's env id never makes view import a module
            table["note"] = "no table: the env id names a module, which view does not import"
            continue
        try:
            cls = env_class(env_id)
        except ValueError:
            table["note"] = "no table: toolgym does not know this env id"
            continue
        columns = [c for c in cls.table_columns if all(_column_reads(c, m) for m in scored)]
        left_out = [c.title for c in cls.table_columns if c not in columns]
        try:
            table["head"], table["body"] = table_rows(columns, cls.table_groups, group)
        except (ArithmeticError, ValueError, TypeError) as exc:  # a hostile file's numbers
            table["note"] = f"no table: {exc}"
            continue
        if left_out:
            table["note"] = "; ".join(filter(None, [table["note"], "left out (not a number in every scored episode): "
                                                    + ", ".join(left_out)]))
    return tables


def _column_reads(column, metrics: dict) -> bool:
    """Whether a column of the paper table can read an episode's ``metrics`` (a mean's key is
    there; every key there is a number)."""
    if column.kind == "mean" and column.keys[0] not in metrics:
        return False
    return all(isinstance(metrics[k], (int, float)) for k in column.keys if k in metrics)


def _charts(records: list[dict]) -> dict:
    """The charts' data: ``subsets`` ``[[subset, success rate, episodes]]`` (an episode that ended
    with an error counts as a failure), ``rewards`` ``[[step, mean reward, episodes]]`` over the
    episodes that reached each step (the first CHART_POINTS steps), ``tokens`` ``[[task_id, in,
    out]]`` per episode a model played (the first CHART_POINTS)."""
    several = len({r["env"] for r in records}) > 1
    subsets: dict[str, list[float]] = {}
    step_rewards: list[list[float]] = []
    tokens = []
    for record in records:
        name = record.get("split") or "all"
        subsets.setdefault(f"{record['env']} {name}" if several else name, []).append(_number(_success(record)))
        for k, step in enumerate((record.get("trajectory") or [])[:CHART_POINTS]):
            if k == len(step_rewards):
                step_rewards.append([])
            step_rewards[k].append(_number(step.get("reward")) if isinstance(step, dict) else 0.0)
        usage = record.get("usage")
        if usage and len(tokens) < CHART_POINTS:
            tokens.append([record["task_id"], usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)])
    return {"subsets": [[name, sum(v) / len(v), len(v)] for name, v in subsets.items()],
            "rewards": [[k + 1, sum(v) / len(v), len(v)] for k, v in enumerate(step_rewards)],
            "tokens": tokens}


def compare(runs: list[Run]) -> list[dict]:
    """Per pair of runs, over the tasks (env, task_id) both ran: ``wins`` (the first run did better),
    ``losses``, ``ties`` and ``tasks``; better is a higher success, then a higher return (each the
    mean over the task's trials; an episode that ended with an error has success 0)."""
    scores = []
    for run in runs:
        by_task: dict[tuple, list[tuple[float, float]]] = {}
        for key, outcome in zip(run.keys, run.outcomes):
            by_task.setdefault(key, []).append(outcome)
        scores.append({key: (sum(s for s, _ in v) / len(v), sum(r for _, r in v) / len(v))
                       for key, v in by_task.items()})
    pairs = []
    for a in range(len(runs)):
        for b in range(a + 1, len(runs)):
            shared = [key for key in scores[a] if key in scores[b]]
            wins = sum(1 for key in shared if scores[a][key] > scores[b][key])
            losses = sum(1 for key in shared if scores[a][key] < scores[b][key])
            pairs.append({"a": a, "b": b, "wins": wins, "losses": losses, "ties": len(shared) - wins - losses,
                          "tasks": len(shared)})
    return pairs


def provenance_warnings(runs: list[Run]) -> list[str]:
    """``report``'s warnings (:func:`toolgym.eval.provenance.provenance_warnings`) for the runs
    shown together: one line per provenance key whose values differ, and one per run that
    records none."""
    return report_warnings([(run.path.name, {"provenance": run.provenance} if run.provenance else {})
                            for run in runs])


def _shown(value) -> str:
    """A metric's value as the list shows it: a whole number as its digits (``1``, ``0``, ``1.0``
    as ``1``), another number as Python writes it, anything else as its JSON text, cut short."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        text = str(int(value)) if value.is_integer() else repr(value)  # nan, inf as Python writes them
    else:
        text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "\u2026"


def _is_browser_number(value: int | float) -> bool:
    """Whether a browser's JSON reads the number as Python does."""
    if isinstance(value, int):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return math.isfinite(value)


def page(*results: str | Path, served: bool = False) -> str:
    """The viewer's HTML for the results files: with every record in it, or, ``served``, with the
    summaries only (the page fetches records from :func:`make_server`'s server)."""
    return page_of([Run.read(path) for path in results], served)


def page_of(runs: list[Run], served: bool = False) -> str:
    """The viewer's HTML for runs already read: one row per episode of the first run, with the
    index of each other run's episode of the same env, task and trial (-1 for none)."""
    others = [{key: j for j, key in reversed(list(enumerate(run.pairing_keys())))} for run in runs[1:]]
    rows = [[i] + [other.get(key, -1) for other in others] for i, key in enumerate(runs[0].pairing_keys())]
    data = {"served": served, "runs": [], "rows": rows, "compare": compare(runs),
            "warnings": provenance_warnings(runs)}
    for run in runs:
        part = {"name": run.path.name, "summaries": run.summaries, "summary": _browser_json(run.summary)}
        if not served:
            with run.path.open("rb") as file:
                part["records"] = [run.record_text(i, file) for i in range(len(run.spans))]
        data["runs"].append(part)
    return render("viewer.html", data=data)


def _browser_json(value):
    """``value`` with the numbers a browser's JSON cannot hold (NaN, infinities, integers past
    2**53) as Python writes them, as strings."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not _is_browser_number(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _browser_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_browser_json(v) for v in value]
    return value


def view_command(args) -> int:
    """``toolgym view``: write the page (``--html``) or serve it on loopback."""
    runs = [Run.read(path) for path in args.results]
    if args.html:
        Path(args.html).write_text(page_of(runs), encoding="utf-8")
        print(f"wrote {args.html}")
        return 0
    server = make_server(runs, args.host, args.port)
    print(f"toolgym view on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def make_server(runs: list[Run], host: str = "127.0.0.1", port: int = 8765):
    """A server of the page for ``runs`` (``GET /``) and of their records (``GET /record/<run>/<index>``),
    bounded as every toolgym server."""
    from toolgym.serving import BoundedHandler, BoundedHTTPServer, drain, is_loopback, loopback_refusal

    document = page_of(runs, served=True).encode("utf-8")
    loopback = is_loopback(host)

    class ViewHandler(BoundedHandler):
        def log_message(self, format, *args):  # quiet
            pass

        def parse_request(self) -> bool:
            if not super().parse_request():
                return False
            refusal = loopback_refusal(self.headers) if loopback else None
            if refusal is not None:  # a name rebound to 127.0.0.1 (DNS rebinding) or another site's page
                self.close_connection = True
                self._answer(refusal.status, "text/plain; charset=utf-8", refusal.message.encode() + b"\n")
                drain(self.connection, 1.0)
                return False
            return True

        def do_GET(self):
            if self.path in ("/", "/index.html"):
                return self._answer(200, "text/html; charset=utf-8", document)
            asked = RECORD_PATH.fullmatch(self.path)
            if asked:
                run, index = int(asked[1]), int(asked[2])
                if run < len(runs) and index < len(runs[run].spans):
                    text = runs[run].served_record(index)
                    if text is None:
                        return self._answer(409, "text/plain", b"the results file changed since view read it\n")
                    return self._answer(200, "application/json", text.encode("utf-8"))
            self._answer(404, "text/plain", b"not found\n")

        def _answer(self, code: int, content_type: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

    return BoundedHTTPServer((host, port), ViewHandler, max_connections=16)
