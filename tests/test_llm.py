"""The LLM agent end to end on a tiny random Llama model built in the test (no downloads)."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import toolgym  # noqa: E402
from toolgym.agents import make_agent  # noqa: E402
from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.llm import ChatRequest, Completion, SamplingParams, TransformersBackend  # noqa: E402
from toolgym.agents.llm.prompts import ToolBenchFormat, defaults_for  # noqa: E402
from toolgym.agents.llm.react import ReActFormat  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.eval.batch import evaluate_batched  # noqa: E402
from toolgym.eval.cli import main  # noqa: E402

ENV = "ToolTalk-v0"
EPISODES = 4


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    env = gym.make(ENV)
    _, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    corpus = [json.dumps(t) for t in info["tools"]] * 3 + [m["content"] for m in info["messages"]]
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=3, corpus=corpus)


@pytest.fixture(scope="module")
def backend(tiny_model):
    return TransformersBackend(str(tiny_model))


def _agent(backend, **sampling):
    return LLMAgent(backend, env=gym.make(ENV), sampling=SamplingParams(**{"max_new_tokens": 12, **sampling}))


def _completion_ids(records):
    return [[step["llm"]["completion_token_ids"] for step in r["trajectory"]] for r in records]


def test_full_evaluation_records_token_ids_and_run_settings(backend, tmp_path):
    out = tmp_path / "results.jsonl"
    records, env, stats = evaluate_batched(ENV, _agent(backend), f"hf:{backend.model_id}", seed=0,
                                           episodes=EPISODES, out=out, progress=False, batch_size=EPISODES)
    assert [r["task_id"] for r in records] == env.unwrapped.task_ids()[:EPISODES]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["task_id"] for r in lines) == sorted(r["task_id"] for r in records)
    tokenizer = backend.tokenizer
    for record in records:
        assert record["metrics"] is not None and "success" in record["metrics"]
        assert record["model"] == backend.model_id and record["prompt_format"] == "tooltalk"
        assert record["parser"] == "tool_call" and record["toolgym_version"] == toolgym.__version__
        assert record["decoding"] == {"temperature": 0.0, "top_p": None, "max_new_tokens": 12, "stop": [], "seed": None}
        assert record["task_set"] == "built-in" and record["backend"] == "hf"
        for step in record["trajectory"]:
            llm = step["llm"]
            prompt = tokenizer.decode(llm["prompt_token_ids"])
            assert prompt.startswith("<|im_start|>system\nYou are a helpful assistant. Here is some user data:")
            assert prompt.endswith("<|im_start|>assistant\n") and "# Tools" in prompt
            assert llm["prompt_tokens"] == len(llm["prompt_token_ids"])
            assert 1 <= llm["completion_tokens"] == len(llm["completion_token_ids"]) == len(llm["logprobs"]) <= 12
            assert all(lp <= 0 for lp in llm["logprobs"])
            assert tokenizer.decode(llm["completion_token_ids"], skip_special_tokens=True) == llm["text"]
    assert stats["episodes"] == EPISODES
    assert stats["completion_tokens"] == sum(s["llm"]["completion_tokens"] for r in records for s in r["trajectory"])
    assert sum(stats[k] for k in ("completion_tokens",)) > 2 * EPISODES  # the model does say something


def test_batched_runner_gives_the_same_actions_as_one_at_a_time(backend):
    spec = f"hf:{backend.model_id}"
    batched, _, stats = evaluate_batched(ENV, _agent(backend), spec, episodes=EPISODES, progress=False,
                                         batch_size=EPISODES)
    single, _, _ = evaluate_batched(ENV, _agent(backend), spec, episodes=EPISODES, progress=False, batch_size=1)
    assert stats["generate_calls"] < sum(len(r["trajectory"]) for r in batched)  # really batched
    assert [[s["action"] for s in r["trajectory"]] for r in batched] == \
           [[s["action"] for s in r["trajectory"]] for r in single]
    assert _completion_ids(batched) == _completion_ids(single)
    # and the plain Agent protocol (reset / act) agrees with both
    env = gym.make(ENV)
    agent = _agent(backend)
    for record in single[:2]:
        obs, info = env.reset(seed=0, options={"task_id": record["task_id"]})
        agent.reset(obs, info)
        for step in record["trajectory"]:
            assert agent.act(obs, info) == step["action"]
            assert agent.last_llm["completion_token_ids"] == step["llm"]["completion_token_ids"]
            obs, _, _, _, info = env.step(step["action"])


def test_logprobs_are_the_models(backend):
    import torch

    request = ChatRequest(messages=[{"role": "user", "content": "Set an alarm for 8:30."}])
    [done] = backend.generate([request], SamplingParams(max_new_tokens=10))
    ids = torch.tensor([done.prompt_token_ids + done.completion_token_ids], device=backend.model.device)
    with torch.no_grad():
        logits = backend.model(ids).logits.float().log_softmax(-1)[0]
    n = len(done.prompt_token_ids)
    expected = [logits[n - 1 + i, t].item() for i, t in enumerate(done.completion_token_ids)]
    assert done.logprobs == pytest.approx(expected, abs=1e-4)


def test_stop_strings_cut_the_text(backend):
    request = ChatRequest(messages=[{"role": "user", "content": "Send an email to Bob."}])
    [free] = backend.generate([request], SamplingParams(max_new_tokens=24))
    assert len(free.text) > 6
    stop = free.text[3:6]
    [cut] = backend.generate([ChatRequest(request.messages, stop=(stop,))], SamplingParams(max_new_tokens=24))
    assert cut.finish_reason == "stop" and cut.text == free.text[:free.text.find(stop)]
    ids = cut.completion_token_ids  # up to the token that completed the stop string, no padding after it
    assert ids == free.completion_token_ids[:len(ids)] and len(ids) == len(cut.logprobs) == cut.completion_tokens
    assert stop in backend.tokenizer.decode(ids) and stop not in backend.tokenizer.decode(ids[:-1])
    sampled = SamplingParams(max_new_tokens=8, temperature=1.0, seed=7)
    first_run = [backend.generate([request], sampled)[0].completion_token_ids for _ in range(3)]
    backend._seed = None  # a new run with the same seed
    second_run = [backend.generate([request], sampled)[0].completion_token_ids for _ in range(3)]
    assert first_run == second_run and len({tuple(ids) for ids in first_run}) > 1  # seeded once, not per call


def test_a_row_stops_once_its_action_is_complete_and_progress_moves(backend):
    """A row whose text is a complete action for its parser (the curl parser's test, here a
    stand-in: 5 characters) stops there, its tokens a prefix of the free run's; the backend
    reports at every token the rows that made one."""
    def five(text: str) -> bool:
        return len(text) >= 5

    requests = [ChatRequest(messages=[{"role": "user", "content": text}])
                for text in ("Send an email to Bob.", "Add an alarm at 8.")]
    free = backend.generate(requests, SamplingParams(max_new_tokens=24))
    assert all(len(c.text) > 8 for c in free)
    live: list[int] = []
    backend.on_tokens = live.append
    try:
        cut = backend.generate([ChatRequest(r.messages, complete=five) for r in requests],
                               SamplingParams(max_new_tokens=24))
    finally:
        backend.on_tokens = None
    for before, after in zip(free, cut):
        ids = after.completion_token_ids
        assert after.finish_reason == "stop" and ids == before.completion_token_ids[:len(ids)]
        assert len(after.text) >= 5 and len(backend.tokenizer.decode(ids[:-1], skip_special_tokens=True)) < 5
        assert after.text == before.text[:len(after.text)]
    assert live[0] == 2 and sum(live) == sum(len(c.completion_token_ids) for c in cut)


def test_curl_completion_test():
    from toolgym.agents.llm.parsers import curl_complete

    assert not curl_complete("curl -X GET 'https://api.x/v1/images'")  # the line may still grow
    assert curl_complete("curl -X GET 'https://api.x/v1/images'\n")
    assert curl_complete("```bash\n$ curl -X GET 'https://api.x'\n")
    assert not curl_complete("curl -X POST 'https://api.x' \\\n")  # continued on the next line
    assert curl_complete("curl -X POST 'https://api.x' \\\n -d '{}'\nThis sends")
    assert not curl_complete("Sure! Here is the command:\n")


def test_templates_without_tools_get_the_tool_docs_in_the_system_message(backend):
    messages = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Wake me at 8."},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {
                    "name": "AddAlarm", "arguments": '{"time": "08:00:00"}'}}]},
                {"role": "tool", "tool_call_id": "c", "name": "AddAlarm", "content": '{"response": "ok"}'}]
    tools = [{"type": "function", "function": {"name": "AddAlarm", "description": "Add an alarm.",
                                               "parameters": {"type": "object", "properties": {}}}}]
    template = backend.tokenizer.chat_template
    try:
        backend.tokenizer.chat_template = template.replace("tools", "unknown")  # the same template, blind to tools
        text = backend.render(ChatRequest(messages, tools))
        backend.tokenizer.chat_template = None
        plain = backend.render(ChatRequest(messages, tools))
    finally:
        backend.tokenizer.chat_template = template
    assert text.startswith("<|im_start|>system\nYou help.\n\n# Tools\n{\"name\": \"AddAlarm\"")
    assert '{"name": "AddAlarm", "arguments": {"time": "08:00:00"}}' in text
    assert "<tool_response>" in text  # this template reads tool turns; only the tools go into the system message
    assert plain.startswith("system: You help.\n\n# Tools\n") and plain.endswith("assistant:")
    assert 'user: Tool result (AddAlarm): {"response": "ok"}' in plain


class ScriptedBackend:
    """Answers each request with a fixed text for the request's last message (an oracle in chat form)."""

    name = "scripted"

    def __init__(self, answer):
        self.answer = answer
        self.requests = []

    def describe(self):
        return {"backend": self.name, "model": "scripted"}

    def generate(self, requests, sampling):
        self.requests.extend(requests)
        return [Completion(text=self.answer(r), completion_tokens=1) for r in requests]


