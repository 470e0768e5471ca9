"""``toolgym view RESULTS.jsonl [--against OTHER.jsonl] [--html OUT]``: a results file as a web page.

The page (``toolgym/assets/viewer.html``) lists the episodes with filters (env, split, agent,
success, task id), 50 a page, and shows the one chosen as a timeline: the prompt, each action,
observation and reward, the LLM's tokens and logprobs where the record has them, the metrics at
the end and what the episode changed in the world's rows (the record's ``world_diff``).
``--against`` puts the episode of the same env and task from another results file beside it.
The records are read with :func:`toolgym.eval.runner.read_numbered_results` (checked: a results
file is untrusted input) and drawn by the page's script with ``textContent``, never as markup.

The page is light whatever the file's size: it holds one short summary per episode (task, env,
split, agent, success, return, steps) and fetches an episode's record only when it is shown.
Served (without ``--html``, on 127.0.0.1 until Ctrl-C; ``--host`` to change), the server keeps
each record's place in its file and answers ``GET /record/<run>/<index>`` with that line; as one
static file (``--html OUT``), each record is in the page as a JSON string, parsed when shown.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from toolgym.eval.runner import read_numbered_results

PLACEHOLDER = "/*DATA*/"
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines ends a line
RECORD_PATH = re.compile(r"/record/(\d{1,9})/(\d{1,9})", re.ASCII)


@dataclass
class Run:
    """A results file as the page lists it.

    Attributes:
        path: The file.
        summaries: One ``[task_id, env, split, agent, success, return, steps]`` per record.
        keys: Each record's ``(env, task_id)``, to pair it with another run's.
        spans: Each record's line as (byte offset, byte length) in the file.
        finite: Whether each record's line is JSON a browser reads (no NaN or Infinity in it).
    """

    path: Path
    summaries: list[list]
    keys: list[tuple[str, str]]
    spans: list[tuple[int, int]]
    finite: list[bool]

    @classmethod
    def read(cls, path: str | Path) -> Run:
        """The records of ``path``, checked; raises ValueError ``FILE:LINE: why`` for a bad one."""
        path = Path(path)
        numbered = read_numbered_results(path)
        starts, plain, offset = [], [], 0
        # The lines as read_numbered_results numbers them (str.splitlines: \f, \x85, ... end lines too).
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            content = line.rstrip(LINE_BREAKS)  # a piece ends with one break ("\r\n" is one)
            starts.append((offset, len(content.encode("utf-8"))))
            plain.append("NaN" not in content and "Infinity" not in content)
            offset += len(line.encode("utf-8"))
        summaries, keys = [_summary(record) for _, record in numbered], [(r["env"], r["task_id"]) for _, r in numbered]
        return cls(path, summaries, keys, [starts[n - 1] for n, _ in numbered], [plain[n - 1] for n, _ in numbered])

    def record_text(self, index: int, file=None) -> str:
        """Record ``index`` as JSON a browser reads: its line, or the record rewritten without NaN."""
        offset, length = self.spans[index]
        if file is None:
            with self.path.open("rb") as opened:
                return self.record_text(index, opened)
        file.seek(offset)
        text = file.read(length).decode("utf-8", errors="replace")
        if not self.finite[index]:  # Python's json writes NaN and Infinity; a browser's JSON.parse refuses them
            text = json.dumps(_finite(json.loads(text)), default=str)
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
        number = float(success)
        outcome = str(int(number)) if number.is_integer() else repr(number)
    trajectory = record.get("trajectory") or []
    returned = record.get("return")
    return [record["task_id"], record["env"], record.get("split") or "", record.get("agent") or "", outcome,
            returned if isinstance(returned, (int, float)) and math.isfinite(returned) else 0, len(trajectory)]


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
    parts = []
    for run in runs:
        part = f'{{"name": {json.dumps(run.path.name)}, "summaries": {json.dumps(run.summaries)}'
        if not served:
            with run.path.open("rb") as file:
                part += ', "records": ' + json.dumps([run.record_text(i, file) for i in range(len(run.spans))])
        parts.append(part + "}")
    data = f'{{"served": {json.dumps(served)}, "runs": [{", ".join(parts)}], "rows": {json.dumps(rows)}}}'
    # In a <script> element only "</" ends the data early, and JSON has it only inside strings, where "<\/" means the same.
    data = data.replace("</", "<\\/")
    template = resources.files("toolgym").joinpath("assets/viewer.html").read_text(encoding="utf-8")
    return template.replace(PLACEHOLDER, data, 1)


def _finite(value):
    """``value`` with NaN and infinite floats as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
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
    from toolgym.serving import BoundedHandler, BoundedHTTPServer

    document = page_of(runs, served=True).encode("utf-8")

    class ViewHandler(BoundedHandler):
        def log_message(self, format, *args):  # quiet
            pass

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
            self.end_headers()
            self.wfile.write(body)

    return BoundedHTTPServer((host, port), ViewHandler, max_connections=16)
