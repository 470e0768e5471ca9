"""``toolgym play``: the env's prompt and a hint that fits its actions, rewards, ToolTalk's ground
truth, another episode, Ctrl-C."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from toolgym.eval.cli import action_hint, history_news, main


class Keyboard:
    """Stands in for ``input``: returns the lines in order, records the prompts, then EOF."""

    def __init__(self, *lines: str):
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        if line is KeyboardInterrupt:
            raise KeyboardInterrupt
        return line


def play(monkeypatch, argv: list[str], *lines) -> tuple[int, str, Keyboard]:
    keyboard = Keyboard(*lines)
    monkeypatch.setattr("builtins.input", keyboard)
    code = main(["play", *argv])
    return code, keyboard.prompts, keyboard


@pytest.mark.parametrize("env_id, docs, hint", [
    ("OpenWeather-v0", "curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q={city}", "one curl command"),
    ("CatAPI-v0", "curl -X DELETE 'https://api.thecatapi.com/v1/favourites/{image_id}'", "one curl command"),
    ("HomeSearch-v0", "API.set_location(value: str)", "a program of API calls"),
    ("Tabletop-v0", "get_obj_names() -> list[str]", "a program of API calls"),
])
def test_play_shows_the_prompt_and_a_hint_that_fits_the_env(monkeypatch, capsys, env_id, docs, hint):
    code, prompts, _ = play(monkeypatch, [env_id], "quit")
    out = capsys.readouterr().out
    assert code == 0 and prompts == ["> "]
    assert "[system]" in out and docs in out and "[user]" in out
    assert f"Type {hint}" in out
    assert '{"name": ...' not in out  # no JSON tool call where the env wants something else


def test_hints_for_plans_and_multi_step_modes():
    appbench_plan = SimpleNamespace(unwrapped=SimpleNamespace(env_id="AppBench-v0", mode="plan"))
    assert action_hint(appbench_plan).startswith("the whole plan")
    multi = SimpleNamespace(unwrapped=SimpleNamespace(env_id="HomeSearch-v0", mode="multi_step"))
    assert action_hint(multi).startswith("one statement per step")
    own = SimpleNamespace(unwrapped=SimpleNamespace(env_id="HomeSearch-v0", mode=None, action_hint="a haiku"))
    assert action_hint(own) == "a haiku"


def test_tooltalk_play_shows_rewards_and_the_ground_truth_then_offers_another_episode(monkeypatch, capsys):
    code, prompts, _ = play(monkeypatch, ["ToolTalk-v0", "--task-id", "GetReminders-easy", "--env-kwarg",
                                          "text_similarity=lexical"],
                            "GetReminders()", "Here they are.", "y", "quit")
    out = capsys.readouterr().out
    assert code == 0
    assert prompts == ["> ", "> ", "another episode? [y/N] ", "> "]
    assert out.count("== ToolTalk-v0 task GetReminders-easy") == 2
    assert "GetReminders(): Get a list of reminders." in out  # the tools, for a tool-calling env
    assert "(reward +1, return 1)" in out and "(reward +0, return 1)" in out
    truth = out.split("the env's ground truth, not your turn:")[1].split("\n--\n")[0]
    assert "call GetReminders({})" in truth and "[tool GetReminders]" in truth
    assert "[assistant]\nHere are your reminders." in truth
    assert "Here they are." not in truth  # the player's own reply is not echoed as news
    assert "== episode over; return 1.0 ==" in out and '"success": 1.0' in out


def test_another_episode_defaults_to_no(monkeypatch, capsys):
    code, prompts, _ = play(monkeypatch, ["HomeSearch-v0", "--task-id", "0"],
                            'API.set_location("Palo Alto")\\', "API.search()", "")
    out = capsys.readouterr().out
    assert code == 0 and prompts == ["> ", "... ", "another episode? [y/N] "]
    assert out.count("== HomeSearch-v0 task 0") == 1 and '"num_statements": 2' in out


def test_ctrl_c_in_play_exits_quietly_with_130(monkeypatch, capsys):
    code, _, _ = play(monkeypatch, ["OpenWeather-v0"], KeyboardInterrupt)
    captured = capsys.readouterr()
    assert code == 130
    assert captured.err.strip() == "toolgym: interrupted" and "Traceback" not in captured.err


def test_history_news_leaves_out_what_the_player_already_saw():
    system, user = {"role": "system", "content": "s"}, {"role": "user", "content": "q"}
    call = {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "F", "arguments": "{}"}}]}
    result = {"role": "tool", "name": "F", "content": "r"}
    # The player's own call and its result (the observation): nothing new.
    assert history_news([system, user], [system, user, call, result], "F()", "r") == []
    # The player's reply was replaced by the ground truth; the next user turn is the observation.
    truth = {"role": "assistant", "content": "Done."}
    after = [system, user, call, {**result, "content": "r2"}, truth, {"role": "user", "content": "next"}]
    assert history_news([system, user], after, "Sure.", "next") == [call, {**result, "content": "r2"}, truth]


@pytest.mark.parametrize("env_id, shows", [
    ("ToolTalk-v0", ["Tools (argument: JSON type; ? marks an optional one):", "  AddAlarm(time: string): Adds an alarm",
                     "To finish: answer the user in plain text; the episode ends after the last user turn."]),
    ("ToolLLM-v0", ["To finish: call Finish (return_type give_answer with final_answer, or give_up_and_restart)."]),
    ("Tabletop-v0", ["In scope for your program (? marks an optional argument):", "  put_first_on_second(obj: string, "
                     "target: string | array of number)", "To finish: single_step: the program is the episode; multi_step: type done"]),
    ("VirtualHome-v0", ["To finish: program mode: the program is the episode; step mode: type done"]),
    ("GoogleSheets-v0", ["  run_program(program: string): Run a Python program (gspread / pandas) on the worksheet. "
                         "Names defined: sheet, worksheet"]),
])
def test_play_shows_argument_types_names_in_scope_and_how_to_finish(monkeypatch, capsys, env_id, shows):
    argv = [env_id, "--env-kwarg", "text_similarity=lexical"] if env_id == "ToolTalk-v0" else [env_id]
    code, _, _ = play(monkeypatch, argv, "quit")
    out = capsys.readouterr().out
    assert code == 0
    for text in shows:
        assert text in out, text