@pytest.mark.parametrize("style", ["hermes", "react"])
def test_correct_model_outputs_solve_tooltalk(style):
    """Outputs that state the ground truth, in a model's format, score success 1 through prompt and parser."""
    env = gym.make(ENV)
    base = env.unwrapped

    def answer(request):
        action = base.oracle_action()
        if style == "hermes":
            return f"<tool_call>{json.dumps(action)}</tool_call>" if isinstance(action, dict) else action
        if isinstance(action, dict):
            return f"Thought: I need {action['name']}\nAction: {action['name']}\nAction Input: {json.dumps(action['arguments'])}"
        return f"Thought: I can answer now.\nFinal Answer: {action}"

    scripted = ScriptedBackend(answer)
    agent = LLMAgent(scripted, env=env, prompt_format=None if style == "hermes" else "react")
    for task_id in base.task_ids()[:3] + base.task_ids()[-2:]:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        agent.reset(obs, info)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info))
            done = term or trunc
        assert info["metrics"]["success"] == 1.0, task_id
    last = scripted.requests[-1]
    if style == "react":
        assert last.tools is None and last.stop == ("\nObservation:",)
        system = last.messages[0]["content"]
        assert system.startswith("You are a helpful assistant. Here is some user data:")
        assert "Action Input: the arguments of the call as a JSON object" in system and "AddAlarm:" in system
        thoughts = [m["content"] for r in scripted.requests for m in r.messages
                    if m["role"] == "assistant" and m["content"].startswith("Thought: I need")]
        assert thoughts and all("\nAction Input: {" in t for t in thoughts)  # own thoughts shown again
    else:
        assert last.tools == info["tools"] and last.stop == ()
        assert last.messages[0]["content"].startswith("You are a helpful assistant. Here is some user data:")
        assert {m["role"] for m in last.messages} == {"system", "user", "assistant", "tool"}


