"""toolgym.train.demos and `toolgym demos`: oracle episodes as OpenAI-style chat conversations."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.eval.cli import main
from toolgym.train.demos import demonstrations

GENERATED = {"split": "train", "category": ["simple_python", "multiple", "parallel", "parallel_multiple",
                                            "irrelevance"], "tasks_per_category": 20}


def _check_shape(conversation: dict) -> None:
    """Every call has its id, JSON arguments, an offered name, and one tool message after it."""
    names = {t["function"]["name"] for t in json.loads(conversation["tools"])}
    messages = conversation["messages"]
    for i, message in enumerate(messages):
        assert message["role"] in ("system", "user", "assistant", "tool")
        if message.get("tool_calls"):
            ids = [call["id"] for call in message["tool_calls"]]
            for call in message["tool_calls"]:
                assert call["type"] == "function" and call["function"]["name"] in names
                assert isinstance(json.loads(call["function"]["arguments"]), dict)
            following = messages[i + 1:i + 1 + len(ids)]
            assert len(following) in (0, len(ids))  # none: the episode ended with the calls
            assert [m["tool_call_id"] for m in following] == ids[:len(following)]
    assert messages[-1]["role"] == "assistant"


def test_bfcl_demos_replay_to_full_reward(tmp_path):
    out = tmp_path / "bfcl.jsonl"
    argv = ["demos", "BFCL-v0", "--split", "train", "--episodes", "30", "--out", str(out)]
    for key, value in GENERATED.items():
        if key != "split":
            argv += ["--env-kwarg", f"{key}={json.dumps(value)}"]
    assert main(argv) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 30
    env = gym.make("BFCL-v0", **GENERATED).unwrapped
    by_question = {env.task_records()[t].question[0][0]["content"]: t for t in env.task_ids()}
    for conversation in lines:
        _check_shape(conversation)
        user, answer = conversation["messages"]
        env.reset(options={"task_id": by_question[user["content"]]})
        assert json.loads(conversation["tools"]) == env._info()["tools"]
        calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                 for c in answer.get("tool_calls") or []]
        assert env.step(calls if calls else answer["content"])[1] == 1.0
    irrelevant = [c for c in lines if not c["messages"][1].get("tool_calls")]
    assert irrelevant and all(c["messages"][1]["content"] == "" for c in irrelevant)  # no call, as the oracle
    assert out.read_text() == "".join(json.dumps(c, ensure_ascii=False) + "\n"
                                      for c in demonstrations("BFCL-v0", GENERATED, episodes=30))


@pytest.mark.parametrize("env_id, kwargs", [("BFCL-v0", {"category": "multi_turn_base"}), ("TauBench-v0", {}),
                                            ("Tau2-v0", {}), ("ToolLLM-v0", {})])
def test_multi_turn_demos_keep_calls_results_and_turns(env_id, kwargs):
    conversations = list(demonstrations(env_id, kwargs, episodes=3))
    assert len(conversations) == 3
    for conversation in conversations:
        _check_shape(conversation)
        roles = [m["role"] for m in conversation["messages"]]
        assert "tool" in roles and roles.count("assistant") >= 2
    if env_id == "BFCL-v0":  # results are the APIs' own, one per call, and later user turns follow
        first = conversations[0]["messages"]
        assert sum(m["role"] == "user" for m in first) >= 4
        assert all(m["content"].startswith(("{", "[")) for m in first if m["role"] == "tool")


def test_text_action_envs_write_the_action_as_the_reply():
    env = gym.make("CatAPI-v0").unwrapped
    (conversation,) = demonstrations("CatAPI-v0", episodes=1, seed=4)
    system, user, reply = conversation["messages"]
    assert reply["content"].startswith("curl -X ") and "tool_calls" not in reply
    task = next(t for t in env.task_ids() if env.reset(options={"task_id": t})[1]["messages"][1] == user)
    env.reset(options={"task_id": task})
    assert reply["content"] == env.oracle_action()


def test_load_dataset_reads_the_file_and_sft_on_it_lowers_the_loss(tmp_path):
    """A tiny model trained for a few steps on exported demonstrations with TRL's SFTTrainer."""
    pytest.importorskip("torch")
    pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    from trl import SFTConfig, SFTTrainer
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from toolgym.llm.tiny import build_tiny_model

    out = tmp_path / "demos.jsonl"
    conversations = list(demonstrations("BFCL-v0", dict(GENERATED, category=["simple_python"]), episodes=8))
    out.write_text("".join(json.dumps(c) + "\n" for c in conversations))
    dataset = datasets.load_dataset("json", data_files=str(out), split="train")
    assert dataset.column_names == ["messages", "tools"] and len(dataset) == 8
    model_dir = build_tiny_model(tmp_path / "tiny", seed=1, corpus=[json.dumps(c) for c in conversations])
    config = SFTConfig(output_dir=str(tmp_path / "run"), max_steps=10, per_device_train_batch_size=2,
                       learning_rate=1e-2, logging_steps=1, report_to=[], save_strategy="no", use_cpu=True,
                       gradient_checkpointing=False, max_length=1024, seed=0, disable_tqdm=True)
    trainer = SFTTrainer(model=AutoModelForCausalLM.from_pretrained(model_dir), args=config, train_dataset=dataset,
                         processing_class=AutoTokenizer.from_pretrained(model_dir))
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 10 and sum(losses[-3:]) / 3 < 0.8 * sum(losses[:3]) / 3


