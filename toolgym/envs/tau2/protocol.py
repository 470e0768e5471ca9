"""τ²-bench's wire protocol: what τ²'s own harness (``tau2 run`` through litellm) sends to a model,
for its agent (``llm_agent``), its user simulator and its NL-assertion judge.

The ``tau2`` prompt format (:mod:`toolgym.agents.llm.prompts`) and the LLM user's ``tau2``
protocol (:mod:`toolgym.envs.users`) build their requests from here; both are the defaults on
official tasks. Facts taken from τ²-bench (commit a2c0247, the release of the official data):

- Agent (``agent/llm_agent.py``): the system prompt is ``<instructions>`` (:data:`AGENT_INSTRUCTION`)
  and ``<policy>`` (the domain's policy) on their own lines; the conversation follows in
  litellm's shape (``utils/llm_utils.py``'s ``to_litellm_messages``): a user message has
  ``role`` and ``content``; an assistant message ``role``, ``content`` and ``tool_calls`` (each
  call with ``id``, ``name``, ``function`` and ``type`` in that order, its arguments
  ``json.dumps``'d); a tool message ``role``, ``content`` and ``tool_call_id``: the model's own
  call ids, kept. Tools are each ``Tool.openai_schema``: the docstring's short and
  long description joined by a blank line (newlines kept), the parameters pydantic's
  ``model_json_schema`` of a model named ``parameters`` built from the signature (titles,
  defaults, ``anyOf`` with null, ``$defs``/``$ref``; no ``required`` when nothing is),
  in the order the domain's toolkit defines them (:data:`TOOL_ORDER`). ``tool_choice`` is
  ``"auto"`` whenever tools are offered. Sampling: ``temperature`` 0.0 (τ²'s default) and the
  trial's ``seed`` (:func:`trial_seeds`); nothing else (no ``max_tokens``, ``top_p``, logprobs).
- User simulator (``user/user_simulator.py``): the system prompt is the simulation guidelines
  (``data/tau2/user_simulator/simulation_guidelines.md``, ``..._tools.md`` when the user has
  tools, read from the official data folder) with the default persona's empty guidelines in
  place of ``<PERSONA_GUIDELINES>``, then ``<scenario>`` with the task's user scenario as τ²'s
  ``UserScenario.__str__`` writes it (tab-indented). Roles are flipped: the agent's words are
  ``user`` turns, the user's own words and tool calls ``assistant`` turns, the results of its
  calls ``tool`` messages; telecom's phone tools go as native ``tools`` with ``tool_choice``
  ``"auto"``. The same temperature and seed as the agent.
- NL judge (``evaluator/evaluator_nl_assertions.py``): τ²'s system prompt and one user message
  with the whole episode and the assertions (:func:`judge_request`), ``temperature`` 0.0 and
  nothing else; asked only for tasks whose ``reward_basis`` has ``NL_ASSERTION``. τ² scores
  ``all()`` over the judge's results (so an answer with fewer results than assertions can pass,
  and one that is not JSON ends the run); toolgym reads the i-th result as the i-th
  assertion's verdict and counts a missing or unreadable one as not met.
- Limits: ``max_steps`` 200 (Tau2-v0's ``max_messages``, counted as τ²'s orchestrator counts),
  ``max_errors`` 10, 4 trials (the leaderboard's submissions; ``tau2 run``'s default is 1), seeds
  ``random.seed(300)`` then one ``random.randint(0, 1000000)`` per trial (``runner/batch.py``).
- Solo agent (τ³'s ``llm_agent_solo``, Tau2-v0's ``solo_mode``): the system prompt is τ³'s solo
  prompt, which the env already holds (instructions, policy and ticket); the tools are the
  agent's, then the user's, then ``done`` (:func:`solo_tools`); ``tool_choice`` is
  ``"required"``.

Checked with ``benchmarks/compare_wire.py domains`` (both harnesses behind one recording
server, five official tasks of each domain): every request of the agent, the user and the judge
equal in airline, retail and telecom. Not reproduced: τ²'s evaluator raises when an env
assertion's function raises (mock's assertions on a task the agent did not create), and ``tau2
run`` retries the whole simulation, sending its requests again, then records an infrastructure
error (left out of its metrics); Tau2-v0 counts such an assertion not met and plays the episode
once.

Differences τ² makes by accident and toolgym reproduces:

- The assistant's tool calls carry a top-level ``name`` beside ``function.name`` (τ²'s
  ``to_litellm_messages`` writes it). litellm leaves out a message's keys whose value is null
  (an assistant message without calls has no ``tool_calls``, one without text no ``content``).
- The instruction says "You cannot do both at the same time." although τ²'s own messages may
  hold text and calls together.

"""

