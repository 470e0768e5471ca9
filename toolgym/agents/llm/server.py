"""A small OpenAI-compatible server over a :class:`TransformersBackend` (standard library only).

For local runs and tests where vLLM or ``transformers serve`` are not available::

    python -m toolgym.agents.llm.server MODEL_OR_PATH --port 8000 --max-batch 8

Serves ``GET /v1/models`` and ``POST /v1/chat/completions`` (non-streaming). Concurrent
requests are gathered into one batched ``generate`` call (up to ``--max-batch``, all with the
same decoding settings). Answers carry ``usage``, ``logprobs.content`` and vLLM's
``prompt_token_ids`` / ``choices[0].token_ids``; when the request offers ``tools`` and the
output is a tool call, it is returned as ``tool_calls``.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
import uuid
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from toolgym.agents.llm.backends import ChatRequest, SamplingParams
from toolgym.agents.llm.parsers import parse_tool_call


class BatchingGenerator:
    """Collects requests from handler threads and runs them through the backend in batches."""

    def __init__(self, backend, max_batch: int = 8, wait_s: float = 0.01):
        self.backend = backend
        self.max_batch = max_batch
        self.wait_s = wait_s
        self.batch_sizes: list[int] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._loop, daemon=True).start()

    def submit(self, request: ChatRequest, sampling: SamplingParams) -> Future:
        future: Future = Future()
        self._queue.put((request, sampling, future))
        return future

    def _loop(self) -> None:
        while True:
            items = [self._queue.get()]
            deadline = time.monotonic() + self.wait_s
            while len(items) < self.max_batch:
                try:
                    items.append(self._queue.get(timeout=max(0.0, deadline - time.monotonic())))
                except queue.Empty:
                    break
            groups: dict[SamplingParams, list] = {}
            for item in items:
                groups.setdefault(item[1], []).append(item)
            for sampling, group in groups.items():
                self.batch_sizes.append(len(group))
                try:
                    results = self.backend.generate([g[0] for g in group], sampling)
                except Exception as exc:  # reported to each waiting request as a 500
                    for g in group:
                        g[2].set_exception(exc)
                    continue
                for g, result in zip(group, results):
                    g[2].set_result(result)


class ChatHandler(BaseHTTPRequestHandler):
    """The HTTP side. ``server.generator`` and ``server.model_name`` are set by :func:`make_server`."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet: one line per request would drown the output
        pass

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._reply(200, {"object": "list", "data": [{"id": self.server.model_name, "object": "model"}]})
        elif self.path == "/health":
            self._reply(200, {"status": "ok"})
        else:
            self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def read_json(self) -> dict | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, json.JSONDecodeError):
            self._reply(400, {"error": {"message": "the body must be a JSON object"}})
            return None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._reply(400, {"error": {"message": "'messages' must be a list"}})
            return None
        return body

    def do_POST(self):
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._reply(404, {"error": {"message": f"no route {self.path}"}})
            return
        body = self.read_json()
        if body is not None:
            self.complete(body)

    def complete(self, body: dict) -> None:
        stop = body.get("stop") or ()
        try:
            sampling = SamplingParams(temperature=float(body.get("temperature") or 0.0),
                                      top_p=float(body.get("top_p") or 1.0),
                                      max_new_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens")
                                                         or 256),
                                      stop=tuple([stop] if isinstance(stop, str) else stop), seed=body.get("seed"))
            request = ChatRequest(messages=body["messages"], tools=body.get("tools") or None)
            result = self.server.generator.submit(request, sampling).result()
        except (TypeError, ValueError) as exc:
            self._reply(400, {"error": {"message": str(exc)}})
            return
        except Exception as exc:
            self._reply(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
            return
        message: dict = {"role": "assistant", "content": result.text}
        if request.tools:
            names = [t.get("function", {}).get("name") for t in request.tools]
            calls = [c for c in parse_tool_call(result.text, (), names) if isinstance(c, dict)]
            if calls:
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                     "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in calls]}
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message
                  else result.finish_reason, "token_ids": result.completion_token_ids}
        if body.get("logprobs"):
            choice["logprobs"] = {"content": [{"token": str(t), "logprob": lp} for t, lp in
                                              zip(result.completion_token_ids or [], result.logprobs or [])]}
        self._reply(200, {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion",
                          "created": int(time.time()), "model": self.server.model_name, "choices": [choice],
                          "prompt_token_ids": result.prompt_token_ids,
                          "usage": {"prompt_tokens": result.prompt_tokens,
                                    "completion_tokens": result.completion_tokens,
                                    "total_tokens": result.prompt_tokens + result.completion_tokens}})


def make_server(backend, host: str = "127.0.0.1", port: int = 0, max_batch: int = 8, model_name: str | None = None,
                handler: type[BaseHTTPRequestHandler] = ChatHandler) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    server.generator = BatchingGenerator(backend, max_batch=max_batch)
    server.model_name = model_name or getattr(backend, "model_id", "model")
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolgym.agents.llm.server", description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--max-batch", type=int, default=8)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    args = parser.parse_args(argv)
    from toolgym.agents.llm.backends import TransformersBackend
    server = make_server(TransformersBackend(args.model, device=args.device, dtype=args.dtype), args.host, args.port,
                         args.max_batch)
    print(f"serving {server.model_name} on http://{args.host}:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
