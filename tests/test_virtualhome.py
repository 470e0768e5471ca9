"""VirtualHome-v0: parsing, grounding, LCS, the home's preconditions and effects, goals, the env."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.virtualhome.tasks import corpus_step
from toolgym.worlds.virtualhome.program import (
    best_lcs, compat_ground_line, lcs_score, profile, program_lines, read_line, script_to_agent,
)
from toolgym.worlds.virtualhome import tasks
from toolgym.worlds.virtualhome.tasks import builtin_tasks
from toolgym.worlds.virtualhome.vocabulary import ACTIONS, valid_object_lists
from toolgym.worlds.virtualhome.world import PreconditionFailed, VirtualHomeWorld

VALID = valid_object_lists()
PROFILE = profile(ACTIONS)


def read(line: str):
    return read_line(line, VALID, PROFILE)


@pytest.fixture(scope="module")
def env():
    return gym.make("VirtualHome-v0").unwrapped


@pytest.fixture
def world():
    return VirtualHomeWorld(seed=0)


# -- parsing --------------------------------------------------------------------------------
def test_lines_are_cleaned_as_the_released_evaluator_does():
    text = '1. Agent.WalkTo(kitchen);\n\n  2. Agent.Find("cup")\nAgent.Grab(\'cup\')\nTask: Make coffee\nAgent.Eat(x)'
    assert program_lines(text) == ["Agent.WalkTo(kitchen)", "Agent.Find(cup)", "Agent.Grab(cup)"]


def test_script_lines_become_agent_calls():
    assert script_to_agent("[Walk] <sofa> (1)") == "Agent.WalkTo(sofa)"
    assert script_to_agent("[PutBack] <plate> (1) <table> (2)") == "Agent.Put(plate, table)"
    assert script_to_agent("[Sit] <chair> (3)") == "Agent.SitOn(chair)"
    assert script_to_agent("[StandUp]") == "Agent.StandUp()"
    assert script_to_agent("Agent.WalkTo(sofa)") is None
    assert read("[Walk] <couch> (1)").canonical == "Agent.WalkTo(couch)"


def test_corpus_steps_become_agent_calls():
    assert corpus_step("Walk to home office") == "Agent.WalkTo(home_office)"
    assert corpus_step("Put plate on table") == "Agent.Put(plate, table)"
    assert corpus_step("Put on clothes shirt") == "Agent.PutOn(clothes_shirt)"
    assert corpus_step("Pour water into cup") == "Agent.Pour(water, cup)"
    assert corpus_step("Stand up") == "Agent.StandUp()"


@pytest.mark.parametrize("line,error", [
    ("Agent.Grab(unicorn)", "'unicorn' is not a valid object for Agent.Grab"),
    ("Agent.Grab(television)", "'television' is not a valid object for Agent.Grab"),  # not grabbable
    ("Agent.Grab(cup, plate)", "Agent.Grab takes 1 object(s), got 2"),
    ("Agent.Sleep(bed)", "Agent.Sleep takes 0 object(s), got 1"),
    ("Agent.Put(cup)", "Agent.Put takes 2 object(s), got 1"),
    ("Agent.Grab(3)", "'3' is not a valid object for Agent.Grab"),
])
def test_invalid_objects_and_wrong_arity(line, error):
    assert read(line).error == error


@pytest.mark.parametrize("line", ["Agent.Fly(kitchen)", "walk to kitchen", "Agent.Find(clothes dress)",
                                  "__import__('os').system('ls')", "Agent.Find(x); Agent.Grab(x)",
                                  "API.WalkTo(kitchen)", "x = Agent.Find(cup)", "Agent.Grab(object=cup)", "Agent.Find(Agent.Grab(cup))"])
def test_lines_that_are_no_agent_call_are_not_executable(line):
    parsed = read(line)
    assert not parsed.executable and parsed.action is None


def test_valid_lines_ground():
    line = read("Agent.PutIn(food_chicken,freezer)")
    assert line.executable and line.arguments == ("food_chicken", "freezer")
    assert line.canonical == "Agent.PutIn(food_chicken, freezer)"
    assert read("Agent.StandUp()").executable


def test_compat_grounding_follows_the_released_rules():
    assert compat_ground_line("Agent.Sleep()", VALID)
    assert not compat_ground_line("Agent.Grab()", VALID)  # empty argument list: only for no-argument actions
    assert compat_ground_line("Agent.Put(cup, table)", VALID)
    assert not compat_ground_line("Agent.Put(cup, television)", VALID)
    assert compat_ground_line("Agent.WalkTo(kitchen) Agent.Find(unicorn)", VALID)  # only the first (...) counts
    assert not compat_ground_line("[Walk] <sofa> (1)", VALID)
    assert not compat_ground_line("Agent.Grab(a, b, c)", VALID)


# -- LCS ------------------------------------------------------------------------------------
def test_lcs_on_constructed_pairs():
    assert lcs_score(["a", "b", "c", "d"], ["a", "c", "e"]) == 2 / 4
    assert lcs_score(["a", "b"], ["b", "a"]) == 1 / 2
    assert lcs_score([], ["a"]) == 0.0 and lcs_score([], []) == 0.0
    assert lcs_score(["x", "a", "b", "y"], ["a", "b"]) == 2 / 4


def test_best_lcs_over_several_solutions():
    labels = [["a", "b", "c"], ["a", "x", "b", "y", "c"], ["a", "d"]]
    assert best_lcs(["a", "d"], labels) == (1.0, 2)
    assert best_lcs(["a", "b"], labels) == (2 / 3, 0)  # 2/3 > 2/5 and > 1/2


# -- the home: preconditions and effects ----------------------------------------------------
def test_each_precondition(world):
    # Seed 0: the agent stands in the kitchen; the remote control lies inside the (closed)
    # dishwasher; the light is unplugged; the television (living room) is off.
    assert world.agent.room == "kitchen"
    with pytest.raises(PreconditionFailed, match="not close to the cup"):
        world.act("Grab", ["cup"])
    world.act("WalkTo", ["remote_control"])
    assert world.close_to() == {"remote_control", "dishwasher"}
    with pytest.raises(PreconditionFailed, match="inside the closed dishwasher; Open it first"):
        world.act("Grab", ["remote_control"])
    world.act("Open", ["dishwasher"])
    with pytest.raises(PreconditionFailed, match="already open"):
        world.act("Open", ["dishwasher"])
    world.act("Grab", ["remote_control"])
    world.act("WalkTo", ["fork"])
    world.act("Grab", ["fork"])
    world.act("WalkTo", ["plate"])
    with pytest.raises(PreconditionFailed, match="both hands are full"):
        world.act("Grab", ["plate"])
    with pytest.raises(PreconditionFailed, match="does not hold the plate"):
        world.act("Put", ["plate", "kitchen_counter"])
    world.act("WalkTo", ["light"])
    with pytest.raises(PreconditionFailed, match="unplugged; PlugIn it first"):
        world.act("SwitchOn", ["light"])
    world.act("WalkTo", ["television"])
    with pytest.raises(PreconditionFailed, match="the television is off"):
        world.act("Watch", ["television"])
    with pytest.raises(PreconditionFailed, match="is standing; SitOn or LieOn"):
        world.act("Sleep", [])
    world.act("WalkTo", ["couch"])
    world.act("SitOn", ["couch"])
    with pytest.raises(PreconditionFailed, match="sitting on the couch; StandUp before moving"):
        world.act("WalkTo", ["kitchen"])
    with pytest.raises(PreconditionFailed, match="not in the living_room"):
        world.act("TurnTo", ["bed"])
    world.act("Sleep", [])
    with pytest.raises(PreconditionFailed, match="asleep; WakeUp first"):
        world.act("StandUp", [])
    world.act("WakeUp", [])
    world.act("StandUp", [])
    world.act("WalkTo", ["food_chicken"])
    with pytest.raises(PreconditionFailed, match="needs a knife in hand"):
        world.act("Cut", ["food_chicken"])
    with pytest.raises(PreconditionFailed, match="is not sittable"):
        world.act("SitOn", ["food_chicken"])


def test_a_failed_action_changes_nothing(world):
    before = world.state_hash()
    with pytest.raises(PreconditionFailed):
        world.act("Grab", ["remote_control"])
    assert world.state_hash() == before


def test_effects_are_facts(world):
    for action, args in [("WalkTo", ["dresser"]), ("Open", ["dresser"]), ("Grab", ["clothes_shirt"]),
                         ("PutOn", ["clothes_shirt"]), ("WalkTo", ["cup"]), ("Grab", ["cup"]),
                         ("WalkTo", ["table"]), ("Put", ["cup", "table"])]:
        world.act(action, args)
    facts = world.facts()
    assert {("open", "dresser"), ("wears", "clothes_shirt"), ("ontop", "cup", "table"),
            ("in_room", "dining_room")} <= facts
    assert ("inside", "clothes_shirt", "dresser") not in facts and ("holds", "cup") not in facts


# -- built-in tasks -------------------------------------------------------------------------
def test_builtin_set_statistics():
    tasks = builtin_tasks(0)
    assert len(tasks.test) == 100 and len(tasks.demos) == 44
    assert all(len(a.solutions) >= 2 for a in tasks.test + tasks.demos)
    assert len({a.title for a in tasks.test + tasks.demos}) == 144
    assert len(tasks.demo_pool()) == 132


def test_every_builtin_solution_reaches_its_goal_from_the_start(world):
    start = world.snapshot()
    from toolgym.worlds.virtualhome.tasks import execute
    for activity in builtin_tasks(0).test[:20]:
        assert not set(activity.goal) <= world.facts()
        for solution in activity.solutions:
            world.restore(start)
            assert execute(world, solution) is None
            assert set(activity.goal) <= world.facts()


def test_the_cached_activities_are_the_generated_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    generated = tasks.generate_activities(0)
    builtin_tasks.cache_clear()  # no earlier set in this process: the make below fills the cache
    filled = gym.make("VirtualHome-v0").unwrapped
    (entry,) = tmp_path.glob("virtualhome-activities-*.json")
    assert len(json.loads(entry.read_text())) == len(generated)
    builtin_tasks.cache_clear()
    monkeypatch.setattr(tasks, "generate_activities", lambda seed: pytest.fail("the activities were generated again"))
    read = gym.make("VirtualHome-v0").unwrapped
    task_set = builtin_tasks(0)
    assert [*task_set.test, *task_set.demos] == generated  # the same order, titles, goal tuples, solutions
    assert read.task_ids() == filled.task_ids() == [a.title for a in generated[:100]]
    assert read.activities == filled.activities and read.demo_pool == filled.demo_pool
    for task_id in read.task_ids()[::25]:
        episodes = []
        for env in (filled, read):
            env.reset(seed=0, options={"task_id": task_id})
            episodes.append(env.step(env.oracle_action()))
        assert episodes[0] == episodes[1] and episodes[0][4]["metrics"]["goal_success"] == 1


# -- the env --------------------------------------------------------------------------------
def test_a_partial_program_scores_lcs_but_not_the_goal(env):
    env.reset(options={"task_id": "Turn on television"})
    # Solutions: [WalkTo(living_room), Find(television), SwitchOn(television)],
    # [WalkTo(television), SwitchOn(television)], [RunTo(living_room), WalkTo(television),
    # TurnTo(television), SwitchOn(television)]. Best LCS of [WalkTo(television)]: 1/2.
    _, reward, terminated, _, info = env.step("Agent.WalkTo(television)")
    m = info["metrics"]
    assert terminated and reward == 0.5
    assert (m["executable"], m["lcs"], m["lcs_if_executable"], m["preconditions_ok"], m["goal_success"]) == \
           (1, 0.5, 0.5, 1, 0)
    assert m["has_goal"] == 1 and m["success"] == 0 and m["first_failure"] is None


def test_a_failing_program_stops_at_its_first_failure(env):
    env.reset(options={"task_id": "Turn on television"})
    _, _, _, _, info = env.step("Agent.SwitchOn(television)\nAgent.WalkTo(television)\nAgent.SwitchOn(television)")
    m = info["metrics"]
    # All three lines are executable; LCS with solution 2 is 2/3; the first line fails (not close).
    assert m["executable"] == 1 and m["lcs"] == pytest.approx(2 / 3)
    assert m["preconditions_ok"] == 0 and m["goal_success"] == 0
    assert m["first_failure"]["line"] == 1 and "not close to the television" in m["first_failure"]["reason"]


def test_non_executable_lines_zero_lcs_if_executable(env):
    env.reset(options={"task_id": "Turn on television"})
    _, reward, _, _, info = env.step("Agent.WalkTo(television)\nAgent.SwitchOn(tv)")
    m = info["metrics"]
    assert m["executable"] == 0 and m["lcs"] == 0.5 and m["lcs_if_executable"] == 0 and reward == 0.5


def test_goal_scoring_and_step_mode_rewards_sum_to_the_metric():
    env = gym.make("VirtualHome-v0", mode="step", scoring="goal").unwrapped
    env.reset(options={"task_id": "Turn on television"})
    rewards = [env.step(a)[1] for a in ['{"name": "WalkTo", "arguments": {"object": "television"}}',
                                        "Agent.SwitchOn(television)", "Agent.SwitchOff(television)",
                                        "Agent.SwitchOn(television)"]]
    _, last, terminated, _, info = env.step("done")
    assert rewards == [0.0, 1.0, -1.0, 1.0] and last == 0.0 and terminated
    assert info["metrics"]["goal_success"] == 1 and sum(rewards) == 1


def test_compat_scoring_compares_text(env):
    compat = gym.make("VirtualHome-v0", scoring="paper_compat").unwrapped
    compat.reset(options={"task_id": "Turn on television"})
    m = compat.step("Agent.WalkTo( television )\nAgent.SwitchOn(television)")[4]["metrics"]
    assert m["executable"] == 1 and m["lcs"] == 0.5  # "Agent.WalkTo( television )" is another text
    compat.reset(options={"task_id": "Turn on television"})
    assert compat.step("")[4]["metrics"]["executable"] == 1  # the released evaluator: an empty program runs
    env.reset(options={"task_id": "Turn on television"})
    assert env.step("")[4]["metrics"]["executable"] == 0


def test_hostile_programs_run_nothing(env):
    hostile = ["__import__('os').system('touch /tmp/pwned')", "Agent.__class__.__init__", "open('/etc/passwd')",
               "exec('1')", "Agent.Grab(cup).__globals__", "[x for x in ().__class__.__bases__]", "Agent." * 5000]
    for program in hostile:
        env.reset(options={"task_id": "Turn on television"})
        before = env.world.state_hash()
        _, _, terminated, _, info = env.step(program)
        assert terminated and info["metrics"]["executable"] == 0
        assert env.world.state_hash() == before


def test_prompt_and_tools(env):
    _, info = env.reset(options={"task_id": "Turn on television"})
    system = info["messages"][0]["content"]
    assert "Agent.WalkTo(object)" in system and system.count("Task: ") == 3
    assert info["messages"][1]["content"] == "Task: Turn on television\nAction:\n"
    assert len(info["tools"]) == 40 and info["goal"] == [["on", "television"]]


def test_an_llm_agent_reads_the_toolbench_prompt_and_a_raw_completion():
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import Completion

    env = gym.make("VirtualHome-v0")

    class Scripted:  # answers as a chat model would: a fence, then an invented next task
        name = "scripted"

        def describe(self):
            return {"backend": self.name, "model": "scripted"}

        def generate(self, requests, sampling):
            text = f"```\n{env.unwrapped.oracle_action()}\n```\nTask: Watch TV\nAction:\nAgent.Sleep()"
            return [Completion(text=text, completion_tokens=1) for _ in requests]

    agent = LLMAgent(Scripted(), env=env)
    obs, info = env.reset(seed=0, options={"task_id": "Turn on television"})
    agent.reset(obs, info)
    *_, info = env.step(agent.act(obs, info))
    assert info["metrics"]["lcs"] == 1 and info["metrics"]["goal_success"] == 1


def test_bad_configuration_raises_at_make(tmp_path):
    with pytest.raises(ValueError, match="num_test must be less than"):
        gym.make("VirtualHome-v0", num_test=500)
    with pytest.raises(FileNotFoundError, match="available_examples.json"):
        gym.make("VirtualHome-v0", tasks="official", data_dir=str(tmp_path))
    with pytest.raises(ValueError, match="world_seed"):
        gym.make("VirtualHome-v0", world_seed=-1)


# -- official data --------------------------------------------------------------------------
def test_official_tasks(official_data):
    env = gym.make("VirtualHome-v0", tasks="official", data_dir=str(official_data)).unwrapped
    assert len(env.task_ids()) == 100 and len(env.demo_pool) == 330
    goals = 0
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        m = env.step(env.oracle_action())[4]["metrics"]
        assert m["executable"] == 1 and m["lcs"] == 1
        goals += m["has_goal"]
        assert m["goal_success"] == m["has_goal"]
    assert goals == 37


def test_official_corpus_file_gives_the_same_activities(official_data):
    from toolgym.envs.virtualhome.tasks import drop_duplicates, read_corpus, read_toolbench
    corpus = read_corpus(official_data / "virtualhome")
    toolbench = read_toolbench(official_data / "sambanova" / "virtual_home")
    assert len(corpus) == 204 and sum(len(p) for _, p in corpus) == 1121
    assert {t: set(p) for t, p in corpus} == {t: set(p) for t, p in toolbench}
    assert len(drop_duplicates(corpus)) == 183
