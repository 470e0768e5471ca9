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

``domains`` plays the first N official tasks of every domain through both harnesses with the
``tasks`` script (answers read from each request: the user opens, in telecom after a native
``check_status_bar`` call, the agent makes one read call and answers, the user stops, the judge
says every outcome is met) and compares the requests side by side::

    python benchmarks/compare_wire.py domains --data $DATA --tau2 /tmp/tau2venv/bin/tau2 \
        --taubench-src /tmp/taubsrc --python /tmp/tau2venv/bin/python --tasks 5

Measured on 2026-11-29 with ``--tasks 5`` (τ² a2c0247, τ-bench 59a200c): τ² airline agent 10/10,
user 10/10; retail agent 10/10, user 10/10, judge 3/3; telecom agent 10/10, user 15/15; v1
airline agent 10/10, user 16/16 (v1's discarded openings included); v1 retail agent 10/10, user
16/16. Mock differs in count, not in fields: τ²'s evaluator raises when an env assertion's
function raises (``create_task_1_with_env_assertions`` asserts on a task the scripted agent never
created), ``tau2 run`` then retries the whole simulation (``--max-retries``) and records an
infrastructure error; toolgym counts the assertion not met and plays the episode once. Before that
task, mock's requests are equal (user 6/6, agent 4/4).

``limits`` runs τ² with ``--max-steps`` 1 to 9 and Tau2-v0 with ``max_messages`` the same (airline
task 0; telecom's first base task, whose user opens with a native call). Measured on 2026-11-29:
the terminations agree in 18 of 18 runs (``max_steps`` up to 5 in airline and 7 in telecom, then
``user_stop``; at 5 in airline the user's stop on the 5th message is overridden, as τ² does), and
the requests are equal except where the user's opening reaches the limit (airline 1, telecom 1 to
3): τ² never asks the agent, toolgym asks it once and ends the episode at its first step unread.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


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


#: The model τ²'s NL-assertion judge asks (its ``DEFAULT_LLM_NL_ASSERTIONS``).
TAU2_JUDGE_MODEL = "gpt-4.1-2025-04-14"
#: The start of τ²'s NL-assertion judge's system prompt.
JUDGE_PROMPT_START = "TASK\n        - You will be given a list of expected outcomes"
#: ``tasks`` script: the agent's one read call per episode, the first of these its tools offer (a wrong
#: argument is fine: the error text is compared too).
AGENT_READS = (("get_user_details", {"user_id": "mia_li_3668"}),
               ("get_customer_by_phone", {"phone_number": "555-123-2002"}), ("get_users", {}))


def who(body: dict) -> str:
    """Which side a request is from, by its system prompt."""
    system = body["messages"][0].get("content") or ""
    if system.startswith("You are a user interacting") or "<scenario>" in system:
        return "user"
    if system.lstrip().startswith(JUDGE_PROMPT_START):
        return "judge"
    return "agent"


def answer_by_history(side: str, body: dict) -> dict:
    """The ``tasks`` script, for any task of any domain, read from the request alone (so that
    several episodes in a row get the same answers on both harnesses): the user opens (in a
    domain where it has tools, after one check of its status bar), the agent makes one read call
    and then answers, the user stops; the judge says every expected outcome is met."""
    messages = body["messages"]
    if side == "judge":
        results = [{"expectedOutcome": "", "reasoning": "", "metExpectation": True}] * 50
        return {"content": json.dumps({"results": results})}
    if side == "user":
        if body.get("tools") and not any(m.get("role") == "tool" for m in messages):
            return {"content": None, "tool_calls": [call("u_1", "check_status_bar", {})]}
        spoke = any(m.get("role") == "assistant" and m.get("content") and not m.get("tool_calls")
                    for m in messages)
        return {"content": "Thanks, that is all. ###STOP###" if spoke else "Hi, I need help with my account."}
    if messages[-1].get("role") == "tool":
        return {"content": "I have looked into it. Is there anything else?"}
    offered = {tool["function"]["name"] for tool in body.get("tools") or ()}
    name, arguments = next(((n, a) for n, a in AGENT_READS if n in offered), (None, None))
    if name is None:
        return {"content": "How can I help?"}
    return {"content": None, "tool_calls": [call("srv_1", name, arguments)]}


def make_server(port: int, out: str, script: str) -> ThreadingHTTPServer:
    """The recording server (not yet serving): each request body a line of ``out``, the answers
    ``script``'s (``tasks``: :func:`answer_by_history`)."""
    answers, counts, lock = SCRIPTS.get(script), {"user": 0, "agent": 0, "judge": 0}, threading.Lock()
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
            if answers is None:
                said = answer_by_history(side, body)
            else:
                if side == "user" and script == "tau-bench":  # v1 opens several times: answer by the history
                    turn = 0 if len(body["messages"]) == 2 else 1
                said = answers[side][min(turn, len(answers[side]) - 1)]
            message = {"role": "assistant", **(said if isinstance(said, dict) else {"content": said})}
            self._send({"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def log_message(self, format, *args):
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def serve(port: int, out: str, script: str) -> None:
    make_server(port, out, script).serve_forever()


def diff(original: str, ours: str, skip_first: int = 0, quiet: bool = False) -> dict:
    """Compares the two files' requests side by side (the k-th agent request of one with the k-th
    of the other, and so for the user and the judge: the originals may judge after all episodes)
    and prints each pair's differing fields (``quiet``: only pairs that differ). Returns per side
    ``(equal, total)``, total counting the unpaired requests of the longer file."""
    theirs = [json.loads(line) for line in open(original, encoding="utf-8")][skip_first:]
    mine = [json.loads(line) for line in open(ours, encoding="utf-8")]
    counts: dict[str, tuple[int, int]] = {}
    for side in dict.fromkeys(r["who"] for r in theirs + mine):
        a_side = [r for r in theirs if r["who"] == side]
        b_side = [r for r in mine if r["who"] == side]
        if len(a_side) != len(b_side):
            print(f"{side}: {len(a_side)} requests vs {len(b_side)}")
        equal = 0
        for a, b in zip(a_side, b_side):
            same = a["body"] == b["body"]
            equal += same
            if not (quiet and same):
                print(f"{side} {a['turn']} | {b['turn']}: {'equal' if same else 'DIFFERENT'}")
            for key in sorted(set(a["body"]) | set(b["body"])):
                if a["body"].get(key) != b["body"].get(key):
                    print(f"  {key}: {json.dumps(a['body'].get(key))[:300]}\n"
                          f"    vs {json.dumps(b['body'].get(key))[:300]}")
        counts[side] = (equal, max(len(a_side), len(b_side)))
    return counts


def run_pair(name: str, original_command: list[str], original_env: dict, original_cwd: str | None,
             toolgym_command: list[str], folder: Path, port: int) -> dict:
    """Both harnesses, each behind its own recording server of the ``tasks`` script (``{url}`` in a
    command is the server's base URL); the side-by-side counts of :func:`diff`."""
    counts = {}
    files = []
    for who_runs, command, env, cwd, at in (("original", original_command, original_env, original_cwd, port),
                                            ("toolgym", toolgym_command, {}, None, port + 1)):
        out = folder / f"{name}-{who_runs}.jsonl"
        server = make_server(at, str(out), "tasks")
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{at}/v1"
        try:
            done = subprocess.run([part.replace("{url}", url) for part in command], cwd=cwd, capture_output=True,
                                  text=True, timeout=1800,
                                  env={**os.environ, **{k: v.replace("{url}", url) for k, v in env.items()}})
        finally:
            server.shutdown()
            server.server_close()
        if done.returncode != 0:
            print(f"{name} ({who_runs}) failed: {done.stderr[-2000:]}")
        files.append(out)
    print(f"== {name}")
    counts = diff(str(files[0]), str(files[1]), quiet=True)
    print(f"{name}: " + ", ".join(f"{side} {e}/{t} equal" for side, (e, t) in counts.items()))
    return counts


def domains(data: Path, tau2: str, taubench_src: str, python: str, tasks: int, folder: Path, port: int) -> int:
    """``tasks`` official tasks of every τ² domain (agent, user, judge) and of τ-bench v1's
    airline and retail (agent, user), each through the original's harness and toolgym's; prints
    the counts per domain and in all. Returns the number of differing requests."""
    from toolgym.envs.taubench.env import TauBenchEnv
    from toolgym.envs.tau2.env import Tau2Env

    folder.mkdir(parents=True, exist_ok=True)
    toolgym_eval = [sys.executable, "-m", "toolgym.eval.cli", "eval", "--tasks", "official", "--data-dir", str(data),
                    "--agent", "openai:{url}#m", "--env-kwarg", "user=llm:openai:{url}#m", "--episodes", str(tasks),
                    "--trials", "1", "--batch-size", "1", "--no-progress"]
    llm_args = json.dumps({"temperature": 0.0, "api_base": "{url}"})
    total: dict[str, list[int]] = {}
    for domain in ("airline", "retail", "telecom", "mock"):
        ids = Tau2Env(domain=domain, tasks="official", data_dir=str(data)).task_ids()[:tasks]
        original = [tau2, "run", "--domain", domain, "--task-ids", *ids, "--num-trials", "1", "--max-concurrency", "1",
                    "--agent-llm", "openai/m", "--agent-llm-args", llm_args, "--user-llm", "openai/m",
                    "--user-llm-args", llm_args, "--save-to", str(folder / f"tau2-{domain}-results")]
        environment = {"TAU2_DATA_DIR": str(data / "tau2bench"), "OPENAI_API_BASE": "{url}", "OPENAI_API_KEY": "x"}
        ours = [*toolgym_eval, "Tau2-v0", "--scoring", "paper_compat", "--env-kwarg", f"domain={domain}",
                "--env-kwarg", f"judge=openai:{{url}}#{TAU2_JUDGE_MODEL}", "--out", str(folder / f"tg-{domain}.jsonl")]
        for side, (e, t) in run_pair(f"tau2-{domain}", original, environment, None, ours, folder, port).items():
            total.setdefault(f"tau2 {side}", [0, 0])
            total[f"tau2 {side}"] = [total[f"tau2 {side}"][0] + e, total[f"tau2 {side}"][1] + t]
    for domain in ("airline", "retail"):
        ids = [task_id.rpartition("_")[2] for task_id in
               TauBenchEnv(domain=domain, tasks="official", data_dir=str(data)).task_ids()[:tasks]]
        original = [python, "run.py", "--env", domain, "--model", "m", "--model-provider", "openai", "--user-model",
                    "m", "--user-model-provider", "openai", "--agent-strategy", "tool-calling", "--user-strategy",
                    "llm", "--temperature", "0.0", "--task-ids", *ids, "--max-concurrency", "1", "--log-dir",
                    str(folder / f"v1-{domain}-results")]
        ours = [*toolgym_eval, "TauBench-v0", "--env-kwarg", f"domain={domain}",
                "--out", str(folder / f"tg-v1-{domain}.jsonl")]
        environment = {"OPENAI_API_BASE": "{url}", "OPENAI_API_KEY": "x"}
        for side, (e, t) in run_pair(f"v1-{domain}", original, environment, taubench_src, ours, folder,
                                     port).items():
            total.setdefault(f"v1 {side}", [0, 0])
            total[f"v1 {side}"] = [total[f"v1 {side}"][0] + e, total[f"v1 {side}"][1] + t]
    print("in all: " + ", ".join(f"{side} {e}/{t} equal" for side, (e, t) in total.items()))
    return sum(t - e for e, t in total.values())


def limits(data: Path, tau2: str, folder: Path, port: int, largest: int = 9) -> int:
    """τ²'s ``max_steps`` against Tau2-v0's ``max_messages``: airline task 0 and telecom's first
    base task (the user's opening has a native call there) at every limit from 1 to ``largest``,
    both harnesses behind the ``tasks`` script; prints each run's termination in both and the
    request counts. Returns the number of runs whose terminations differ."""
    from toolgym.envs.tau2.env import Tau2Env

    folder.mkdir(parents=True, exist_ok=True)
    llm_args = json.dumps({"temperature": 0.0, "api_base": "{url}"})
    differing = 0
    for domain in ("airline", "telecom"):
        task = Tau2Env(domain=domain, tasks="official", data_dir=str(data)).task_ids()[0]
        for limit in range(1, largest + 1):
            name = f"limit-{domain}-{limit}"
            original = [tau2, "run", "--domain", domain, "--task-ids", task, "--num-trials", "1", "--max-concurrency",
                        "1", "--max-steps", str(limit), "--agent-llm", "openai/m", "--agent-llm-args", llm_args,
                        "--user-llm", "openai/m", "--user-llm-args", llm_args, "--save-to", str(folder / f"{name}-res")]
            ours = [sys.executable, "-m", "toolgym.eval.cli", "eval", "Tau2-v0", "--tasks", "official", "--data-dir",
                    str(data), "--env-kwarg", f"domain={domain}", "--env-kwarg", f"max_messages={limit}", "--episodes",
                    "1", "--trials", "1", "--agent", "openai:{url}#m", "--env-kwarg", "user=llm:openai:{url}#m",
                    "--no-progress", "--scoring", "paper_compat", "--out", str(folder / f"{name}.jsonl")]
            run_pair(name, original, {"TAU2_DATA_DIR": str(data / "tau2bench"), "OPENAI_API_KEY": "x"}, None, ours,
                     folder, port)
            theirs = json.loads((folder / f"{name}-res" / "results.json").read_text())["simulations"][0]
            mine = next(json.loads(line) for line in open(folder / f"{name}.jsonl") if '"task_id"' in line)
            print(f"{name}: termination τ² {theirs['termination_reason']}, toolgym {mine['metrics']['termination']}")
            differing += theirs["termination_reason"] != mine["metrics"]["termination"]
    return differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("port", type=int)
    s.add_argument("out")
    s.add_argument("script", choices=sorted([*SCRIPTS, "tasks"]))
    d = sub.add_parser("diff")
    d.add_argument("original")
    d.add_argument("ours")
    d.add_argument("--skip-first", type=int, default=0)
    a = sub.add_parser("domains", help="several official tasks of every τ² domain and of v1's, both harnesses")
    a.add_argument("--data", type=Path, required=True, help="the official data folder (holds tau2bench/)")
    a.add_argument("--tau2", default="tau2", help="τ²'s CLI, installed in its own venv")
    a.add_argument("--taubench-src", required=True, help="τ-bench v1's source folder (holds run.py)")
    a.add_argument("--python", required=True, help="a Python that imports tau_bench and litellm")
    a.add_argument("--tasks", type=int, default=3, help="tasks per domain (default 3)")
    a.add_argument("--folder", type=Path, default=Path("wire"), help="where the request files go")
    a.add_argument("--port", type=int, default=18711)
    m = sub.add_parser("limits", help="τ²'s max_steps against Tau2-v0's max_messages at limits 1..9")
    m.add_argument("--data", type=Path, required=True, help="the official data folder (holds tau2bench/)")
    m.add_argument("--tau2", default="tau2", help="τ²'s CLI, installed in its own venv")
    m.add_argument("--folder", type=Path, default=Path("wire"), help="where the request files go")
    m.add_argument("--port", type=int, default=18721)
    args = parser.parse_args()
    if args.command == "limits":
        return 1 if limits(args.data, args.tau2, args.folder, args.port) else 0
    if args.command == "serve":
        serve(args.port, args.out, args.script)
        return 0
    if args.command == "domains":
        return 1 if domains(args.data, args.tau2, args.taubench_src, args.python, args.tasks, args.folder,
                            args.port) else 0
    counts = diff(args.original, args.ours, args.skip_first)
    return 1 if any(equal != total for equal, total in counts.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
