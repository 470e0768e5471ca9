"""Record the request bodies BFCL's own OpenAI handlers (bfcl-eval 2026.3.23) send for scripted answers.

Run in a throwaway venv with bfcl-eval==2026.3.23 installed (its qwen_agent import stubbed if absent):
    python tests/data/bfcl_protocol/make_requests.py tests/data/bfcl_protocol/requests.json
"""
import copy, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

received, queue = [], []

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received.append({"path": self.path, "body": json.loads(body)})
        data = json.dumps(queue.pop(0)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *a):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
os.environ["OPENAI_API_KEY"] = "test"

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.model_handler.api_inference.openai_response import OpenAIResponsesHandler
from bfcl_eval.utils import load_dataset_entry

MODEL = "gpt-4o-2024-11-20"

def chat_calls(calls, n):
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "refusal": None,
                                     "tool_calls": [{"id": f"call_{n}_{i}", "type": "function",
                                                     "function": {"name": name, "arguments": json.dumps(args)}}
                                                    for i, (name, args) in enumerate(calls)]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

def chat_text(text, n):
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text, "refusal": None}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

def resp_calls(calls, n):
    return {"id": f"resp_{n}", "object": "response", "created_at": 0, "status": "completed", "model": MODEL,
            "output": [{"type": "function_call", "id": f"fc_{n}_{i}", "call_id": f"call_{n}_{i}", "name": name,
                        "arguments": json.dumps(args), "status": "completed"} for i, (name, args) in enumerate(calls)],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}

def resp_text(text, n):
    return {"id": f"resp_{n}", "object": "response", "created_at": 0, "status": "completed", "model": MODEL,
            "output": [{"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}

FIND_PWD = [("find", {"path": ".", "name": "test"}), ("pwd", {})]
CD = [("cd", {"folder": "projects"})]
# scenario: (handler class, fc?, task id, answers as (kind, payload))
SCENARIOS = {
    "fc_simple_python_14": (OpenAICompletionsHandler, True, "simple_python_14",
                            [("calls", [("calculate_derivative", {"function": "3x^2", "x_value": 2.0})])]),
    "fc_parallel_0": (OpenAICompletionsHandler, True, "parallel_0",
                      [("calls", [("spotify_play", {"artist": "Taylor Swift", "duration": 20}),
                                  ("spotify_play", {"artist": "Maroon 5", "duration": 15})])]),
    "fc_simple_java_0": (OpenAICompletionsHandler, True, "simple_java_0", [("text", "No.")]),
    "fc_simple_javascript_0": (OpenAICompletionsHandler, True, "simple_javascript_0", [("text", "No.")]),
    "fc_multi_turn_base_3": (OpenAICompletionsHandler, True, "multi_turn_base_3",
                             [("calls", FIND_PWD), ("text", "I found them."), ("calls", CD), ("text", "Done.")]),
    "fc_multi_turn_miss_func_3": (OpenAICompletionsHandler, True, "multi_turn_miss_func_3",
                                  [("text", "Done."), ("text", "Done."), ("text", "Done.")]),
    "fc_responses_simple_python_14": (OpenAIResponsesHandler, True, "simple_python_14",
                                      [("calls", [("calculate_derivative", {"function": "3x^2"})])]),
    "fc_responses_multi_turn_base_3": (OpenAIResponsesHandler, True, "multi_turn_base_3",
                                       [("calls", FIND_PWD), ("text", "I found them."), ("calls", CD),
                                        ("text", "Done.")]),
    "fc_responses_multi_turn_miss_func_3": (OpenAIResponsesHandler, True, "multi_turn_miss_func_3",
                                            [("text", "Done."), ("text", "Done."), ("text", "Done.")]),
    "prompting_simple_python_14": (OpenAICompletionsHandler, False, "simple_python_14",
                                   [("text", "[calculate_derivative(function='3x^2', x_value=2.0)]")]),
    "prompting_simple_java_0": (OpenAICompletionsHandler, False, "simple_java_0", [("text", "No.")]),
    "prompting_multi_turn_base_3": (OpenAICompletionsHandler, False, "multi_turn_base_3",
                                    [("text", "[find(path='.', name='test'), pwd()]"), ("text", "I found them."),
                                     ("text", "[cd(folder='projects')]"), ("text", "Done.")]),
    "prompting_multi_turn_miss_func_3": (OpenAICompletionsHandler, False, "multi_turn_miss_func_3",
                                         [("text", "Done."), ("text", "Done."), ("text", "Done.")]),
    "prompting_responses_multi_turn_base_3": (OpenAIResponsesHandler, False, "multi_turn_base_3",
                                              [("text", "[find(path='.', name='test'), pwd()]"),
                                               ("text", "I found them."), ("text", "[cd(folder='projects')]"),
                                               ("text", "Done.")]),
}

out = {}
for name, (cls, fc, task_id, answers) in SCENARIOS.items():
    category = task_id.rsplit("_", 1)[0]
    entry = copy.deepcopy(next(e for e in load_dataset_entry(category) if e["id"] == task_id))
    responses = cls is OpenAIResponsesHandler
    queue[:] = [(resp_calls if responses else chat_calls)(p, n) if kind == "calls" else
                (resp_text if responses else chat_text)(p, n) for n, (kind, p) in enumerate(answers)]
    answers_sent = list(queue)
    received.clear()
    handler = cls(MODEL, 0.001, MODEL + ("-FC" if fc else ""), fc)
    handler.model_name_underline_replaced = name  # BFCL keeps each entry's API instances under this name
    handler.inference(entry, include_input_log=False, exclude_state_log=True)
    assert not queue, (name, len(queue))
    out[name] = {"profile": ("bfcl-fc" if fc else "bfcl-prompting") + ("-responses" if responses else ""),
                 "task_id": task_id, "answers": answers_sent, "requests": list(received)}
    print(name, len(received))

# Values repeated across requests (tool lists, the prompting system prompt) are stored once, in "shared",
# and referenced as {"$shared": index}.
from collections import Counter
counts = Counter()
def visit(value):
    if isinstance(value, (str, list)) and len(json.dumps(value)) >= 500:
        counts[json.dumps(value)] += 1
    if isinstance(value, dict):
        for v in value.values():
            visit(v)
    elif isinstance(value, list):
        for v in value:
            visit(v)
visit(out)
shared = []
index = {}
def replace(value):
    key = json.dumps(value) if isinstance(value, (str, list)) else None
    if key is not None and counts.get(key, 0) > 1:
        if key not in index:
            index[key] = len(shared)
            shared.append(value)
        return {"$shared": index[key]}
    if isinstance(value, dict):
        return {k: replace(v) for k, v in value.items()}
    if isinstance(value, list):
        return [replace(v) for v in value]
    return value
scenarios = replace(out)
note = ("Request bodies that BFCL's own OpenAICompletionsHandler / OpenAIResponsesHandler (bfcl-eval 2026.3.23, "
        "model gpt-4o-2024-11-20, temperature 0.001) sent to a recording server answering with 'answers', one "
        "scenario per profile and task; made by tests/data/bfcl_protocol/make_requests.py in a throwaway venv with "
        "bfcl-eval installed. Values repeated across requests are in 'shared', referenced as {'$shared': i}.")
json.dump({"note": note, "shared": shared, "scenarios": scenarios}, open(sys.argv[1], "w"), indent=None,
          ensure_ascii=False, separators=(",", ":"))