from __future__ import annotations

import functools
import json
import random
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import docstring_parser
import pydantic

from toolgym.worlds.tau2.airline import AirlineTools
from toolgym.worlds.tau2.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools
from toolgym.worlds.tau2.common import SoloStopTools
from toolgym.worlds.tau2.mock import MockTools, MockUserTools
from toolgym.worlds.tau2.retail import RetailTools
from toolgym.worlds.tau2.telecom import TelecomTools, TelecomUserTools
from toolgym.worlds.tools import Toolkit, _for_pydantic

#: Each domain's toolkits: the agent's, and the user's own where it has tools (dual control).
TOOLKITS: dict[str, tuple[type[Toolkit], type[Toolkit] | None]] = {
    "airline": (AirlineTools, None), "retail": (RetailTools, None), "telecom": (TelecomTools, TelecomUserTools),
    "mock": (MockTools, MockUserTools), "banking_knowledge": (KnowledgeTools, KnowledgeUserTools)}

AGENT_INSTRUCTION = (
    "You are a customer service agent that helps the user according to the <policy> provided below.\n"
    "In each turn you can either:\n"
    "- Send a message to the user.\n"
    "- Make a tool call.\n"
    "You cannot do both at the same time.\n"
    "\n"
    "Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.")

#: τ²'s defaults (``config.py``).
MAX_STEPS = 200
MAX_ERRORS = 10
TRIALS = 4
SEED = 300
TEMPERATURE = 0.0

#: The order in which τ²'s toolkits define their tools (τ² offers them so); toolgym's are by name.
TOOL_ORDER = {
    "airline": ("book_reservation", "calculate", "cancel_reservation", "get_reservation_details", "get_user_details",
                "list_all_airports", "search_direct_flight", "search_onestop_flight", "send_certificate",
                "transfer_to_human_agents", "update_reservation_baggages", "update_reservation_flights",
                "update_reservation_passengers", "get_flight_status"),
    "retail": ("calculate", "cancel_pending_order", "exchange_delivered_order_items", "find_user_id_by_name_zip",
               "find_user_id_by_email", "get_order_details", "get_product_details", "get_item_details",
               "get_user_details", "list_all_product_types", "modify_pending_order_address",
               "modify_pending_order_items", "modify_pending_order_payment", "modify_user_address",
               "return_delivered_order_items", "transfer_to_human_agents"),
    "telecom": ("get_customer_by_phone", "get_customer_by_id", "get_customer_by_name", "get_details_by_id",
                "suspend_line", "resume_line", "get_bills_for_customer", "send_payment_request", "get_data_usage",
                "enable_roaming", "disable_roaming", "transfer_to_human_agents", "refuel_data"),
    "mock": ("create_task", "get_users", "update_task_status", "transfer_to_human_agents"),
    "telecom/user": ("check_status_bar", "check_network_status", "check_network_mode_preference",
                     "set_network_mode_preference", "run_speed_test", "toggle_airplane_mode", "check_sim_status",
                     "reseat_sim_card", "toggle_data", "toggle_roaming", "check_data_restriction_status",
                     "toggle_data_saver_mode", "check_apn_settings", "set_apn_settings", "reset_apn_settings",
                     "check_wifi_status", "toggle_wifi", "check_wifi_calling_status", "toggle_wifi_calling",
                     "check_vpn_status", "connect_vpn", "disconnect_vpn", "check_installed_apps",
                     "check_app_status", "check_app_permissions", "grant_app_permission", "can_send_mms",
                     "reboot_device", "check_payment_request", "make_payment"),
    "mock/user": ("check_notifications", "dismiss_notification"),
    "banking_knowledge": ("transfer_to_human_agents", "get_current_time", "get_user_information_by_id",
                          "get_user_information_by_name", "get_user_information_by_email", "change_user_email",
                          "get_referrals_by_user", "get_credit_card_transactions_by_user",
                          "get_credit_card_accounts_by_user", "log_verification", "give_discoverable_user_tool",
                          "unlock_discoverable_agent_tool", "call_discoverable_agent_tool",
                          "list_discoverable_agent_tools"),
    "banking_knowledge/user": ("apply_for_credit_card", "submit_referral", "call_discoverable_user_tool",
                               "list_discoverable_user_tools", "request_human_agent_transfer", "submit_transaction"),
}