def test_plain_chat_examples_are_what_the_hf_backend_sends_and_their_answers_score_full():
    """For a template without tools (SmolLM2's): the prompt is the backend's rendering (tool docs in
    the system message), the completion the calls as one JSON list, which the env grades 1.0."""
    from toolgym.agents.llm.parsers import get_parser
    from toolgym.llm.chat import TOOL_INSTRUCTIONS
    from toolgym.train.demos import plain_chat_example

    kwargs = dict(GENERATED, category=["parallel", "irrelevance"])
    env = gym.make("BFCL-v0", **kwargs).unwrapped
    by_question = {env.task_records()[t].question[0][0]["content"]: t for t in env.task_ids()}
    parse = get_parser("bfcl")
    kinds = set()
    for conversation in demonstrations("BFCL-v0", kwargs, episodes=10):
        example = plain_chat_example(conversation)
        system, user = example["prompt"]
        (answer,) = example["completion"]
        tools = json.loads(conversation["tools"])
        assert system["role"] == "system" and system["content"].endswith(TOOL_INSTRUCTIONS)
        assert all(json.dumps(t["function"], ensure_ascii=False) in system["content"] for t in tools)
        assert user == conversation["messages"][0] and answer["role"] == "assistant"
        env.reset(options={"task_id": by_question[user["content"]]})
        assert env.step(parse(answer["content"], [], [])[0])[1] == 1.0
        kinds.add("calls" if answer["content"].startswith("[{") else answer["content"])
    assert kinds == {"calls", ""}  # parallel calls as one list; irrelevance: no call, an empty answer


def _tokenizer_without_template():
    """A word-level tokenizer that adds ``<bos>`` as Gemma's does, with no chat template (Gemma 3 270M's GGUF)."""
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel({"<bos>": 0, "<eos>": 1, "<unk>": 2, "assistant": 3}, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 0)])
    return PreTrainedTokenizerFast(tokenizer_object=words, bos_token="<bos>", eos_token="<eos>")


def test_a_model_without_a_chat_template_is_prompted_and_trained_on_one_transcript_after_its_bos():
    """Gemma 3 270M's GGUF has no chat template: the backend writes it a ``role: content`` transcript.
    That prompt starts with the tokenizer's ``<bos>`` (it had been sent without one), the token chains
    of training start the same way, and its demonstrations are that very text, answered after
    ``assistant:``, an answer the env grades 1.0; a template's prompt gets no token added."""
    from toolgym.agents.llm.parsers import get_parser
    from toolgym.eval.rollouts import TokenChain
    from toolgym.llm import ChatRequest
    from toolgym.llm.chat import encode_prompt, render_prompt
    from toolgym.train.demos import plain_chat_example

    tokenizer = _tokenizer_without_template()
    kwargs = dict(GENERATED, category=["simple_python"])
    env = gym.make("BFCL-v0", **kwargs).unwrapped
    (conversation,) = demonstrations("BFCL-v0", kwargs, episodes=1)
    messages, tools = conversation["messages"][:-1], json.loads(conversation["tools"])
    example = plain_chat_example(conversation, chat_template=False)
    sent = render_prompt(tokenizer, messages, tools)
    assert example["prompt"] == sent and sent.endswith("\n\nassistant:") and sent.startswith("system: ")
    assert encode_prompt(tokenizer, sent)[0] == 0 and tokenizer(sent, add_special_tokens=False)["input_ids"][0] != 0
    assert TokenChain(tokenizer).prompt(ChatRequest(messages=messages, tools=tools))[0] == 0
    by_question = {env.task_records()[t].question[0][0]["content"]: t for t in env.task_ids()}
    env.reset(options={"task_id": by_question[messages[-1]["content"]]})
    assert example["completion"].startswith(" [{")
    assert env.step(get_parser("bfcl")(example["completion"], [], [])[0])[1] == 1.0
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    assert encode_prompt(tokenizer, "assistant") == [3]
