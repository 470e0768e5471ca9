"""Writes tests/data/tau2_protocol.json with τ²-bench's own code: run in a throwaway Python 3.12 venv with
τ²-bench (commit a2c0247) installed, never with toolgym:

    TAU2_DATA_DIR=<official data>/tau2bench python benchmarks/tau2_protocol_fixture.py tests/data/tau2_protocol.json
"""
import hashlib, json, random, sys
from tau2.registry import registry
from tau2.agent.llm_agent import LLMAgent
from tau2.user.user_simulator import UserSimulator
out = {"made_with": "tau2-bench a2c0247 (python 3.12 venv, TAU2_DATA_DIR=<official data>/tau2bench): "
                    "random.seed(300) trial seeds, "
                    "LLMAgent.system_prompt and UserSimulator.system_prompt (sha256), "
                    "NLAssertionsEvaluator's request (its generate() recorded)",
       "prompts": {}}
for domain in ["airline", "retail", "telecom", "mock"]:
    env = registry.get_env_constructor(domain)()
    agent = LLMAgent(tools=env.get_tools(), domain_policy=env.get_policy(), llm="x")
    p = agent.system_prompt
    out["prompts"][f"agent:{domain}"] = {"sha256": hashlib.sha256(p.encode()).hexdigest(), "chars": len(p)}
    tasks = registry.get_tasks_loader(domain)()
    task = tasks[0]
    user = UserSimulator(llm="x", instructions=str(task.user_scenario),
                         tools=env.get_user_tools() if env.user_tools is not None else None)
    p = user.system_prompt
    out["prompts"][f"user:{domain}:{task.id}"] = {"sha256": hashlib.sha256(p.encode()).hexdigest(), "chars": len(p)}
random.seed(300)
out["trial_seeds"] = [random.randint(0, 1000000) for _ in range(4)]

# The NL judge's request for a small trajectory: τ²'s evaluator with its generate() recorded.
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.evaluator import evaluator_nl_assertions
from tau2.utils.llm_utils import to_litellm_messages

recorded = {}


def record(model, messages, **kwargs):
    recorded.update(messages=to_litellm_messages(messages),
                    kwargs={k: v for k, v in kwargs.items() if k != "call_name"})
    return AssistantMessage(role="assistant", content='{"results": []}')


evaluator_nl_assertions.generate = record
trajectory = [AssistantMessage(role="assistant", content="Hi! How can I help you today?"),
              UserMessage(role="user", content="Cancel my order, please."),
              AssistantMessage(role="assistant", content=None,
                               tool_calls=[ToolCall(id="c1", name="get_order_details", arguments={"order_id": "#W1"})]),
              ToolMessage(id="c1", role="tool", content='{"status": "pending"}'),
              AssistantMessage(role="assistant", content="It is cancelled.")]
evaluator_nl_assertions.NLAssertionsEvaluator.evaluate_nl_assertions(
    trajectory, ["The agent cancels the order.", "The agent says it's done."])
out["judge"] = {"trajectory": [{"role": "assistant", "content": "Hi! How can I help you today?"},
                               {"role": "user", "content": "Cancel my order, please."},
                               {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": "get_order_details", "arguments": '{"order_id": "#W1"}'}}]},
                               {"role": "tool", "content": '{"status": "pending"}', "tool_call_id": "c1"},
                               {"role": "assistant", "content": "It is cancelled."}],
                "assertions": ["The agent cancels the order.", "The agent says it's done."], **recorded}
json.dump(out, open(sys.argv[1], "w"), indent=1, ensure_ascii=False)
