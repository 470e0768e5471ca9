"""``toolgym view RESULTS.jsonl [--against OTHER.jsonl] [--html OUT]``: a results file as a web page.

The page (the Jinja2 template ``toolgym/assets/templates/viewer.html``) lists the episodes with
filters (env, split, agent, success, task id), 50 a page, and shows the one chosen as a timeline:
the prompt, each action, observation and reward, the LLM's tokens and logprobs where the record
has them, the metrics at the end and what the episode changed in the world's rows (the record's
``world_diff``).
``--against`` puts the episode of the same env and task from another results file beside it.
The records are read with :func:`toolgym.eval.runner.read_numbered_results` (checked: a results
file is untrusted input) and drawn by the page's script with ``textContent``, never as markup. The
page's data is JSON in a script element, written by Jinja2's ``tojson``, which writes ``<``, ``>``,
``&`` and ``'`` as ``\\u003c``...: no text of the file can end or comment out the element. Values
a browser's JSON cannot hold (NaN, Infinity, integers past 2**53) reach the page as text, and a
success that is not a number is shown as its JSON text.

The page is light whatever the file's size: it holds one short summary per episode (task, env,
split, agent, success, return, steps) and fetches an episode's record only when it is shown.
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

from toolgym.eval.runner import read_numbered_results
from toolgym.templating import render

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines ends a line
RECORD_PATH = re.compile(r"/record/(\d{1,9})/(\d{1,9})", re.ASCII)
# A line that may hold a number a browser's JSON.parse cannot keep (JSON.parse reads 10**400 as Infinity,
# 2**53 + 1 as 2**53; NaN and Infinity it refuses) is rewritten with those numbers as text.
LONG_NUMBER = re.compile(r"[0-9]{16}", re.ASCII)
SHOWN_CHARS = 40  # of a success that is not a number, in the list
MAX_SAFE_INTEGER = 2**53


@dataclass
class Run:
    """A results file as the page lists it.

    Attributes:
        path: The file.
        summaries: One ``[task_id, env, split, agent, success, return, steps]`` per record.
        keys: Each record's ``(env, task_id)``, to pair it with another run's.
        spans: Each record's line as (byte offset, byte length) in the file.
        as_is: Whether each record's line is JSON a browser reads as Python does (no NaN,
            Infinity or long integer in it).
    """

    path: Path
    summaries: list[list]
    keys: list[tuple[str, str]]
    spans: list[tuple[int, int]]
    as_is: list[bool]

    @classmethod
    def read(cls, path: str | Path) -> Run:
        """The records of ``path``, checked; raises ValueError ``FILE[:LINE]: why`` for a bad one."""
        path = Path(path)
        try:
            numbered = read_numbered_results(path)
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}); is this a toolgym results file?") from None
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
        summaries, keys = [_summary(record) for _, record in numbered], [(r["env"], r["task_id"]) for _, r in numbered]
        return cls(path, summaries, keys, [starts[n - 1] for n, _ in numbered], [plain[n - 1] for n, _ in numbered])

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
    return [record["task_id"], record["env"], record.get("split") or "", record.get("agent") or "", outcome,
            returned, len(trajectory)]


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


def page(results: str | Path, against: str | Path | None = None, served: bool = False) -> str:
    """The viewer's HTML for ``results`` (and ``against``): with every record in it, or, ``served``,
    with the summaries only (the page fetches records from :func:`make_server`'s server)."""
    runs = [Run.read(results)] + ([Run.read(against)] if against is not None else [])
    return page_of(runs, served)


def page_of(runs: list[Run], served: bool = False) -> str:
    """The viewer's HTML for runs already read."""
    if len(runs) > 1:
        other = {key: j for j, key in enumerate(runs[1].keys)}
        rows = [[i, other.get(key, -1)] for i, key in enumerate(runs[0].keys)]
    else:
        rows = [[i, -1] for i in range(len(runs[0].keys))]
    data = {"served": served, "runs": [], "rows": rows}
    for run in runs:
        part = {"name": run.path.name, "summaries": run.summaries}
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
    runs = [Run.read(args.results)] + ([Run.read(args.against)] if args.against else [])
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
