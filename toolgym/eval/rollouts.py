"""RL data from any run (``toolgym.rollouts``): episodes as token ids with loss masks, logprobs and rewards.

:func:`rollouts` plays episodes with any agent and returns one :class:`Episode` per episode:
the results-file record (the same fields ``toolgym eval --out`` writes), and per model turn
the prompt ids, the completion ids and their logprobs, with the step rewards. Episodes turn
into trainer-ready arrays with :meth:`Episode.segments`: runs of turns in which each prompt
extends the previous prompt and completion, as one ``input_ids`` sequence whose ``loss_mask``
is 1 on exactly the model's tokens (tool results, user turns and the prompt are 0).

Two ways of building a turn's prompt:

- ``chain=False`` (what ``toolgym eval`` does): every prompt is the env's conversation
  rendered anew with the chat template. Envs that rewrite the history (ToolTalk continues
  with the ground-truth turn) or re-serialise the model's tool calls give one segment per
  such turn.
- ``chain=True`` (what an RL trainer needs): a turn's prompt is the previous prompt, the
  model's own completion tokens and the tokens of what the env added (tool results, the next
  user turn), so each episode is one sequence and the trainer scores exactly the tokens the
  model was conditioned on. :class:`TokenChain` builds it.

Agents without a model (the oracle, replay, your own) get token ids when a ``tokenizer`` is
given: their actions are written as the completion text a model would emit (a tool call as
JSON) and tokenized, which makes oracle runs usable as demonstrations.

Nothing here imports torch; the tokenizer and model come from the caller or the agent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

import gymnasium as gym

from toolgym.llm.backends import ChatRequest, Completion
from toolgym.llm.chat import encode_prompt, flatten_messages, render_prompt
from toolgym.eval.runner import MAX_STEPS, reset_prompt, run_header, select_tasks
from toolgym.registry import make_env


@dataclass
class Turn:
    """One model completion and what it earned.

    Attributes:
        prompt_ids: The tokens the model was given.
        completion_ids: The tokens it produced.
        logprobs: One log-probability per completion token (zeros when the source has none).
        reward: The rewards of the steps this completion's actions took (several tool calls in
            one completion are several steps).
    """

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    reward: float = 0.0


@dataclass
class Segment:
    """Consecutive turns as one sequence for a trainer.

    Attributes:
        input_ids: The first turn's prompt, then each completion and the env tokens after it.
        loss_mask: 1 on the model's tokens, 0 on prompt and env tokens.
        logprobs: The model's logprob of each token where ``loss_mask`` is 1, else 0.
        prompt_length: How many leading tokens are the first prompt.
        reward: The summed reward of the segment's turns.
    """

    input_ids: list[int]
    loss_mask: list[int]
    logprobs: list[float]
    prompt_length: int
    reward: float

    @property
    def prompt_ids(self) -> list[int]:
        return self.input_ids[:self.prompt_length]

    @property
    def completion_ids(self) -> list[int]:
        """Everything after the first prompt: model and env tokens (see ``completion_mask``)."""
        return self.input_ids[self.prompt_length:]

    @property
    def completion_mask(self) -> list[int]:
        return self.loss_mask[self.prompt_length:]

    @property
    def completion_logprobs(self) -> list[float]:
        return self.logprobs[self.prompt_length:]


@dataclass
class Episode:
    """One episode: its results record, its model turns and its rewards.

    Attributes:
        task_id: The task played.
        record: The results-file record (metrics, trajectory, return, run settings).
        turns: The model's completions in order.
        rewards: The reward of every env step.
    """

    task_id: str
    record: dict
    turns: list[Turn] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)

    @property
    def episode_return(self) -> float:
        return float(self.record.get("return") or 0.0)

    @property
    def metrics(self) -> dict | None:
        return self.record.get("metrics")

    @property
    def error(self) -> str | None:
        return self.record.get("error")

    def segments(self) -> list[Segment]:
        """The turns joined wherever a prompt starts with the previous prompt and completion."""
        segments: list[Segment] = []
        for turn in self.turns:
            last = segments[-1] if segments else None
            if last is not None and turn.prompt_ids[:len(last.input_ids)] == last.input_ids:
                env_tokens = turn.prompt_ids[len(last.input_ids):]
                last.input_ids += env_tokens + turn.completion_ids
                last.loss_mask += [0] * len(env_tokens) + [1] * len(turn.completion_ids)
                last.logprobs += [0.0] * len(env_tokens) + list(turn.logprobs)
                last.reward += turn.reward
            else:
                segments.append(Segment(
                    input_ids=list(turn.prompt_ids) + list(turn.completion_ids),
                    loss_mask=[0] * len(turn.prompt_ids) + [1] * len(turn.completion_ids),
                    logprobs=[0.0] * len(turn.prompt_ids) + list(turn.logprobs),
                    prompt_length=len(turn.prompt_ids), reward=turn.reward))
        return segments


def encode(tokenizer, text: str) -> list[int]:
    """The ids of text inside a sequence (no special tokens added; a whole prompt is :func:`encode_prompt`'s)."""
    return tokenizer(text, add_special_tokens=False)["input_ids"]


class TokenChain:
    """Builds each turn's prompt as the previous prompt + the model's tokens + the env's new tokens.

    The env's new tokens are the chat-template text of the messages that follow the model's
    turn (its own turn, as the env recorded it, is dropped: the model's tokens stand for it),
    closed the way the template closes an assistant turn.

    Args:
        tokenizer: The model's tokenizer (with its chat template).
    """

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.ids: list[int] | None = None
        self._messages: list[dict] = []
        probe = [{"role": "user", "content": "u"}]
        opened = render_prompt(tokenizer, probe, None, True)
        closed = render_prompt(tokenizer, probe + [{"role": "assistant", "content": "\x00"}], None, False)
        # What the template writes after an assistant turn's text ("<|im_end|>\n" for ChatML).
        self._turn_end = closed.split("\x00", 1)[1] if closed.startswith(opened) and "\x00" in closed else ""
        eos = tokenizer.eos_token_id
        self._eos_text = tokenizer.decode([eos]) if eos is not None else None

    def prompt(self, request: ChatRequest) -> list[int]:
        """The prompt ids for this request (the rendered conversation on the first turn)."""
        if self.ids is None:
            text = render_prompt(self.tokenizer, request.messages, request.tools, True)
            self.ids = encode_prompt(self.tokenizer, text)
        self._messages = list(request.messages)
        return list(self.ids)

    def extend(self, completion_ids: Sequence[int], request: ChatRequest, action: Any = None) -> list[int]:
        """Append the model's tokens and the env's reply (from the next request); the new prompt.

        ``action``: what the completion was parsed into, to recognise the env's copy of the
        model's turn (an env that continues with another turn, such as ToolTalk's ground
        truth, keeps that turn in the sequence as env tokens).
        """
        previous, messages = self._messages, list(request.messages)
        kept = 0
        while kept < min(len(previous), len(messages)) and previous[kept] == messages[kept]:
            kept += 1
        start = kept
        if kept == len(previous) and start < len(messages) and _is_turn_of(messages[start], action):
            start += 1  # the env's copy of the model's own turn
        full = render_prompt(self.tokenizer, messages, request.tools, True)
        before = render_prompt(self.tokenizer, messages[:start], request.tools, False) if start else ""
        if full.startswith(before):
            env_text = full[len(before):]
        else:  # a template whose rendering of a prefix is not a prefix: the new messages on their own
            env_text = render_prompt(self.tokenizer, flatten_messages(messages[start:]), None, True)
        closing = self._turn_end
        if completion_ids and self._eos_text and completion_ids[-1] == self.tokenizer.eos_token_id:
            closing = closing.removeprefix(self._eos_text)  # the model closed its turn itself
        self.ids = list(self.ids or []) + list(completion_ids) + encode(self.tokenizer, closing + env_text)
        self._messages = messages
        return list(self.ids)


def _is_turn_of(message: dict, action: Any) -> bool:
    """Whether ``message`` is the env's record of an assistant turn that took ``action``."""
    if message.get("role") != "assistant":
        return False
    if isinstance(action, dict):
        calls = message.get("tool_calls") or []
        return bool(calls) and calls[0].get("function", calls[0]).get("name") == action.get("name")
    return not message.get("tool_calls") and (message.get("content") or "").strip() == str(action or "").strip()


def action_text(action: Any) -> str:
    """The completion text a model would write for an action: a tool call as JSON, text as is."""
    if isinstance(action, dict):
        return json.dumps({"name": action.get("name"), "arguments": action.get("arguments", {})},
                          ensure_ascii=False)
    return "" if action is None else str(action)


def rollouts(env_id: str, agent, episodes: int | None = None, task_ids: Sequence[str] | None = None,
             repeats: int = 1, seed: int = 0, env_kwargs: dict | None = None, batch_size: int = 8,
             tokenizer=None, chain: bool = False, max_steps: int = MAX_STEPS) -> list[Episode]:
    """Play episodes and return them with token ids, loss masks, logprobs and rewards.

    Args:
        env_id: A toolgym env id.
        agent: An :class:`~toolgym.agents.llm.LLMAgent` (played in lockstep, ``batch_size`` at a
            time, as ``toolgym eval`` does), any other agent (``reset`` / ``act``), or a spec
            string for :func:`toolgym.agents.make_agent` (``"oracle"``, ``"hf:PATH"``, ...).
        episodes: Play the first N tasks of the task set (default: all), unless ``task_ids``.
        task_ids: The tasks to play, in order (a task may repeat).
        repeats: Play each task this many times in a row (a GRPO group).
        seed: The seed of every reset.
        env_kwargs: Keywords of ``gym.make``.
        batch_size: Episodes stepped together by an LLM agent.
        tokenizer: For agents without a model: the tokenizer whose chat template turns their
            prompts and actions into token ids (none: episodes have rewards but no turns).
        chain: Build each prompt from the previous one and the model's tokens (see the module
            docstring) instead of rendering the conversation anew. LLM agents need a backend
            that takes prompt ids (:class:`~toolgym.agents.llm.TransformersBackend`).
        max_steps: Steps after which an episode is cut (and records an error).

    Returns:
        One :class:`Episode` per played episode, in the order of the tasks.
    """
    env_kwargs = dict(env_kwargs or {})
    probe = make_env(env_id, env_kwargs)
    if isinstance(agent, str):
        from toolgym.agents import make_agent
        spec, agent = agent, make_agent(agent, probe, seed=seed)
    else:
        spec = getattr(agent, "spec", None) or type(agent).__name__
    jobs = [t for t in (list(task_ids) if task_ids is not None else select_tasks(probe, episodes))
            for _ in range(repeats)]
    header = run_header(env_id, probe, spec, seed, env_kwargs, agent)
    if callable(getattr(agent, "step_batch", None)):
        play = play_batched(env_id, env_kwargs, agent, jobs, header, seed, batch_size, chain, max_steps)
    else:
        play = [_play_agent(probe, agent, task_id, header, seed, tokenizer, chain, max_steps) for task_id in jobs]
    return [episode_from_record(record) for record in play]


def play_batched(env_id: str, env_kwargs: dict, agent, jobs: Sequence[str], header: dict, seed: int,
                 batch_size: int, chain: bool = False, max_steps: int = MAX_STEPS) -> list[dict]:
    """Records of an LLM agent's episodes, ``batch_size`` stepped in lockstep with one generate per step.

    The same stepping as :func:`toolgym.eval.batch.evaluate_batched` (whose helpers it uses),
    for a list of jobs in which a task may repeat; with ``chain`` the prompts are token chains.
    """
    from toolgym.eval.batch import _Slot, _advance, _start

    envs = [make_env(env_id, env_kwargs) for _ in range(min(batch_size, len(jobs)))]
    queue = list(enumerate(jobs))
    records: list[dict | None] = [None] * len(jobs)
    slots = [_Slot(env=e) for e in envs]
    index: dict[int, int] = {}  # slot -> job position
    live = []
    for n, slot in enumerate(slots):
        position, task_id = queue.pop(0)
        _start(slot, task_id, 0, agent, header, seed)
        index[n] = position
        live.append(n)
    chains = {n: TokenChain(agent.backend.tokenizer) for n in live} if chain else {}
    while live:
        if chain:
            steps = _chained_step(agent, [slots[n] for n in live], [chains[n] for n in live])
        else:
            steps = agent.step_batch([slots[n].state for n in live], [slots[n].observation for n in live],
                                     [slots[n].info for n in live])
        still_live = []
        for n, step in zip(live, steps):
            slot = slots[n]
            if _advance(slot, step, max_steps, env_id):
                records[index[n]] = slot.record
                if not queue:
                    continue
                position, task_id = queue.pop(0)
                _start(slot, task_id, 0, agent, header, seed)
                index[n] = position
                if chain:
                    chains[n] = TokenChain(agent.backend.tokenizer)
            still_live.append(n)
        live = still_live
    return records  # type: ignore[return-value]


def _chained_step(agent, slots: list, chains: list[TokenChain]) -> list:
    """One lockstep step whose prompts are token chains (queued actions first, as ``step_batch``)."""
    steps = [agent.queued(slot.state) for slot in slots]
    pending = [i for i, s in enumerate(steps) if s is None]
    requests, prompt_ids = [], []
    for i in pending:
        slot, chain = slots[i], chains[i]
        request = agent.request(slot.state, slot.observation, slot.info)
        if chain.ids is None:
            ids = chain.prompt(request)
        else:
            ids = chain.extend(slot.state.notes.pop("completion_ids", []), request,
                               slot.state.notes.pop("action", None))
        requests.append(request)
        prompt_ids.append(ids)
    completions = agent.backend.generate(requests, agent.sampling, prompt_ids=prompt_ids) if requests else []
    for i, completion in zip(pending, completions):
        slots[i].state.notes["completion_ids"] = list(completion.completion_token_ids or [])
        steps[i] = agent.finish(slots[i].state, completion)
        slots[i].state.notes["action"] = steps[i].action
    return steps


def _play_agent(env: gym.Env, agent, task_id: str, header: dict, seed: int, tokenizer, chain: bool,
                max_steps: int) -> dict:
    """One episode of an agent without a model; with a tokenizer each step records the ids a model
    would have been given and would have written (logprobs 0: no model)."""
    from toolgym.agents.llm.prompts import EpisodeState, defaults_for, make_prompt_format

    prompt_format = make_prompt_format(defaults_for(env)[0])
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    agent.reset(observation, info)
    record = {**header, "task_id": task_id, "split": info.get("split"), "prompt": reset_prompt(observation, info),
              "metrics": None, "trajectory": [], "return": 0.0}
    state, token_chain, last_completion, last_action = EpisodeState(task_id=task_id, info=info), None, None, None
    for _ in range(max_steps):
        llm = None
        if tokenizer is not None:
            messages, tools = prompt_format.build(state, info)
            request = ChatRequest(messages=messages, tools=tools)
            if not chain:
                prompt_ids = encode_prompt(tokenizer, render_prompt(tokenizer, messages, tools, True))
            elif token_chain is None:
                token_chain = TokenChain(tokenizer)
                prompt_ids = token_chain.prompt(request)
            else:
                prompt_ids = token_chain.extend(last_completion, request, last_action)
        action = last_action = agent.act(observation, info)
        if tokenizer is not None:
            last_completion = encode(tokenizer, action_text(action)) + [tokenizer.eos_token_id]
            llm = Completion(text=action_text(action), prompt_tokens=len(prompt_ids),
                             completion_tokens=len(last_completion), prompt_token_ids=prompt_ids,
                             completion_token_ids=last_completion, logprobs=[0.0] * len(last_completion),
                             finish_reason="stop").record()
        observation, reward, terminated, truncated, info = env.step(action)
        state.info = info
        entry = {"action": action, "observation": observation, "reward": reward}
        if llm is not None:
            entry["llm"] = llm
        record["trajectory"].append(entry)
        record["return"] += reward
        if terminated or truncated:
            record["metrics"] = info.get("metrics")
            break
    if record["metrics"] is None:
        record["error"] = f"episode did not end within {max_steps} steps"
    return record


def episode_from_record(record: dict) -> Episode:
    """An :class:`Episode` from a results-file record (steps without token ids add no turn).

    The reward of a step whose action was queued from an earlier completion goes to that
    completion's turn.
    """
    episode = Episode(task_id=record["task_id"], record=record)
    for step in record.get("trajectory") or []:
        reward = float(step.get("reward") or 0.0)
        episode.rewards.append(reward)
        llm = step.get("llm") or {}
        if llm.get("completion_token_ids") is not None and llm.get("prompt_token_ids") is not None:
            ids = list(llm["completion_token_ids"])
            logprobs = list(llm.get("logprobs") or [0.0] * len(ids))
            episode.turns.append(Turn(list(llm["prompt_token_ids"]), ids, logprobs, reward))
        elif episode.turns:
            episode.turns[-1].reward += reward
    return episode
