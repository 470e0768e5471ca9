"""BFCL v4's memory categories: earlier conversations that write memories, then a question.

BFCL runs a memory entry in two phases over one backend (``memory_kv``, ``memory_vector``,
``memory_rec_sum``; the world is :class:`toolgym.worlds.bfcl.memory.MemoryWorld`):

1. the scenario's prerequisite conversations (``memory_prereq_conversation/memory_<scenario>.json``),
   one after another, each a fresh chat of several user turns: the model may call the memory
   tools in up to 20 steps per turn (BFCL's MAXIMUM_STEP_LIMIT; more ends that conversation)
   and a turn ends when it answers without a call. Only the memory carries from one
   conversation to the next (BFCL's snapshot file);
2. the question, a fresh chat whose system message asks for BFCL's answer format
   (``{'answer': ..., 'context': ...}``), answered after any number of memory calls.

Each chat starts with BFCL's memory system prompt: the scenario's assistant role and the
backend's instructions with the memory it shows in context (the core memory, or the whole
summary for ``rec_sum``) as it is when the chat starts.

The answer is graded as BFCL's agentic checker grades it (:func:`check_answer`): the last
message without a call must contain one of the possible answers, after both are standardised
(``,./-_*^()`` removed, lower case, ``'`` read as ``"``) and as a whole word. Under
``paper_compat`` "whole word" is the released checker's ``\\b`` on both sides, which can never
hold next to a non-word character: an answer that begins or ends with one (``$49.99``, one of
the two accepted for ``memory_22-customer-22``) matches only glued to a letter or digit. Under ``paper`` the
answer must not be touched by a letter or digit on either side, which is what ``\\b`` means for
answers that begin and end with a word character (all but that one). The checker's docstring
also says whitespace is ignored; its code keeps whitespace, and so does toolgym under both
scorings (removing it would glue the words of an answer to its neighbours and fail every
plain sentence).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgym.envs.bfcl.multi_turn import (MAX_CALLS_PER_STEP, MAX_CALLS_PER_TURN, MAX_WORK_PER_STEP,
                                          MAX_WORK_PER_TURN, MAXIMUM_STEP_LIMIT, RESULT_CHARACTERS_PER_WORK_UNIT,
                                          budget_refusal)
from toolgym.envs.common.official import OfficialDataError, read_jsonl
from toolgym.worlds.base import WorkBudget, charge
from toolgym.worlds.bfcl.memory import BACKENDS, MemoryWorld, function_docs

MEMORY_CATEGORIES = tuple(f"memory_{backend}" for backend in BACKENDS)

# BFCL's prompts (constants/default_prompts.py), as a model sees them.
ANSWER_FORMAT_PROMPT = (
    "For your final answer to the user, you must respond in this format: {'answer': A short and precise answer to "
    "the question, 'context': A brief explanation of how you arrived at this answer or why it is correct}. If you do "
    "not know the answer, respond with {'answer': 'I do not know', 'context': 'I do not know'}. If you think the "
    "question cannot be properly answered, response with {'answer': 'I cannot answer this question', 'context': A "
    "short reason explaining why this question cannot be answered}.\n")
AGENT_SETTINGS = {
    "student": "You are an academic-support assistant for college student. Remember key personal and academic "
               "details discussed across sessions, and draw on them to answer questions or give guidance.",
    "customer": "You are a general customer support assistant for an e-commerce platform. Your task is to "
                "understand and remember information that can be used to provide information about user "
                "inquiries, preferences, and offer consistent, helpful assistance over multiple interactions.",
    "finance": "You are a high-level executive assistant supporting a senior finance professional. Retain and "
               "synthesize both personal and professional information including facts, goals, prior decisions, "
               "and family life across sessions to provide strategic, context-rich guidance and continuity.",
    "healthcare": "You are a healthcare assistant supporting a patient across appointments. Retain essential "
                  "medical history, treatment plans, and personal preferences to offer coherent, context-aware "
                  "guidance and reminders.",
    "notetaker": "You are a personal organization assistant. Capture key information from conversations, like "
                 "tasks, deadlines, and preferences, and use it to give reliable reminders and answers in future "
                 "sessions.",
}
CORE_ARCHIVAL_PROMPT = (
    "{setting}\n\nYou have access to an advanced memory system, consisting of two memory types 'Core Memory' and "
    "'Archival Memory'. Both type of memory is persistent across multiple conversations with the user, and can be "
    "accessed in a later interactions. You should actively manage your memory data to keep track of important "
    "information, ensure that it is up-to-date and easy to retrieve to provide personalized responses to the user "
    "later.\n\nThe Core memory is limited in size, but always visible to you in context. The Archival Memory has a "
    "much larger capacity, but will be held outside of your immediate context due to its size.\n\nHere is the "
    "content of your Core Memory from previous interactions:\n{memory}\n")
UNIFIED_PROMPT = (
    "{setting}\n\nYou have access to an advanced memory system, which is persistent across multiple conversations "
    "with the user, and can be accessed in a later interactions. You should actively manage your memory data to "
    "keep track of important information, ensure that it is up-to-date and easy to retrieve to provide "
    "personalized responses to the user later.\n\nHere is the content of your memory system from previous "
    "interactions:\n{memory}\n")


# -- the checker ----------------------------------------------------------------------------------
_STRIPPED = re.compile(r"[,./\-_*^()]")


def standardize(text: str) -> str:
    """BFCL's ``standardize_string``: ``,./-_*^()`` removed, lower case, ``'`` as ``"``."""
    return _STRIPPED.sub("", text).lower().replace("'", '"')


