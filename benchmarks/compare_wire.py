"""The originals' harnesses and toolgym behind one recording OpenAI-compatible server (issue 47).

The server answers the agent and the user simulator by a fixed script and writes every request
body it gets to a JSON-lines file; ``diff`` compares two such files request by request. Run the
original in its own throwaway venv (τ²-bench and τ-bench need Python 3.12 and litellm; never
install them beside toolgym), toolgym from the repository:

    python benchmarks/compare_wire.py serve 18701 tau2.jsonl tau2          # τ² airline
    TAU2_DATA_DIR=$DATA/tau2bench tau2 run --domain airline --task-ids 0 --num-trials 1 \\
        --agent-llm openai/m --agent-llm-args '{"temperature": 0.0, "api_base": "http://127.0.0.1:18701/v1"}' \\
        --user-llm openai/m --user-llm-args '{"temperature": 0.0, "api_base": "http://127.0.0.1:18701/v1"}'
    python benchmarks/compare_wire.py serve 18702 toolgym.jsonl tau2
    toolgym eval Tau2-v0 --tasks official --episodes 1 --agent openai:http://127.0.0.1:18702/v1#m \\
        --env-kwarg user=llm:openai:http://127.0.0.1:18702/v1#m
    python benchmarks/compare_wire.py diff tau2.jsonl toolgym.jsonl

Scripts: ``tau2`` (the user asks to cancel reservation EHGLP3, the agent looks it up, answers,
the user stops), ``tau2-multi`` (the same with a turn of text and two calls), ``tau2-telecom``
(the user checks its status bar with a native tool call first; the agent answers), ``tau-bench``
(v1 retail: the user gives an email, the agent looks the user up, answers, the user stops; v1
asks the user model twice more when its env is built, and toolgym's ``tau-bench`` user too).

Measured on 2026-11-29 (τ² a2c0247, litellm 1.82.6): airline task 0,
4 of 4 requests equal; the same with a turn of text and two calls, 4 of 4; telecom task
``[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]`` (toolgym's
side: ``Tau2Env(domain="telecom", tasks="official", split="full")`` reset to that task, an
``LLMAgent`` with ``prompt_format="tau2"``), 4 of 4; v1 retail task 0, 4 of 4.
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


SCRIPTS = {
    "tau2": {"user": ["Hi, I want to cancel my reservation EHGLP3.", "Thanks. ###STOP###"],
             "agent": [{"content": None, "tool_calls": [call("srv_1", "get_reservation_details",
                                                             {"reservation_id": "EHGLP3"})]},
                       {"content": "I found your reservation."}]},
    "tau2-multi": {"user": ["Hi, I want to cancel my reservation EHGLP3.", "Thanks. ###STOP###"],
                   "agent": [{"content": "Let me check.", "tool_calls": [
                       call("srv_1", "get_reservation_details", {"reservation_id": "EHGLP3"}),
                       call("srv_2", "get_user_details", {"user_id": "emma_kim_9957"})]},
                       {"content": "I found your reservation."}]},
    "tau2-telecom": {"user": [{"content": None, "tool_calls": [call("u_1", "check_status_bar", {})]},
                              "My phone has no signal.", "Thanks. ###STOP###"],
                     "agent": [{"content": "Please turn airplane mode off."}]},
    "tau-bench": {"user": ["Hi, I need help with my order. My email is yusuf.rossi7301@example.com",
                           "Thanks. ###STOP###"],
                  "agent": [{"content": None, "tool_calls": [call("srv_1", "find_user_id_by_email",
                                                                  {"email": "yusuf.rossi7301@example.com"})]},
                            {"content": "I found your reservation."}]},
}


def who(body: dict) -> str:
    """Which side a request is from, by its system prompt."""
    system = body["messages"][0].get("content") or ""
    if system.startswith("You are a user interacting") or "<scenario>" in system:
        return "user"
    return "agent"


def serve(port: int, out: str, script: str) -> None:
    answers, counts, lock = SCRIPTS[script], {"user": 0, "agent": 0}, threading.Lock()
    sink = open(out, "w", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        def _send(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._send({"object": "list", "data": [{"id": "m", "object": "model"}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            side = who(body)
            with lock:
                turn = counts[side]
                counts[side] += 1
                sink.write(json.dumps({"who": side, "turn": turn, "body": body}) + "\n")
                sink.flush()
            if side == "user" and script == "tau-bench":  # v1 opens several times: answer by the history
                turn = 0 if len(body["messages"]) == 2 else 1
            said = answers[side][min(turn, len(answers[side]) - 1)]
            message = {"role": "assistant", **(said if isinstance(said, dict) else {"content": said})}
            self._send({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def log_message(self, format, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def diff(original: str, ours: str, skip_first: int = 0) -> int:
    """Prints each request pair's differing fields; the number of pairs that differ."""
    theirs = [json.loads(line) for line in open(original, encoding="utf-8")][skip_first:]
    mine = [json.loads(line) for line in open(ours, encoding="utf-8")]
    differing = 0
    if len(theirs) != len(mine):
        print(f"{len(theirs)} requests vs {len(mine)}")
        differing += 1
    for a, b in zip(theirs, mine):
        same = a["body"] == b["body"] and a["who"] == b["who"]
        print(f"{a['who']} {a['turn']} | {b['who']} {b['turn']}: {'equal' if same else 'DIFFERENT'}")
        differing += not same
        for key in sorted(set(a["body"]) | set(b["body"])):
            if a["body"].get(key) != b["body"].get(key):
                print(f"  {key}: {json.dumps(a['body'].get(key))[:300]}\n    vs {json.dumps(b['body'].get(key))[:300]}")
    return differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("port", type=int)
    s.add_argument("out")
    s.add_argument("script", choices=sorted(SCRIPTS))
    d = sub.add_parser("diff")
    d.add_argument("original")
    d.add_argument("ours")
    d.add_argument("--skip-first", type=int, default=0)
    args = parser.parse_args()
    if args.command == "serve":
        serve(args.port, args.out, args.script)
        return 0
    return 1 if diff(args.original, args.ours, args.skip_first) else 0


if __name__ == "__main__":
    raise SystemExit(main())