def test_prompt_formats_and_parsers_per_env():
    assert defaults_for(gym.make(ENV)) == ("tooltalk", "tool_call")
    assert defaults_for(type(gym.make(ENV).unwrapped)) == ("tooltalk", "tool_call")
    fake = type("OpenWeather", (), {"env_id": "OpenWeather-v0"})
    assert defaults_for(fake) == ("toolbench", "curl")
    system = "Goal.\n\nI have the following set of API:\n\ndocs\n-------------\n"
    info = {"prompt": {"messages": [{"role": "system", "content": system},
                                    {"role": "user", "content": "Task: weather in Paris\nAction:\n"}]},
            "tools": []}
    messages, tools = ToolBenchFormat().build(None, info)
    assert messages[1]["content"].endswith("Action:\n") and tools is None
    assert "\nTask:" in ToolBenchFormat.stop
    stepped = {"prompt": {"messages": info["prompt"]["messages"], "demos": [
        {"query": "weather in Oslo", "action": "a()\nb()",
         "turns": [{"action": "a()", "observation": "{}"}, {"action": "b()", "observation": None}]}]}}
    messages, _ = ToolBenchFormat().build(None, stepped)
    assert [(m["role"], m["content"]) for m in messages[1:5]] == [
        ("user", "Task: weather in Oslo\nAction:"), ("assistant", "a()"), ("user", "{}"), ("assistant", "b()")]
    assert messages[5]["content"] == "Task: weather in Paris\nAction:\n"
    agent = LLMAgent(ScriptedBackend(lambda r: ""), env=fake)
    assert (agent.format.name, agent.parser_name) == ("toolbench", "curl")
    react = LLMAgent(ScriptedBackend(lambda r: ""), env=fake, prompt_format="react")
    assert react.parser_name == "react" and isinstance(react.format, ReActFormat)
    with pytest.raises(ValueError, match="unknown prompt format"):
        LLMAgent(ScriptedBackend(lambda r: ""), prompt_format="nope")