def check_answer(response: Any, possible_answers: list[str], compat: bool = False) -> dict:
    """BFCL's agentic checker: is one of the possible answers in the response, as a whole word?

    Returns ``{"valid": bool, "error_type": ..., "error": ...}`` (error fields empty when valid).
    """
    if isinstance(response, list) and response:
        response = response[0]  # BFCL: a response that is a list of one string
    text = standardize(response if isinstance(response, str) else str(response))
    for answer in possible_answers:
        wanted = re.escape(standardize(answer))
        pattern = rf"\b{wanted}\b" if compat else rf"(?<!\w){wanted}(?!\w)"
        if re.search(pattern, text):
            return {"valid": True, "error_type": "", "error": ""}
    return {"valid": False, "error_type": "agentic:answer_not_found",
            "error": f"None of the expected answers were found in the model response: {possible_answers!r}"}


# -- tasks ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PrereqConversation:
    id: str
    turns: list[list[dict]]  # user turns, each a list of messages


@dataclass(frozen=True)
class MemoryTask:
    id: str
    category: str  # memory_kv, memory_vector or memory_rec_sum
    scenario: str
    prereq: list[PrereqConversation]
    question: list[dict]  # the question's one turn of messages
    ground_truth: list[str]  # the possible answers
    functions: list[dict]
    source: str | None = None  # where the possible answer's file says the answer was told

    @property
    def backend(self) -> str:
        return self.category[len("memory_"):]


def _check_record(record: Any, where: str, keys: tuple[str, ...]) -> dict:
    if not isinstance(record, dict) or any(k not in record for k in keys):
        raise OfficialDataError(f"BFCL {where}: needs {', '.join(repr(k) for k in keys)}")
    return record


def _turns(value: Any, where: str) -> list[list[dict]]:
    if not isinstance(value, list) or not all(isinstance(turn, list) and all(
            isinstance(m, dict) and isinstance(m.get("content"), str) for m in turn) for turn in value):
        raise OfficialDataError(f"BFCL {where}: 'question' must be turns of messages with text content")
    return value


