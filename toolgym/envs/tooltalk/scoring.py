"""ToolTalk's metrics (Farn & Shin 2023, section 3 and Algorithm 2).

Predictions are matched greedily, in order, against all ground-truth calls of the
conversation; each ground-truth call matches at most once. Per-tool equivalence:

- action tools compare the arguments present in the ground truth; recipients and attendees
  as sets; free text (event names, descriptions, locations, subjects, bodies, reminder tasks)
  through a :class:`~toolgym.envs.common.text_similarity.TextSimilarity`;
- read-only tools compare execution results: a query matches when it returns every record
  the ground truth's query returned (ids compared), or the same response;
- generated ids and session tokens in responses are ignored.

``scoring="paper_compat"`` instead reproduces each ``check_api_call_correctness`` of the
released evaluator, including its defects: SendMessage's receiver is compared with itself
(never checked), GetReminders needs an identical request, weather and account reads also
need identical arguments, and UserLogin / RegisterUser need identical session tokens.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from toolgym.envs.common.metrics import safe_div
from toolgym.envs.common.text_similarity import TextSimilarity, similar
from toolgym.worlds.tooltalk.tools import parse_time


@dataclass
class CallRecord:
    """A tool call with its outcome; ``turn`` is the assistant turn it belongs to."""

    name: str
    arguments: Any
    response: Any
    error: str | None
    is_action: bool
    turn: int
    matched: bool = False
    incorrect: bool = False

    def as_dict(self) -> dict:
        return {"name": self.name, "arguments": self.arguments, "response": self.response,
                "exception": self.error, "turn": self.turn, "match": self.matched,
                "incorrect_action": self.incorrect}


# Tools whose result is a list of records with ids: (response key, id field).
RECORD_LISTS = {
    "FindAlarms": ("alarms", "alarm_id"),
    "QueryCalendar": ("events", "event_id"),
    "SearchInbox": ("emails", "email_id"),
    "SearchMessages": ("messages", "message_id"),
    "GetReminders": ("reminders", "reminder_id"),
}
# Free-text arguments of action tools and the threshold kind that applies to them.
FREE_TEXT = {
    "CreateEvent": {"name": "short", "description": "short", "location": "short"},
    "ModifyEvent": {"new_name": "short", "new_description": "short", "new_location": "short"},
    "SendEmail": {"subject": "short", "body": "long"},
    "SendMessage": {"message": "long"},
    "AddReminder": {"task": "short"},
}
UNORDERED = {"to", "attendees", "new_attendees"}
GENERATED = {"session_token"}  # injected by the world; ToolTalk's own tokens are random


def _ids(record: CallRecord) -> set | None:
    key, id_field = RECORD_LISTS[record.name]
    items = record.response.get(key) if isinstance(record.response, dict) else None
    if not isinstance(items, list):
        return None
    return {item.get(id_field) for item in items if isinstance(item, dict)}


def _args(record: CallRecord) -> dict:
    return record.arguments if isinstance(record.arguments, dict) else {}


class Comparator:
    """Decides whether a predicted call is equivalent to a ground-truth call."""

    def __init__(self, scoring: str, text_similarity: TextSimilarity, action_tools: set[str]):
        self.compat = scoring == "paper_compat"
        self.sim = text_similarity
        self.action_tools = action_tools

    def __call__(self, pred: CallRecord, truth: CallRecord) -> bool:
        if pred.name != truth.name or pred.error != truth.error:
            return False
        if self.compat:
            return self._paper_compat(pred, truth)
        if pred.name in self.action_tools:
            return self._same_arguments(pred, truth) and self._same_response(pred, truth)
        if pred.name in RECORD_LISTS:
            got, want = _ids(pred), _ids(truth)
            return want is None or (got is not None and want <= got)
        return pred.response == truth.response

    # -- paper definition ------------------------------------------------------------------
    def _same_arguments(self, pred: CallRecord, truth: CallRecord) -> bool:
        got, free = _args(pred), FREE_TEXT.get(pred.name, {})
        for key, want in _args(truth).items():
            if key in GENERATED:
                continue
            if key not in got:
                return False
            value = got[key]
            if key in free:
                if value is None or not similar(self.sim, value, want, free[key]):
                    return False
            elif key == "due_date":
                if _date(value) is None or _date(value) != _date(want):
                    return False
            elif key in UNORDERED and isinstance(value, list) and isinstance(want, list):
                if set(map(str, value)) != set(map(str, want)):
                    return False
            elif value != want:
                return False
        return True

    @staticmethod
    def _same_response(pred: CallRecord, truth: CallRecord) -> bool:
        """Action responses carry only generated ids or a status; statuses must agree."""
        if pred.error is not None:
            return True
        if isinstance(truth.response, dict) and set(truth.response) == {"status"}:
            return pred.response == truth.response
        return True

    # -- the released evaluator ------------------------------------------------------------
    def _paper_compat(self, pred: CallRecord, truth: CallRecord) -> bool:
        name, got, want = pred.name, _args(pred), _args(truth)
        if name in ("FindAlarms", "QueryCalendar", "SearchInbox", "SearchMessages"):
            if got.get("session_token") != want.get("session_token"):
                return False
            return self._ids_covered(pred, truth)
        if name == "GetReminders":
            return got == want and self._ids_covered(pred, truth)
        if name == "SendEmail":
            return (got.get("session_token") == want.get("session_token")
                    and set(got.get("to") or []) == set(want.get("to") or [])
                    and self._text(got.get("subject"), want.get("subject"), "short")
                    and self._text(got.get("body"), want.get("body"), "long"))
        if name == "SendMessage":  # the original compares the receiver with itself
            return (got.get("session_token") == want.get("session_token")
                    and self._text(got.get("message"), want.get("message"), "long"))
        if name == "AddReminder":
            for key, value in want.items():
                if key not in got:
                    return False
                if key == "due_date":
                    if _date(got[key]) is None or _date(got[key]) != _date(value):
                        return False
                elif key == "task":
                    if not self._text(got[key], value, "short"):
                        return False
                elif got[key] != value:
                    return False
            return True
        if name in ("CreateEvent", "ModifyEvent"):
            if name == "ModifyEvent" and pred.response != truth.response:
                return False
            free = FREE_TEXT[name]
            for key, value in want.items():
                if key not in got or got[key] is None:
                    return False
                if key in free:
                    if not self._text(got[key], value, "short"):
                        return False
                elif got[key] != value:
                    return False
            return True
        if name == "AddAlarm":
            return all(key in got and got[key] == value for key, value in want.items())
        return pred.response == truth.response and all(
            key in got and got[key] == value for key, value in want.items())

    def _text(self, got: Any, want: Any, kind: str) -> bool:
        return similar(self.sim, got, want, kind)

    @staticmethod
    def _ids_covered(pred: CallRecord, truth: CallRecord) -> bool:
        got, want = _ids(pred), _ids(truth)
        return want is None or (got is not None and want <= got)


def _date(value: Any):
    if not isinstance(value, str):
        return None
    try:
        return parse_time(value).date()
    except ValueError:
        return None


class ConversationScore:
    """Algorithm 2, computed incrementally as predictions arrive."""

    def __init__(self, ground_truth: list[CallRecord], compare: Comparator):
        self.ground_truth = ground_truth
        self.unmatched = list(ground_truth)
        self.predictions: list[CallRecord] = []
        self.compare = compare

    def add(self, prediction: CallRecord) -> None:
        for i, truth in enumerate(self.unmatched):
            if self.compare(prediction, truth):
                truth.matched = prediction.matched = True
                del self.unmatched[i]
                break
        prediction.incorrect = prediction.is_action and not prediction.matched and prediction.error is None
        self.predictions.append(prediction)

    def metrics(self) -> dict:
        n_pred, n_true = len(self.predictions), len(self.ground_truth)
        matches = sum(p.matched for p in self.predictions)
        actions = sum(p.is_action for p in self.predictions)
        valid = sum(p.is_action and p.matched for p in self.predictions)
        incorrect = sum(p.incorrect for p in self.predictions)
        recall = safe_div(matches, n_true, empty=1.0)
        iar = safe_div(incorrect, actions)
        return {
            "precision": safe_div(matches, n_pred),
            "recall": recall,
            "incorrect_action_rate": iar,
            "action_precision": safe_div(valid, actions, empty=1.0),
            "success": float(recall == 1.0 and iar == 0.0),
            "soft_success": recall * (1.0 - iar),
            "predictions": n_pred,
            "ground_truths": n_true,
            "matches": matches,
            "actions": actions,
            "valid_actions": valid,
            "incorrect_actions": incorrect,
        }

    def failure_analysis(self, n_turns: int) -> dict:
        """Section 4.2's error types, counted per failing assistant turn."""
        premature = planning = invocation = 0
        for turn in range(n_turns):
            preds = [p for p in self.predictions if p.turn == turn]
            truths = [t for t in self.ground_truth if t.turn == turn]
            if not truths:
                premature += sum(p.incorrect for p in preds)
                continue
            bad = Counter(p.name for p in preds if not p.matched)
            missed = Counter(t.name for t in truths if not t.matched)
            if not bad and not missed:
                continue
            if bad.keys() == missed.keys() and all(missed[n] >= bad[n] for n in missed):
                invocation += 1
            else:
                planning += 1
        return {"premature_tool_calls": premature, "faulty_planning": planning,
                "incorrect_tool_invocations": invocation}
