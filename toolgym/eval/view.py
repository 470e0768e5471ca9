"""``toolgym view RESULTS.jsonl [--against OTHER.jsonl] [--html OUT]``: a results file as a web page.

The page (``toolgym/assets/viewer.html``) lists the episodes with filters (env, split, agent,
success, task id), 50 a page, and shows the one chosen as a timeline: each action, observation
and reward, the LLM's tokens and logprobs where the record has them, the metrics at the end and
what the episode changed in the world's rows (the record's ``world_diff``). ``--against`` puts
the episode of the same env and task from another results file beside it. The records are read
with :func:`toolgym.eval.runner.read_numbered_results` (checked: a results file is untrusted
input), put into the page as their JSON lines (a 10,000-episode file opens in about a second), and drawn by the page's script with ``textContent``, never as markup.

Without ``--html`` the page is served on 127.0.0.1 (``--host`` to change) until Ctrl-C; with it,
the page is written to one static file.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

from toolgym.eval.runner import read_numbered_results

PLACEHOLDER = "/*DATA*/"


def page(results: str | Path, against: str | Path | None = None) -> str:
    """The viewer's HTML with the records of ``results`` (and ``against``) in it."""
    runs = [_run(results)]
    if against is not None:
        runs.append(_run(against))
        other = {key: j for j, key in enumerate(runs[1].pop("keys"))}
        rows = [[i, other.get(key, -1)] for i, key in enumerate(runs[0].pop("keys"))]
    else:
        rows = [[i, -1] for i in range(len(runs[0].pop("keys")))]
    data = ('{"runs": [' + ", ".join(f'{{"name": {json.dumps(r["name"])}, "records": [{r["records"]}]}}' for r in runs)
            + f'], "rows": {json.dumps(rows)}}}')
    template = resources.files("toolgym").joinpath("assets/viewer.html").read_text(encoding="utf-8")
    return template.replace(PLACEHOLDER, data, 1)


def _run(path: str | Path) -> dict:
    """A file's name, its records as the text of a JSON array's items, and their (env, task_id)."""
    numbered = read_numbered_results(path)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    texts = []
    for n, record in numbered:
        text = lines[n - 1]
        if "NaN" in text or "Infinity" in text:  # Python's json writes them; a browser's JSON.parse refuses them
            text = json.dumps(_finite(record), default=str)
        # In a <script> element only "</" ends the data early, and JSON has it only inside strings,
        # where "<\/" means the same.
        texts.append(text.replace("</", "<\\/"))
    return {"name": Path(path).name, "records": ", ".join(texts), "keys": [(r["env"], r["task_id"]) for _, r in numbered]}


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
    document = page(args.results, args.against)
    if args.html:
        Path(args.html).write_text(document, encoding="utf-8")
        print(f"wrote {args.html}")
        return 0
    server = make_server(document, args.host, args.port)
    print(f"toolgym view on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def make_server(document: str, host: str = "127.0.0.1", port: int = 8765):
    """A server that answers ``GET /`` with ``document`` (bounded as every toolgym server)."""
    from toolgym.serving import BoundedHandler, BoundedHTTPServer

    data = document.encode("utf-8")

    class ViewHandler(BoundedHandler):
        def log_message(self, format, *args):  # quiet
            pass

        def do_GET(self):
            found = self.path in ("/", "/index.html")
            body = data if found else b"not found\n"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8" if found else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return BoundedHTTPServer((host, port), ViewHandler, max_connections=16)