def test_several_calls_in_one_output_are_taken_in_turn():
    env = gym.make(ENV)
    obs, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    calls = ('<tool_call>{"name": "QueryUser", "arguments": {"username": "a"}}</tool_call>'
             '<tool_call>{"name": "GetAlarms", "arguments": {}}</tool_call>')
    scripted = ScriptedBackend(lambda r: calls)
    agent = LLMAgent(scripted, env=env)
    agent.reset(obs, info)
    assert agent.act(obs, info) == {"name": "QueryUser", "arguments": {"username": "a"}}
    assert agent.last_llm["text"] == calls
    assert agent.act(obs, info) == {"name": "GetAlarms", "arguments": {}} and agent.last_llm == {"queued": True}
    assert len(scripted.requests) == 1


def test_resume_keeps_finished_episodes_and_reruns_the_rest(backend, tmp_path):
    out = tmp_path / "r.jsonl"
    spec = f"hf:{backend.model_id}"
    evaluate_batched(ENV, _agent(backend), spec, episodes=2, out=out, progress=False, batch_size=2)
    first, second = out.read_text().splitlines()
    out.write_text(first + "\n" + second[: len(second) // 2])  # interrupted while writing the second
    records, _, stats = evaluate_batched(ENV, _agent(backend), spec, episodes=3, out=out, progress=False,
                                         batch_size=2, resume=True)
    lines = out.read_text().splitlines()
    assert lines[0] == first and len(lines) == 3 and stats["episodes"] == 2
    assert len({json.loads(line)["task_id"] for line in lines}) == 3 and len(records) == 3
    with pytest.raises(ValueError, match="other settings"):
        evaluate_batched(ENV, _agent(backend, max_new_tokens=5), spec, episodes=3, out=out, progress=False,
                         resume=True)


def test_cli_eval_with_an_hf_agent(tiny_model, tmp_path, capsys):
    out = tmp_path / "cli.jsonl"
    rc = main(["eval", ENV, "--agent", f"hf:{tiny_model}", "--episodes", "2", "--batch-size", "2",
               "--max-new-tokens", "4", "--temperature", "0.7", "--seed", "1", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert rc == 0 and "Success" in printed and "completion tok/s" in printed
    record = json.loads(out.read_text().splitlines()[0])
    assert record["decoding"]["temperature"] == 0.7 and record["decoding"]["seed"] == 1
    assert all(len(s["llm"]["completion_token_ids"]) <= 4 for s in record["trajectory"])
    rc = main(["eval", ENV, "--agent", f"hf:{tiny_model}", "--resume", "--no-progress"])
    assert rc == 2 and "--resume needs --out" in capsys.readouterr().err
    # every episode records the model's tokens, and report sums them (and prices them)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    steps = [s["llm"] for r in records for s in r["trajectory"]]
    tokens_in, tokens_out = sum(s["prompt_tokens"] for s in steps), sum(s["completion_tokens"] for s in steps)
    assert [r["usage"]["calls"] for r in records] == [len(r["trajectory"]) for r in records]
    assert main(["report", str(out), "--price-in", "2", "--price-out", "10"]) == 0
    cost = tokens_in / 1e6 * 2 + tokens_out / 1e6 * 10
    assert (f"tokens: {tokens_in:,} in, {tokens_out:,} out over 2 episode(s) and {len(steps)} model call(s)"
            in capsys.readouterr().out)
    assert main(["report", str(out), "--price-in", "2", "--price-out", "10"]) == 0
    assert f"cost ${cost:,.4f} at $2 / $10 per million tokens in / out" in capsys.readouterr().out


def test_trials_run_in_the_same_batches(backend, tiny_model, tmp_path, capsys):
    """--trials K with an LLM agent plays every (task, trial) in one lockstep batch: as many
    generate calls as a single trial's, K records per task with their trial and reset seed."""
    agent = _agent(backend, temperature=0.7, seed=5)
    one, _, stats_one = evaluate_batched(ENV, agent, "hf:tiny", seed=3, episodes=2, batch_size=6, progress=False)
    three, _, stats = evaluate_batched(ENV, agent, "hf:tiny", seed=3, episodes=2, batch_size=6, progress=False,
                                       trials=3)
    assert [(r["task_id"], r["trial"], r["episode_seed"]) for r in three] == [
        (t, trial, 3 + trial) for t in [r["task_id"] for r in one] for trial in range(3)]
    assert stats["episodes"] == 6 and stats["generate_calls"] <= max(len(r["trajectory"]) for r in three)
    out = tmp_path / "trials.jsonl"
    assert main(["eval", ENV, "--agent", f"hf:{tiny_model}", "--episodes", "2", "--trials", "2", "--max-new-tokens",
                 "4", "--temperature", "0.7", "--no-progress", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["trial"] for r in lines[:-1]] == [0, 1, 0, 1] and "pass^k" in lines[-1]
    assert "pass^2" in capsys.readouterr().out


def test_make_agent_builds_llm_agents(tiny_model):
    agent = make_agent(f"hf:{tiny_model}", gym.make(ENV), max_new_tokens=3, temperature=None)
    assert isinstance(agent, LLMAgent) and agent.sampling.max_new_tokens == 3
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("hf:", gym.make(ENV))


def test_importing_the_llm_agent_does_not_import_torch():
    code = ("import sys, toolgym, toolgym.agents, toolgym.agents.llm, toolgym.eval.batch, toolgym.eval.cli; "
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_length_sorted_chunks_and_row_prefill_give_the_same_completions(backend):
    # "auto" prefills padded batches on CUDA (masked attention is fast there) and row by row elsewhere
    default_prefill = "batch" if backend.device.startswith("cuda") else "rows"
    assert backend.prefill == default_prefill
    requests = [ChatRequest(messages=[{"role": "user", "content": "word " * n}]) for n in (40, 2, 15, 7)]
    sampling = SamplingParams(max_new_tokens=6)
    backend.max_padding = backend.max_batch_tokens = None  # one call, padded to the longest
    backend.prefill = "rows"  # row prefill on any device, compared with the padded prefill below
    try:
        whole = backend.generate(requests, sampling)
        backend.max_batch_tokens = 1  # every request alone
        split = backend.generate(requests, sampling)
        backend.max_batch_tokens, backend.max_padding = 65536, 1.25  # calls of similar lengths
        similar = backend.generate(requests, sampling)
        backend.max_padding, backend.prefill = None, "batch"  # one padded prefill instead of one per row
        padded = backend.generate(requests, sampling)
    finally:
        backend.max_batch_tokens, backend.max_padding, backend.prefill = 65536, None, default_prefill
    assert [c.completion_token_ids for c in split] == [c.completion_token_ids for c in whole]
    assert [c.completion_token_ids for c in similar] == [c.completion_token_ids for c in whole]
    assert [c.completion_token_ids for c in padded] == [c.completion_token_ids for c in whole]
    for a, b in zip(padded, whole):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4) and a.prompt_token_ids == b.prompt_token_ids
    assert whole[0].prompt_tokens > whole[2].prompt_tokens > whole[3].prompt_tokens > whole[1].prompt_tokens


def test_row_prefill_starts_from_the_cache_of_the_prompt_a_turn_extends(tiny_model):
    """A multi-turn episode's next prompt is its last one plus the reply and the env's turn: only
    those new tokens are prefilled, and the completions are those of a prefill from scratch."""
    cached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows")
    uncached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows", prefix_cache_mb=0)
    prefilled = []
    cached.model.register_forward_pre_hook(
        lambda module, args, kwargs: prefilled.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    first = [[{"role": "user", "content": "word " * n}] for n in (30, 12)]
    sampling = SamplingParams(max_new_tokens=5)
    replies = cached.generate([ChatRequest(messages=m) for m in first], sampling)
    assert replies == uncached.generate([ChatRequest(messages=m) for m in first], sampling)
    second = [[*m, {"role": "assistant", "content": r.text}, {"role": "user", "content": "more words"}]
              for m, r in zip(first, replies)]
    requests = [ChatRequest(messages=m) for m in second]
    prompts = [cached.encode(r) for r in requests]
    assert all(p[:len(r.prompt_token_ids)] == r.prompt_token_ids for p, r in zip(prompts, replies))
    prefilled.clear()
    again = cached.generate(requests, sampling)
    row_prefills = prefilled[:2]  # then the batched decoding's one-token steps
    assert sorted(row_prefills) == sorted(len(p) - len(r.prompt_token_ids) for p, r in zip(prompts, replies))
    assert [c.completion_token_ids for c in again] == [
        c.completion_token_ids for c in uncached.generate(requests, sampling)]
    # an episode keeps one entry, its latest prompt (the one it extended is dropped)
    assert not uncached.prefix_cache.entries
    assert sorted(cached.prefix_cache.entries) == sorted(tuple(p[:-1]) for p in prompts)
    cached.prefix_cache.max_bytes = 0  # a bound smaller than one prompt's cache keeps nothing new
    cached.generate([ChatRequest(messages=[{"role": "user", "content": "other"}])] * 2, sampling)
    assert sorted(cached.prefix_cache.entries) == sorted(tuple(p[:-1]) for p in prompts)


def test_episodes_in_lockstep_keep_their_caches_under_a_bound_that_holds_little_more(tiny_model):
    """Four episodes stepped together come back to their caches in the same order every turn: a
    row's new prompt replaces the one it extends, and no row's cache is evicted for another row
    of the same call, so under a bound of one and a half times their first prompts' caches each
    row of the next turns prefills only its new turn (least-recently-used eviction dropped each
    row's cache just before the row needed it)."""
    cached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows")
    prefilled = []
    cached.model.register_forward_pre_hook(
        lambda module, args, kwargs: prefilled.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    conversations = [[{"role": "user", "content": "word " * n}] for n in (60, 70, 80, 90)]
    sampling = SamplingParams(max_new_tokens=3)
    replies = cached.generate([ChatRequest(messages=m) for m in conversations], sampling)
    cached.prefix_cache.max_bytes = cached.prefix_cache.bytes * 3 // 2
    for turn in range(2):
        for messages, reply in zip(conversations, replies):
            messages += [{"role": "assistant", "content": reply.text}, {"role": "user", "content": f"turn {turn}"}]
        requests = [ChatRequest(messages=list(m)) for m in conversations]
        prompts = [cached.encode(r) for r in requests]
        prefilled.clear()
        new_replies = cached.generate(requests, sampling)
        assert sorted(prefilled[:4]) == sorted(len(p) - len(r.prompt_token_ids) for p, r in zip(prompts, replies))
        assert sorted(cached.prefix_cache.entries) == sorted(tuple(p[:-1]) for p in prompts)
        assert cached.prefix_cache.bytes <= cached.prefix_cache.max_bytes
        replies = new_replies


def test_an_episode_alone_in_its_batch_prefills_only_its_new_turn(tiny_model):
    """The last episode of a batch (the others ended) is a batch of one: it starts from the cache of
    its previous prompt too, and its completion is that of a prefill from scratch."""
    cached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows")
    uncached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows", prefix_cache_mb=0)
    prefilled = []
    cached.model.register_forward_pre_hook(
        lambda module, args, kwargs: prefilled.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    first = [{"role": "user", "content": "word " * 40}]
    sampling = SamplingParams(max_new_tokens=5)
    reply = cached.generate([ChatRequest(messages=first)], sampling)[0]
    request = ChatRequest(messages=[*first, {"role": "assistant", "content": reply.text},
                                    {"role": "user", "content": "more words"}])
    prompt = cached.encode(request)
    prefilled.clear()
    again = cached.generate([request], sampling)[0]
    assert prefilled[0] == len(prompt) - len(reply.prompt_token_ids)  # then the decoding's one-token steps
    assert again.completion_token_ids == uncached.generate([request], sampling)[0].completion_token_ids


def test_row_prefill_reuses_the_system_prompt_that_other_episodes_began_with(tiny_model):
    """A new episode's prompt shares its system prompt with earlier ones: a row prefills only
    what follows the longest run of leading tokens it shares with a stored prompt, and the
    completions are those of a prefill from scratch."""
    cached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows")
    uncached = TransformersBackend(str(tiny_model), device="cpu", prefill="rows", prefix_cache_mb=0)
    prefilled = []
    cached.model.register_forward_pre_hook(
        lambda module, args, kwargs: prefilled.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    system = {"role": "system", "content": "Answer with one word. " * 12}
    episodes = [ChatRequest(messages=[system, {"role": "user", "content": task}])
                for task in ("first task", "second task here", "a third one", "the fourth and last task")]
    sampling = SamplingParams(max_new_tokens=4)
    cached.generate(episodes[:2], sampling)
    prefilled.clear()
    later = cached.generate(episodes[2:], sampling)
    stored = [tuple(cached.encode(r)[:-1]) for r in episodes[:2]]
    rows = sorted((tuple(cached.encode(r)[:-1]) for r in episodes[2:]), key=len)  # prefilled shortest first
    expected = []
    for ids in rows:
        shared = max(next((i for i, (a, b) in enumerate(zip(ids, key)) if a != b), min(len(ids), len(key)))
                     for key in stored)
        expected.append(len(ids) - shared)
        stored.append(ids)
    assert prefilled[:2] == expected
    system_tokens = len(cached.encode(ChatRequest(messages=[system])))
    assert all(n < len(ids) - system_tokens + 8 for n, ids in zip(expected, rows))  # the system prompt is reused
    assert [c.completion_token_ids for c in later] == [
        c.completion_token_ids for c in uncached.generate(episodes[2:], sampling)]


OTHER_ENVS = {  # env id -> (how a model would wrap the right action, the success metric)
    "OpenWeather-v0": (lambda a: f"{a}\n\nTask: What is the weather in Rome?\nAction:", "success"),
    "CatAPI-v0": (lambda a: f"```bash\n{a}\n```", "success"),
    "HomeSearch-v0": (lambda a: f"{a}\n-------------\nTask: find a house", "success"),
    "TripBooking-v0": (lambda a: f"Action:\n{a}\nTask: book a hotel", "success"),
    "AppBench-v0": (lambda a: f"Plan:\n```\n{a}\n```", "succ"),
}


@pytest.mark.parametrize("env_id", sorted(OTHER_ENVS))
def test_other_envs_prompts_and_parsers(env_id, backend):
    if env_id not in toolgym.ENV_IDS:
        pytest.skip(f"{env_id} is not registered")
    wrap, key = OTHER_ENVS[env_id]
    env = gym.make(env_id)
    scripted = ScriptedBackend(lambda r: wrap(env.unwrapped.oracle_action()))
    agent = LLMAgent(scripted, env=env)
    for task_id in env.unwrapped.task_ids()[:3]:
        obs, info = start = env.reset(seed=0, options={"task_id": task_id})
        agent.reset(obs, info)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info))
            done = term or trunc
        assert info["metrics"][key] == 1, (task_id, agent.last_llm)
    request, first = scripted.requests[-1], start[1]
    assert request.tools is None
    if env_id == "AppBench-v0":
        assert request.messages == first["messages"]
    else:  # ToolBench: the paper's demonstrations as chat turns between the system message and the task
        demos = first["prompt"]["demos"]
        assert request.messages[-1] == first["messages"][-1] and len(request.messages) == 2 + 2 * len(demos)
        assert request.messages[0]["content"] + "I have the following set of examples:" in first["messages"][0]["content"]
        assert request.messages[1:-1:2] == [{"role": "user", "content": f"Task: {d['query']}\nAction:"} for d in demos]
        assert [m["content"] for m in request.messages[2:-1:2]] == [d["action"].strip() for d in demos]
    # and the tiny model runs the env end to end, recording its tokens
    records, _, _ = evaluate_batched(env_id, LLMAgent(backend, env=env, sampling=SamplingParams(max_new_tokens=8)),
                                     "hf:tiny", episodes=2, progress=False, batch_size=2)
    assert all(r["metrics"] is not None and r["trajectory"][0]["llm"]["prompt_token_ids"] for r in records)


def test_a_prompt_that_does_not_fit_beside_the_held_caches_is_not_stored_and_its_older_one_stays():
    """The prefix cache's bound holds: a row whose cache does not fit beside those its call holds
    is not stored, and the entry it would have replaced is kept for its next turn."""
    import torch

    from toolgym.llm.backends.hf_transformers import PrefixCache

    def layers(tokens: int) -> list:  # one layer, 4 bytes a token for keys and for values
        return [(torch.zeros(1, 1, tokens, 1), torch.zeros(1, 1, tokens, 1))]

    cache = PrefixCache(max_bytes=8 * 10)  # ten tokens' worth
    cache.put((1, 2, 3), layers(3))
    cache.put((7, 8, 9), layers(3))
    with cache.holding([(1, 2, 3, 4), (7, 8, 9, 10)]):
        cache.put((1, 2, 3, 4, 5), layers(5))  # replaces (1, 2, 3): 5 + 3 tokens
        cache.put((7, 8, 9, 10, 11, 12, 13), layers(7))  # 5 + 7 would pass the bound, and both are held
    assert list(cache.entries) == [(7, 8, 9), (1, 2, 3, 4, 5)] and cache.bytes == 8 * 8
    assert cache.longest((7, 8, 9, 10))[0] == 3
    cache.put((4, 4, 4, 4), layers(4))  # outside a call nothing is held: the least recently used goes
    assert list(cache.entries) == [(7, 8, 9), (4, 4, 4, 4)] and cache.bytes == 8 * 7
    empty = PrefixCache(max_bytes=8 * 10)
    with empty.holding([(1,), (2,)]):  # a first call: nothing to start from, what it stores is held
        empty.put((1, 1, 1, 1, 1, 1), layers(6))
        empty.put((2, 2, 2, 2, 2), layers(5))  # would evict the first row's entry: not stored
    assert list(empty.entries) == [(1, 1, 1, 1, 1, 1)] and empty.bytes == 8 * 6