def trial_seeds(trials: int, seed: int = SEED) -> list[int]:
    """τ²'s per-trial seeds: ``random.seed(seed)``, then ``random.randint(0, 1000000)`` per trial."""
    draw = random.Random(seed)
    return [draw.randint(0, 1000000) for _ in range(trials)]


def trial_seed(trial: int) -> int:
    """The seed τ² gives the agent and the user in trial ``trial`` (0-based) of a run."""
    return trial_seeds(trial + 1)[trial]


def tool_schema(toolkit: type[Toolkit], name: str) -> dict:
    """One tool as τ²'s ``Tool.openai_schema`` derives it from the tool's signature and docstring."""
    spec = toolkit.specs[name]
    doc = docstring_parser.parse(getattr(toolkit, spec.method_name).__doc__ or "")
    description = doc.short_description or ""
    if doc.long_description:
        description += "\n\n" + doc.long_description
    texts = {p.arg_name: p.description for p in doc.params}
    fields = {}
    for parameter_name, parameter in spec.parameters.items():
        default = parameter.default
        if parameter_name in texts:
            default = pydantic.Field(default, description=texts[parameter_name])
        fields[parameter_name] = (_for_pydantic(parameter.annotation), default)
    model = pydantic.create_model("parameters", **fields)
    return {"type": "function", "function": {"name": spec.name, "description": description or spec.name,
                                             "parameters": model.model_json_schema()}}


@functools.cache
def _schemas(toolkit: type[Toolkit], order: tuple[str, ...]) -> tuple[str, ...]:
    names = [n for n in order if n in toolkit.specs] + sorted(set(toolkit.specs) - set(order))
    return tuple(json.dumps(tool_schema(toolkit, n)) for n in names)


def tools(domain: str, side: str = "agent") -> list[dict] | None:
    """The domain's tools as τ² offers them (``side``: ``"agent"`` or ``"user"``), in τ²'s
    order; None for the user of a domain where it has no tools."""
    agent, user = TOOLKITS[domain]
    toolkit = agent if side == "agent" else user
    if toolkit is None:
        return None
    key = domain if side == "agent" else f"{domain}/user"
    return [json.loads(s) for s in _schemas(toolkit, TOOL_ORDER.get(key, ()))]


def bank_tools(toolkit: type[Toolkit]) -> list[dict]:
    """banking_knowledge's agent tools under a retrieval config (``toolkit``: the base tools composed with
    the config's): the config's tools first, in the order of its toolkits, then the base tools in τ³'s
    order, as τ³'s toolkit classes list them (a mixin's tools before ``KnowledgeTools``')."""
    base = TOOL_ORDER["banking_knowledge"]
    first = tuple(name for cls in toolkit.__mro__ for name in getattr(cls, "__dict__", {})
                  if name in toolkit.specs and name not in base)
    return [json.loads(s) for s in _schemas(toolkit, tuple(dict.fromkeys(first)) + base)]


def solo_tools(domain: str) -> list[dict]:
    """τ³'s solo agent's tools: the agent's, the user's (where it has any), then ``done``."""
    return tools(domain) + (tools(domain, "user") or []) + [json.loads(s) for s in _schemas(SoloStopTools, ())]


def agent_system_prompt(policy: str) -> str:
    return f"<instructions>\n{AGENT_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>"


def wire_message(message: Mapping) -> dict:
    """A conversation message (OpenAI's shape, as toolgym's envs keep it) as τ²'s
    ``to_litellm_messages`` writes it and litellm sends it (keys whose value is null left out)."""
    return {key: value for key, value in _litellm_message(message).items() if value is not None}


def _litellm_message(message: Mapping) -> dict:
    role = message.get("role")
    if role == "tool":
        return {"role": "tool", "content": message.get("content"), "tool_call_id": message.get("tool_call_id")}
    if role == "assistant":
        calls = None
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                arguments = function.get("arguments")
                try:  # τ² holds the arguments parsed and dumps them again
                    arguments = json.dumps(json.loads(arguments) if isinstance(arguments, str) else arguments)
                except ValueError:
                    pass
                calls.append({"id": call.get("id"), "name": function.get("name"),
                              "function": {"name": function.get("name"), "arguments": arguments},
                              "type": "function"})
        return {"role": "assistant", "content": message.get("content"), "tool_calls": calls}
    return {"role": role, "content": message.get("content")}


