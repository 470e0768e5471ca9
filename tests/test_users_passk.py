"""Simulated users (scripted, LLM, your own class) and pass^k over repeated trials."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import play_oracle
from toolgym.envs.users import STOP, TRANSFER, ScriptedUser, first_person, make_user, match_instruction
from toolgym.eval.cli import main
from toolgym.eval.passk import pass_hat_k, pass_hat_table


class EchoUser:
    """A user of one's own: says the reason for calling, then stops at the agent's first message."""

    def reset(self, scenario, seed=None):
        return "echo: " + scenario["instructions"]["reason_for_call"]

    def respond(self, message, trajectory):
        return STOP


class FlakyOracle:
    """The oracle on even episode seeds, silence (then stop) on odd ones: pass^1 0.5, pass^2 0."""

    def __init__(self, env):
        self.env = env.unwrapped

    def reset(self, observation, info):
        self.odd = self.env._np_random_seed % 2 == 1

    def act(self, observation, info):
        return STOP if self.odd else self.env.oracle_action()


@pytest.mark.parametrize("domain", ["airline", "retail", "mock"])
def test_the_scripted_user_ends_every_oracle_episode(domain):
    env = gym.make("Tau2-v0", domain=domain).unwrapped
    for task_id in env.task_ids():
        total, info, _ = play_oracle(env, task_id)
        user_turns = [m["content"] for m in info["messages"] if m["role"] == "user"]
        reason = env.task["user_scenario"]["instructions"]["reason_for_call"]
        assert total == 1.0 and user_turns[0] == first_person(reason) and user_turns[-1] == STOP


def test_scripted_user_answers_questions_and_confirms():
    user = ScriptedUser(goal_reached=lambda trajectory: False)
    scenario = {"instructions": {"reason_for_call": "Cancel my order.", "known_info": "My email is a@b.c."}}
    assert user.reset(scenario) == "Cancel my order."
    assert user.respond("What is your email?", []) == "My email is a@b.c."
    assert user.respond("Shall I proceed? (yes/no)", []) == "Yes, please."
    transferred = [{"role": "assistant", "content": None, "tool_calls": [
        {"function": {"name": "transfer_to_human_agents", "arguments": "{}"}}]}]
    assert user.respond("You are being transferred.", transferred) == TRANSFER


def test_a_module_class_user_plays_the_user():
    env = gym.make("Tau2-v0", domain="mock", user=f"{__name__}:EchoUser").unwrapped
    observation, _ = env.reset(options={"task_id": "mock_complete"})
    assert observation == "echo: You finished task_1 and want it marked completed."
    env.step({"name": "update_task_status", "arguments": {"task_id": "task_1", "status": "completed"}})
    _, reward, terminated, _, info = env.step("Done.")
    assert terminated and reward == 1.0 and info["messages"][-1]["content"] == STOP
    with pytest.raises(ValueError, match="unknown user"):
        make_user("telepathic")


def test_tooltalk_takes_a_simulated_user_and_keeps_replay_by_default():
    replay = gym.make("ToolTalk-v0", text_similarity="lexical").unwrapped
    scripted = gym.make("ToolTalk-v0", text_similarity="lexical", user="scripted").unwrapped
    task_id = replay.task_ids()[30]
    _, replayed, _ = play_oracle(replay, task_id)
    total, simulated, _ = play_oracle(scripted, task_id)
    users = lambda info: [m["content"] for m in info["messages"] if m["role"] == "user"]  # noqa: E731
    assert total == 1.0 and simulated["metrics"]["success"] == 1.0
    assert users(simulated)[0] == users(replayed)[0] and users(simulated)[1:] != users(replayed)[1:]


def test_pass_hat_k_is_taus_estimator():
    outcomes = {"a": [True, True, False], "b": [True, True, True], "c": [False, False, False]}
    assert pass_hat_k(outcomes, 1) == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert pass_hat_k(outcomes, 2) == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert pass_hat_k(outcomes, 3) == pytest.approx(1 / 3)
    records = [{"task_id": t, "split": s, "metrics": {"success": int(ok)}}
               for t, s in (("a", "x"), ("b", "y")) for ok in outcomes[t]]
    table = pass_hat_table(records)
    assert table["x"]["pass^3"] == 0.0 and table["y"]["pass^3"] == 1.0 and table["all"]["pass^2"] == pytest.approx(2 / 3)


def test_eval_trials_reports_pass_k_in_the_table_and_the_results_file(tmp_path, capsys):
    out = tmp_path / "runs.jsonl"
    rc = main(["eval", "Tau2-v0", "--agent", f"{__name__}:FlakyOracle", "--trials", "2", "--env-kwarg",
               "domain=mock", "--out", str(out), "--no-progress"])
    table = capsys.readouterr().out
    assert rc == 0
    head = next(line for line in table.splitlines() if line.startswith("subset"))
    row = next(line for line in table.splitlines() if line.startswith("base"))
    assert head.split()[-2:] == ["pass^1", "pass^2"] and row.split()[-2:] == ["50.0", "0.0"]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["trial"] for r in lines[:-1]] == [0, 0, 0, 1, 1, 1]
    assert lines[-1]["pass^k"] == {"base": {"pass^1": 0.5, "pass^2": 0.0}}
    assert main(["report", str(out)]) == 0 and "pass^2" in capsys.readouterr().out


def test_an_llm_agent_and_an_llm_user_complete_episodes(tmp_path):
    pytest.importorskip("transformers")
    from toolgym.agents import make_agent
    from toolgym.llm.tiny import build_tiny_model

    env = gym.make("Tau2-v0", domain="mock", user="scripted")
    _, info = env.reset(options={"task_index": 0})
    corpus = [json.dumps(t) for t in info["tools"]] * 3 + [m["content"] for m in info["messages"]] * 3
    model = build_tiny_model(tmp_path / "tiny", seed=1, corpus=corpus)
    env = gym.make("Tau2-v0", domain="mock", user=f"llm:hf:{model}", max_steps=3,
                   user_options={"max_new_tokens": 6, "temperature": 1.0}).unwrapped
    agent = make_agent(f"hf:{model}", env, max_new_tokens=6)
    for task_id in env.task_ids()[:1]:
        observation, info = env.reset(seed=3, options={"task_id": task_id})
        assert observation and env.user._messages[0]["content"].startswith("# User simulation")
        agent.reset(observation, info)
        for _ in range(3):
            observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
            if terminated or truncated:
                break
        assert terminated or truncated
        assert set(info["metrics"]) >= {"reward", "reward_without_judge", "db", "failed"}


class ScriptedBackend:
    """A backend that answers with the given completions in turn (the last one repeated)."""

    def __init__(self, *completions):
        self.completions, self.requests = list(completions), []

    def generate(self, requests, sampling):
        from toolgym.llm.backends import Completion
        self.requests += requests
        text, calls = self.completions.pop(0) if len(self.completions) > 1 else self.completions[0]
        return [Completion(text=text, tool_calls=calls)]


def test_an_llm_user_acts_on_its_phone_when_the_agent_asks():
    from toolgym.envs.users import LLMUser

    toggle = {"type": "function", "function": {"name": "toggle_data", "arguments": "{}"}}
    backend = ScriptedBackend(("My mobile data does not work.", []), ("", [toggle]),
                              ("Data works now, thanks! ###STOP###", []))
    env = gym.make("Tau2-v0", domain="telecom", user=LLMUser(backend)).unwrapped
    task_id = next(t for t in env.task_ids() if "data_off" in t)
    observation, _ = env.reset(seed=0, options={"task_id": task_id})
    assert observation == "My mobile data does not work."
    assert backend.requests[0].messages[0]["content"].startswith("# User simulation")
    _, reward, terminated, _, info = env.step("Please turn your mobile data on.")
    assert terminated and reward == 1.0 and info["metrics"]["env_assertion"] == 1.0
    user_call = next(m for m in info["trajectory"] if m["role"] == "user" and m.get("tool_calls"))
    assert user_call["tool_calls"][0]["function"]["name"] == "toggle_data"
    assert not any(m.get("tool_calls") and m["role"] == "user" for m in info["messages"])  # not the agent's view
    assert backend.requests[2].messages[-1]["content"].startswith("Tool result: Mobile Data is now ON.")
    assert backend.requests[1].tools == env.user_tools  # the model was offered the phone's tools


@pytest.mark.parametrize("message,tool", [
    ("Please turn off airplane mode.", "toggle_airplane_mode"),
    ("Could you toggle your mobile data?", "toggle_data"),
    ("Restart your phone, please.", "reboot_device"),
    ("Can you turn on Wi-Fi calling?", "toggle_wifi_calling"),
    ("Please disable data saver mode", "toggle_data_saver_mode"),
    ("Reseat your SIM and tell me what happens", "reseat_sim_card"),
    ("Please reset your APN settings and then restart the phone", "reset_apn_settings"),
    ("Disconnect from your VPN", "disconnect_vpn"),
    ("Could you check your network status?", "check_network_status"),
    ("Let me check your account.", None),
    ("Thanks! I have updated your plan.", None),
])
def test_the_scripted_user_reads_free_form_phone_instructions(message, tool):
    env = gym.make("Tau2-v0", domain="telecom").unwrapped
    names = [t["function"]["name"] for t in env.user_tools if not t["function"]["parameters"].get("required")]
    assert match_instruction(message, names) == tool


@pytest.mark.parametrize("task_id,instruction", [
    ("telecom_0_data_off", "Could you turn your mobile data back on?"),
    ("telecom_1_airplane_mode_on", "Please switch off airplane mode."),
    ("telecom_2_data_saver_on", "Please disable Data Saver."),
])
def test_free_form_instructions_fix_the_phone(task_id, instruction):
    env = gym.make("Tau2-v0", domain="telecom").unwrapped
    env.reset(options={"task_id": task_id})
    observation, reward, terminated, _, info = env.step(instruction)
    # the user did it on its phone, saw the goal reached and hung up
    assert terminated and observation == STOP and reward == 1.0 and info["metrics"]["env_assertion"] == 1.0
    assert [m["tool_calls"][0]["function"]["name"] for m in info["trajectory"] if m["role"] == "user"
            and m.get("tool_calls")] == [env.task["evaluation_criteria"]["actions"][0]["name"]]


#: Agent messages that cost the scripted user seconds a step while it searched them with
#: r"\{.*\}" (every "{" tried against the rest of the message: 2.8 s of CPU for the first), or
#: crashed it (JSON nested too deep to decode, a tool name that is a list).
HOSTILE_MESSAGES = [
    "x" + "{" * 99_000,
    "x" + "{ " * 49_500 + "!",
    "x" + '{"a":' * 19_800 + "}",
    'Please run {"name": ["a"], "arguments": {}}',
    "x" + "{" * 49_000 + "}" + "{" * 49_000,
    "turn " * 19_800,
    "x" + "\n" * 99_000 + "shall i?",
]


@pytest.mark.parametrize("message", HOSTILE_MESSAGES)
def test_the_scripted_user_reads_hostile_messages_in_linear_time(message):
    env = gym.make("Tau2-v0", domain="telecom").unwrapped
    env.reset(options={"task_id": "telecom_0_data_off"})
    start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
    observation, reward, terminated, _, _ = env.step(message)
    assert time.process_time() - start < 1.0  # 0.04 s on a 99,000-character message
    assert (reward, terminated) == (0.0, False)
    # the customer's ordinary answer: to a statement, or (the last message) to a question
    assert observation.startswith("Yes, please." if message.endswith("?") else "Okay."), observation


def test_the_scripted_user_still_runs_the_call_an_agent_spells_out_as_json():
    env = gym.make("Tau2-v0", domain="telecom").unwrapped
    user = ScriptedUser(tools=env.user_tools)
    call = {"name": "toggle_data", "arguments": {}}
    assert user.respond(f"Please do this on your phone: {json.dumps(call)} and tell me.", []) == call
    unknown = ScriptedUser(tools=env.user_tools).respond('Run {"name": "no_such_tool", "arguments": {}}', [])
    assert unknown.startswith("Okay.")  # not a call of its tools: read as something said to it
    env.reset(options={"task_id": "telecom_0_data_off"})
    observation, reward, terminated, _, info = env.step(f"Please run {json.dumps(call)} on your phone.")
    assert (observation, reward, terminated) == (STOP, 1.0, True)