def load_memory_tasks(folder: Path, category: str) -> list[MemoryTask]:
    """The official items of one memory category (BFCL's ``process_memory_test_case``): every
    question of ``BFCL_v4_memory.json`` under this backend, after its scenario's conversations."""
    docs_path = folder / "multi_turn_func_doc" / f"{category}.json"
    functions = [_check_record(doc, docs_path.name, ("name",)) for _, doc in read_jsonl(docs_path)]
    answers = {}
    for line, record in read_jsonl(folder / "possible_answer" / "BFCL_v4_memory.json"):
        record = _check_record(record, f"possible_answer/BFCL_v4_memory.json line {line}", ("id", "ground_truth"))
        if not isinstance(record["ground_truth"], list) or not all(isinstance(a, str) for a in record["ground_truth"]):
            raise OfficialDataError(f"BFCL possible_answer/BFCL_v4_memory.json line {line}: ground_truth must be "
                                    f"a list of strings")
        answers[record["id"]] = record
    conversations: dict[str, list[PrereqConversation]] = {}
    tasks = []
    for line, record in read_jsonl(folder / "BFCL_v4_memory.json"):
        record = _check_record(record, f"BFCL_v4_memory.json line {line}", ("id", "question", "scenario"))
        scenario = record["scenario"]
        if scenario not in AGENT_SETTINGS:
            raise OfficialDataError(f"BFCL_v4_memory.json line {line}: unknown scenario {scenario!r}")
        if scenario not in conversations:
            path = folder / "memory_prereq_conversation" / f"memory_{scenario}.json"
            conversations[scenario] = [
                PrereqConversation(str(r["id"]).replace("memory", category, 1), _turns(r["question"], path.name))
                for r in (_check_record(r, f"{path.name} line {n}", ("id", "question")) for n, r in read_jsonl(path))]
        question = _turns(record["question"], f"BFCL_v4_memory.json line {line}")
        if len(question) != 1:
            raise OfficialDataError(f"BFCL_v4_memory.json line {line}: a memory question has one turn")
        if record["id"] not in answers:
            raise OfficialDataError(f"BFCL memory: {record['id']} has no possible answer")
        answer = answers[record["id"]]
        tasks.append(MemoryTask(str(record["id"]).replace("memory", category, 1), category, scenario,
                                conversations[scenario], question[0], answer["ground_truth"], functions,
                                source=answer.get("source")))
    return tasks


def builtin_memory_tasks(seed: int, categories: tuple[str, ...] = MEMORY_CATEGORIES) -> list[MemoryTask]:
    """The seeded built-in tasks (:mod:`toolgym.worlds.bfcl.memory_tasks`) of these categories."""
    from toolgym.worlds.bfcl.memory_tasks import generate_memory_tasks

    backends = tuple(c[len("memory_"):] for c in categories if c in MEMORY_CATEGORIES)
    tasks = []
    for record in generate_memory_tasks(seed, backends):
        tasks.append(MemoryTask(record["id"], record["category"], record["scenario"],
                                [PrereqConversation(p["id"], p["question"]) for p in record["prereq"]],
                                record["question"], record["ground_truth"], function_docs(record["backend"])))
    return tasks


def minilm_encoder(texts: list[str]) -> Any:
    """Unit-length embeddings by the packaged all-MiniLM-L6-v2 (BFCL's vector backend uses the
    same model), loaded once per process on the first similarity search."""
    from toolgym.envs.common.text_similarity import shared_sentence_model

    model = shared_sentence_model(None, "cpu")
    return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)