def agent_messages(conversation: Sequence[Mapping], policy: str, solo: bool = False) -> list[dict]:
    """The agent's request messages: τ²'s system prompt, then the conversation (without the
    env's own system message) in τ²'s shape; ``solo``: the env's system message is τ³'s solo
    prompt already."""
    rest = [m for m in conversation if m.get("role") != "system"]
    system = policy if solo else agent_system_prompt(policy)
    return [{"role": "system", "content": system}, *map(wire_message, rest)]


# -- the NL-assertion judge ----------------------------------------------------------------
def judge_request(assertions: Sequence[str], trajectory: Sequence[Mapping]):
    """τ²'s ``NLAssertionsEvaluator`` request: its system prompt (kept whitespace and all in
    ``assets/tau2/nl_assertions_judge.txt``) and one user message with every message of the
    episode as ``role: content`` (tool messages, and ``None`` for a message without text,
    included) and the assertions as a Python list; no tools, no seed."""
    from toolgym.llm.backends import ChatRequest

    conversation = "\n".join(f"{m.get('role')}: {m.get('content')}" for m in trajectory)
    user = (f"\n        conversation:\n        {conversation}\n        \n        expectedOutcomes:\n"
            f"        {list(assertions)}\n        ")
    return ChatRequest(messages=[{"role": "system", "content": _judge_prompt()}, {"role": "user", "content": user}])


@functools.cache
def _judge_prompt() -> str:
    return (Path(__file__).resolve().parents[2] / "assets" / "tau2" / "nl_assertions_judge.txt").read_text(
        encoding="utf-8")


# -- the user simulator --------------------------------------------------------------------
def guidelines_folder(benchmark_folder: str | Path) -> Path:
    """Where τ²'s user-simulation guidelines are in the official data's ``tau2bench`` folder."""
    return Path(benchmark_folder) / "tau2" / "user_simulator"


def guidelines(folder: str | Path, with_tools: bool) -> str:
    """τ²'s simulation guidelines (in ``folder``), with the default persona's (empty) guidelines."""
    name = "simulation_guidelines_tools.md" if with_tools else "simulation_guidelines.md"
    path = Path(folder) / name
    if not path.is_file():
        raise ValueError(f"the tau2 user protocol needs τ²'s {name}: not found at {path}")
    return path.read_text(encoding="utf-8").replace("<PERSONA_GUIDELINES>", "")


def scenario_text(scenario: Mapping) -> str:
    """A task's user scenario as τ²'s ``UserScenario.__str__`` writes it."""
    lines = []
    if scenario.get("persona") is not None:
        lines += ["Persona:", textwrap.indent(scenario["persona"], "\t")]
    instructions = scenario.get("instructions")
    if isinstance(instructions, Mapping):
        parts = [f"Domain: {instructions.get('domain')}",
                 f"Reason for call:\n{textwrap.indent(instructions.get('reason_for_call') or '', chr(9))}"]
        for key, title in (("known_info", "Known info"), ("unknown_info", "Unknown info")):
            if instructions.get(key) is not None:
                parts.append(f"{title}:\n{textwrap.indent(instructions[key], chr(9))}")
        parts.append(f"Task instructions:\n{textwrap.indent(instructions.get('task_instructions') or '', chr(9))}")
        instructions = "\n".join(parts)
    lines += ["Instructions:", textwrap.indent(str(instructions), "\t")]
    return "\n".join(lines)


def user_system_prompt(folder: str | Path, scenario: Mapping, with_tools: bool) -> str:
    return f"{guidelines(folder, with_tools)}\n\n<scenario>\n{scenario_text(scenario)}\n</scenario>"


def user_messages(conversation: Sequence[Mapping]) -> list[dict]:
    """The user simulator's view of the conversation, roles flipped as τ²'s ``flip_roles``: the
    agent's text as ``user`` turns (its tool calls and their results are not shown), the user's
    words and tool calls as ``assistant`` turns, the results of the user's calls as ``tool``."""
    out = []
    for message in conversation:
        role = message.get("role")
        if role == "assistant" and not message.get("tool_calls"):
            out.append({"role": "user", "content": message.get("content")})
        elif role == "user":
            out.append(wire_message({**message, "role": "assistant"}))
        elif role == "tool" and message.get("requestor") == "user":
            out.append(wire_message(message))
    return out

