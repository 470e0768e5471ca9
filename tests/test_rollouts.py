"""toolgym.rollouts: token ids, loss masks, logprobs and rewards of episodes, for trainers."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import toolgym  # noqa: E402
from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.llm import SamplingParams, TransformersBackend  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.eval.batch import evaluate_batched  # noqa: E402
from toolgym.eval.rollouts import Episode, Turn, encode  # noqa: E402
from toolgym.llm.chat import encode_prompt, render_prompt  # noqa: E402

ENV = "ToolTalk-v0"
MULTI_TURN_TASK = "ChangePassword-easy"  # three user turns: the model speaks three times at least


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    env = gym.make(ENV)
    _, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    corpus = [json.dumps(t) for t in info["tools"]] * 3 + [m["content"] for m in info["messages"]]
    return TransformersBackend(str(build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=3, corpus=corpus)))


def _agent(backend, **sampling):
    return LLMAgent(backend, env=gym.make(ENV), sampling=SamplingParams(**{"max_new_tokens": 6, **sampling}))


def _model_tokens(episode: Episode) -> list[list[int]]:
    return [t.completion_ids for t in episode.turns]


def _masked(segment) -> list[int]:
    return [i for i, m in zip(segment.input_ids, segment.loss_mask) if m]


def test_import_toolgym_loads_no_trainer_stack():
    code = ("import sys, toolgym; assert callable(toolgym.rollouts); "
            "heavy = [m for m in ('torch', 'transformers', 'trl', 'ray', 'datasets') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_llm_rollouts_hold_the_results_file_data_as_arrays(backend, tmp_path):
    out = tmp_path / "results.jsonl"
    evaluate_batched(ENV, _agent(backend), "tiny", seed=0, episodes=2, out=out, progress=False, batch_size=2)
    on_file = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    episodes = toolgym.rollouts(ENV, _agent(backend), episodes=2, seed=0, batch_size=2)
    assert [e.task_id for e in episodes] == list(on_file)
    for episode in episodes:
        record = on_file[episode.task_id]
        steps = [s for s in record["trajectory"] if "prompt_token_ids" in s["llm"]]
        assert [s["llm"]["completion_token_ids"] for s in steps] == _model_tokens(episode)
        assert [s["llm"]["prompt_token_ids"] for s in steps] == [t.prompt_ids for t in episode.turns]
        assert [s["llm"]["logprobs"] for s in steps] == [t.logprobs for t in episode.turns]
        assert episode.rewards == [s["reward"] for s in record["trajectory"]]
        assert episode.episode_return == pytest.approx(record["return"]) and episode.metrics == record["metrics"]


def test_unchained_turns_are_the_conversation_retokenised(backend):
    (multi,) = toolgym.rollouts(ENV, _agent(backend), task_ids=[MULTI_TURN_TASK], seed=0)
    assert len(multi.turns) >= 3
    # each prompt is the conversation rendered anew and re-tokenised: the recorded ids are exactly that
    env = gym.make(ENV)
    _, info = env.reset(seed=0, options={"task_id": MULTI_TURN_TASK})
    first = encode_prompt(backend.tokenizer, render_prompt(backend.tokenizer, info["messages"], info["tools"], True))
    assert multi.turns[0].prompt_ids == first
    # ToolTalk continues with the ground-truth turn, so unchained prompts do not extend the model's tokens
    segments = multi.segments()
    assert len(segments) == len(multi.turns)
    for segment, turn in zip(segments, multi.turns):
        assert _masked(segment) == turn.completion_ids
        n = len(turn.completion_ids)
        assert segment.loss_mask == [0] * (len(segment.input_ids) - n) + [1] * n


def test_chained_llm_episode_is_one_sequence_masking_exactly_the_model_tokens(backend):
    episodes = toolgym.rollouts(ENV, _agent(backend), task_ids=[MULTI_TURN_TASK], repeats=2, seed=0, chain=True)
    for episode in episodes:
        (segment,) = episode.segments()
        turns = episode.turns
        assert len(turns) >= 3
        assert _masked(segment) == [t for turn in turns for t in turn.completion_ids]
        assert [lp for lp, m in zip(segment.logprobs, segment.loss_mask) if m] == \
            [lp for turn in turns for lp in turn.logprobs]
        assert all(lp < 0 for turn in turns for lp in turn.logprobs)
        assert segment.prompt_ids == turns[0].prompt_ids
        # every turn's prompt is the sequence so far: what the model saw is what a trainer scores
        for turn in turns:
            length = len(turn.prompt_ids)
            assert segment.input_ids[:length] == turn.prompt_ids
            assert segment.input_ids[length:length + len(turn.completion_ids)] == turn.completion_ids
        assert segment.reward == pytest.approx(episode.episode_return)


def test_chained_oracle_turns_retokenise_to_the_same_ids(backend):
    tokenizer = backend.tokenizer
    episodes = toolgym.rollouts(ENV, "oracle", task_ids=[MULTI_TURN_TASK, "SendEmail-easy"], tokenizer=tokenizer,
                                chain=True)
    for episode in episodes:
        assert episode.metrics["success"] == 1.0 and episode.episode_return == pytest.approx(1.0)
        (segment,) = episode.segments()
        assert len(episode.turns) >= 4  # tool calls and replies over several user turns
        # the concatenation of prompt, model turns and env turns is the text's own tokenisation
        assert encode(tokenizer, tokenizer.decode(segment.input_ids)) == segment.input_ids
        assert _masked(segment) == [t for turn in episode.turns for t in turn.completion_ids]
        eos = tokenizer.eos_token_id
        assert all(turn.completion_ids[-1] == eos for turn in episode.turns)
        # the model's text is the action as a tool call or reply, and nothing of the env's
        texts = [tokenizer.decode(turn.completion_ids, skip_special_tokens=True) for turn in episode.turns]
        actions = [step["action"] for step in episode.record["trajectory"]]
        assert texts == [json.dumps(a) if isinstance(a, dict) else a for a in actions]


def test_rollouts_of_a_single_step_env_and_segments_of_merged_turns():
    episodes = toolgym.rollouts("CatAPI-v0", "oracle", episodes=3, env_kwargs={"k_shot": 0})
    assert [e.episode_return for e in episodes] == [1.0, 1.0, 1.0] and all(not e.turns for e in episodes)
    episode = Episode(task_id="t", record={"return": 1.0}, turns=[
        Turn([1, 2], [3, 4], [-0.1, -0.2], 0.0), Turn([1, 2, 3, 4, 5, 6], [7], [-0.3], 1.0),
        Turn([9], [8], [-0.4], 0.5)])
    first, second = episode.segments()
    assert first.input_ids == [1, 2, 3, 4, 5, 6, 7] and first.loss_mask == [0, 0, 1, 1, 0, 0, 1]
    assert first.logprobs == [0, 0, -0.1, -0.2, 0, 0, -0.3] and first.reward == 1.0
    assert first.completion_ids == [3, 4, 5, 6, 7] and first.completion_mask == [1, 1, 0, 0, 1]
    assert second.input_ids == [9, 8] and second.prompt_length == 1 and second.reward == 0.5