# -- the episode ----------------------------------------------------------------------------------
class MemoryEpisode:
    """One memory entry played as BFCL plays it: every prerequisite conversation, then the question.

    ``session`` counts the chats (the prerequisite conversations, then the question);
    :meth:`messages` is the current chat, which starts afresh with each.
    """

    def __init__(self, task: MemoryTask, scoring: str = "paper", encoder: Any = None, memory: dict | None = None,
                 answering: list[MemoryTask] | None = None):
        self.task = task
        self.scoring = scoring
        self.world = MemoryWorld(task.backend, encoder=encoder)
        self.chats: list[list[list[dict]]] = [c.turns for c in task.prereq] + [[task.question]]
        #: The tasks whose answers the oracle writes during the prerequisite conversations.
        self.answering = answering or [task]
        #: The memory when the question's chat starts (BFCL's snapshot after the conversations).
        self.prereq_memory: dict | None = None
        self.session = 0
        self.prereq_played = memory is None
        if memory is not None:  # the conversations were played in an earlier episode
            self.world.load(memory)
            self.session = len(self.chats) - 1
        self.turn = 0
        self.steps = 0  # model steps with calls in the current turn
        self.done = False
        self.answer: str | None = None
        self.forced_quits = 0
        self.calls = 0
        #: The steps of the question's chat (BFCL's result of the entry: its one turn of steps).
        self.question_steps = 0
        self._messages: list[dict] = []
        self._step_budget = WorkBudget("step", MAX_CALLS_PER_STEP, MAX_WORK_PER_STEP)
        self._turn_budget = WorkBudget("turn", MAX_CALLS_PER_TURN, MAX_WORK_PER_TURN)
        self._start_chat()

    @property
    def in_question(self) -> bool:
        return self.session == len(self.chats) - 1

    def functions(self) -> list[dict]:
        """The docs offered (the task's own list: read it, never change it)."""
        return self.task.functions

    def system_prompt(self) -> str:
        """BFCL's memory system prompt for the chat starting now (with the answer format for the question)."""
        template = UNIFIED_PROMPT if self.task.backend == "rec_sum" else CORE_ARCHIVAL_PROMPT
        text = template.format(setting=AGENT_SETTINGS[self.task.scenario], memory=self.world.context())
        return f"{text}\n\n{ANSWER_FORMAT_PROMPT}" if self.in_question else text

    def _start_chat(self) -> None:
        if self.in_question:
            self.prereq_memory = self.world.export()
        self.turn = 0
        self.steps = 0
        self._turn_budget.start()
        self._messages = [{"role": "system", "content": self.system_prompt()}]
        self._messages += [dict(m) for m in self.user_messages()]

    def user_messages(self) -> list[dict]:
        return [] if self.done else list(self.chats[self.session][self.turn])

    def messages(self) -> list[dict]:
        return [dict(m) for m in self._messages]

    def record_calls(self, text: str, calls: list[tuple[str, Any]]) -> list[str]:
        """Run one step's calls in order; their results, as the tool messages say them."""
        self._messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments, default=str)}}
            for name, arguments in calls]})
        results = []
        self.question_steps += self.in_question
        self._step_budget.start()
        for name, arguments in calls:
            refused = charge((self._step_budget, self._turn_budget), self.world.work(name, arguments))
            if refused is not None:
                output = budget_refusal(refused)
            else:
                output = self.world.execute(name, arguments)
                for budget in (self._step_budget, self._turn_budget):
                    budget.spend(len(output) // RESULT_CHARACTERS_PER_WORK_UNIT)
            results.append(output)
            self._messages.append({"role": "tool", "name": name, "content": output})
        self.calls += len(calls)
        self.steps += 1
        if self.steps > MAXIMUM_STEP_LIMIT:
            self.forced_quits += 1
            if self.in_question:
                self.done = True  # no answer: BFCL fails the entry (agentic:no_last_message)
            else:
                self._next_chat()  # BFCL ends this conversation and saves the memory
        return results

    def record_answer(self, text: str) -> None:
        """The model answered without a call: the turn ends (the question's answer is this text)."""
        self._messages.append({"role": "assistant", "content": text})
        if self.in_question:
            self.question_steps += 1
            self.answer = text
            self.done = True
            return
        self.turn += 1
        self.steps = 0
        self._turn_budget.start()
        if self.turn >= len(self.chats[self.session]):
            self._next_chat()
        else:
            self._messages += [dict(m) for m in self.user_messages()]

    def _next_chat(self) -> None:
        self.session += 1
        self._start_chat()

    def metrics(self) -> dict:
        if self.answer is None:
            verdict = {"valid": False, "error_type": "agentic:no_last_message",
                       "error": "Cannot find the last chat message that is not a function call."}
        else:
            verdict = check_answer(self.answer, self.task.ground_truth, compat=self.scoring == "paper_compat")
        return {"success": int(verdict["valid"]),
                "check": verdict["error_type"].split(":", 1)[1] if verdict["error_type"] else None,
                "error_type": verdict["error_type"] or None, "failing_detail": verdict["error"] or None,
                "prereq_conversations": len(self.task.prereq) if self.prereq_played else 0,
                "memory_calls": self.calls,
                "forced_quits": self.forced_quits, "memory_entries": self.world.entry_count(),
                "question_steps": self.question_steps}

    # -- the oracle -------------------------------------------------------------------------
    @functools.cached_property
    def _notes(self) -> dict[tuple[int, int], list[tuple[str, str]]]:
        """What the oracle writes at which prerequisite turn: (label, answer) of each question
        it answers (this task's, or with ``memory_prereq="once"`` every question that starts from
        these conversations), at :func:`store_point`."""
        prereq = self.chats[:-1]
        notes: dict[tuple[int, int], list[tuple[str, str]]] = {}
        for task in self.answering:
            point = store_point(prereq, task.ground_truth, task.source)
            notes.setdefault(point, []).append((_label(task.id), task.ground_truth[0]))
        return notes

    def oracle_action(self) -> list[dict] | str:
        """Write each answer at its :func:`store_point`, end every other turn without a call,
        and at the question read the memory back and answer in BFCL's format with what it holds."""
        backend = self.task.backend
        label = _label(self.task.id)
        if self.in_question:
            if self.steps == 0:
                name, arguments = {"kv": ("archival_memory_retrieve", {"key": label}),
                                   "vector": ("archival_memory_retrieve_all", {}),
                                   "rec_sum": ("memory_retrieve", {})}[backend]
                return [{"name": name, "arguments": arguments}]
            recalled = _recalled(backend, self._messages[-1].get("content", ""), label)
            return str({"answer": recalled, "context": "Recalled from my memory of our earlier conversations."})
        notes = self._notes.get((self.session, self.turn)) if self.steps == 0 else None
        if not notes:
            return "Noted."
        return [{"name": "archival_memory_add", "arguments": {"key": label, "value": answer}} if backend == "kv"
                else {"name": "archival_memory_add", "arguments": {"text": f"{label}: {answer}"}} if backend == "vector"
                else {"name": "memory_append", "arguments": {"text": f"{label}: {answer}\n"}}
                for label, answer in notes]


def store_point(prereq: list[list[list[dict]]], ground_truth: list[str], source: str | None) -> tuple[int, int]:
    """The (conversation, turn) where the oracle writes an answer to memory: the first
    prerequisite turn that says it (one of the possible answers, as the checker reads it), else
    the turn sharing most words with the possible answer's ``source``, else the last turn."""
    turns = [(s, t, " ".join(m["content"] for m in turn))
             for s, chat in enumerate(prereq) for t, turn in enumerate(chat)]
    if not turns:
        return (0, 0)
    for s, t, text in turns:
        if check_answer(text, ground_truth)["valid"]:
            return s, t
    if source:
        words = set(re.findall(r"\w+", source.lower()))
        return max(turns, key=lambda item: len(words & set(re.findall(r"\w+", item[2].lower()))))[:2]
    return turns[-1][:2]


def _label(task_id: str) -> str:
    """A task id as a snake_case memory key (``memory_kv_0-customer-0`` -> ``memory_kv_0_customer_0``)."""
    return re.sub(r"[^a-z0-9]+", "_", task_id.lower()).strip("_")


def _recalled(backend: str, result: str, label: str) -> str:
    """The answer remembered under ``label`` in a retrieval's result (empty when none is)."""
    try:
        value = json.loads(result)
    except ValueError:
        return ""
    if backend == "kv":
        return str(value.get("value", ""))
    texts = ([str(item.get("text", "")) for item in value.get("result", [])] if backend == "vector"
             else str(value.get("memory_content", "")).splitlines())
    return next((text[len(label) + 2:] for text in texts if text.startswith(f"{label}: ")), "")
