"""Values the database cannot hold are refused before any write, through each env's step.

Integers beyond signed 64-bit, lone UTF-16 surrogates and NaN / infinite numbers used to
raise out of ``step`` (OverflowError, UnicodeEncodeError at commit, IntegrityError), leave
criteria or a session token behind and the SQLAlchemy session in PendingRollbackError.
Each test checks: no exception, a plain error observation, the world's state unchanged, and
a valid call afterwards works.
"""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest
from sqlalchemy import select

import toolgym  # noqa: F401
from toolgym.envs.common.text_similarity import LexicalSimilarity, make_text_similarity, similar, valid_text
from toolgym.worlds.appbench import data_model as appbench_models

# A test that hangs fails instead of stalling the suite.
pytestmark = pytest.mark.timeout(120)
SURROGATE = "\ud800"
HUGE = 10**30


@pytest.fixture(scope="module")
def tooltalk():
    return gym.make("ToolTalk-v0", text_similarity="lexical")


@pytest.fixture(scope="module")
def appbench():
    return gym.make("AppBench-v0", mode="interactive")


# -- ToolTalk ---------------------------------------------------------------------------------
TOOLTALK_CALLS = [
    ("AddReminder", {"task": f"Call mom {SURROGATE}", "due_date": "2023-09-20 10:00:00"}, "task"),
    ("CreateEvent", {"name": SURROGATE, "event_type": "event", "start_time": "2023-09-20 10:00:00",
                     "end_time": "2023-09-20 11:00:00"}, "name"),
    ("RegisterUser", {"username": f"new{SURROGATE}", "password": "secret123", "email": "new@example.com",
                      "name": "New User", "phone": "123-456-7890"}, "username"),
    ("AddAlarm", {"time": HUGE}, "time"),
]


@pytest.mark.parametrize("name, arguments, field", TOOLTALK_CALLS, ids=[c[0] for c in TOOLTALK_CALLS])
@pytest.mark.parametrize("form", ["json", "call syntax"])
def test_tooltalk_refuses_values_the_database_cannot_hold(tooltalk, name, arguments, field, form):
    tooltalk.reset(seed=0, options={"task_id": tooltalk.unwrapped.task_ids()[0]})
    world = tooltalk.unwrapped.world
    before, token = world.state_hash(), world.session_token
    action = ({"name": name, "arguments": arguments} if form == "json"
              else f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})")
    obs, reward, terminated, truncated, info = tooltalk.step(action)
    error = json.loads(obs)["exception"]
    assert error.startswith(f"Invalid arguments for {name}: {field}: ")
    assert ("lone surrogate" in error) if field != "time" else ("64-bit" in error)
    assert world.state_hash() == before and world.session_token == token
    obs, *_ = tooltalk.step({"name": "GetReminders", "arguments": {}})
    assert json.loads(obs)["exception"] is None and json.loads(obs)["response"]["reminders"]


def test_tooltalk_nan_after_coercion_is_refused(tooltalk):
    tooltalk.reset(seed=0, options={"task_id": tooltalk.unwrapped.task_ids()[0]})
    world = tooltalk.unwrapped.world
    before = world.state_hash()
    # Surrogates in keys and nesting are found too, not only in top-level strings.
    obs, *_ = tooltalk.step({"name": "SendEmail", "arguments": {"to": [f"a{SURROGATE}@b.co"], "subject": "s",
                                                                 "body": "b"}})
    assert "lone surrogate" in json.loads(obs)["exception"] and "to[0]" in json.loads(obs)["exception"]
    assert world.state_hash() == before


# -- AppBench ---------------------------------------------------------------------------------
@pytest.mark.parametrize("amount", ["nan", "inf", "-inf", "NaN"])
def test_appbench_refuses_a_payment_of_nan(appbench, amount):
    env = appbench.unwrapped
    appbench.reset(seed=0, options={"task_id": env.task_ids()[0]})
    world = env.world
    contact = world.session.scalars(select(appbench_models.Contact.name)).first()
    before = world.state_hash()
    obs, reward, terminated, truncated, info = appbench.step(
        {"name": "Payment_makepayment",
         "arguments": {"payment_method": "app balance", "amount": amount, "receiver": contact}})
    result = json.loads(obs)
    assert "amount must be a positive amount of money" in result["exception"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert world.state_hash() == before
    obs, *_ = appbench.step({"name": "Payment_makepayment",
                             "arguments": {"payment_method": "app balance", "amount": "5", "receiver": contact}})
    assert json.loads(obs)["exception"] is None
    assert world.state_hash() != before


# -- HomeSearch -------------------------------------------------------------------------------
@pytest.mark.parametrize("statement, message", [
    # The program parser may refuse the literal itself; either way the call never runs.
    (f'API.set_min_price({HUGE})', "outside the signed 64-bit range|number too large"),
    ('API.set_min_price(1e400)', "inf is not a finite number"),
    ('API.set_location("\\ud800")', "lone surrogate"),
    (f'API.set_location("{SURROGATE}")', "utf-8"),  # a surrogate in the program text itself
])
def test_homesearch_refuses_values_the_database_cannot_hold(statement, message):
    env = gym.make("HomeSearch-v0", mode="multi_step")
    env.reset(seed=0, options={"task_index": 0})
    world = env.unwrapped.world
    if "min_price" in statement:  # the order rule: location and buy_or_rent come first
        for setup in ('API.set_location("Palo Alto")', 'API.set_buy_or_rent("buy")'):
            assert env.step(setup)[0] == '{"response": null}'
    before, criteria = world.state_hash(), dict(world.aux["criteria"])
    obs, reward, terminated, truncated, info = env.step(statement)
    assert obs.startswith("Error: ") and re.search(message, obs)
    assert not terminated and info["error"]  # an error step: the episode goes on
    assert world.state_hash() == before and world.aux["criteria"] == criteria
    # The world still takes valid calls.
    world.api.invoke("set_location" if not criteria else "set_min_price",
                     ["Palo Alto" if not criteria else 100], {})
    assert len(world.aux["criteria"]) == len(criteria) + 1


# -- the free-text comparator -----------------------------------------------------------------
def test_valid_text_replaces_only_lone_surrogates():
    assert valid_text("plain é") == "plain é"
    assert valid_text(f"a{SURROGATE}b\ud83d\ude00") == "a\ufffdb\U0001f600"


@pytest.mark.parametrize("spec", ["auto", "lexical"])
def test_the_comparator_never_raises_on_a_surrogate(spec):
    sim = make_text_similarity(spec)  # auto: the packaged MiniLM, whose tokenizer raised TypeError
    assert similar(sim, f"Team meeting {SURROGATE}", "Team meeting", "short")
    assert not similar(sim, f"{SURROGATE}", "Buy groceries for the week", "short")


def test_a_failing_comparator_falls_back_to_lexical():
    class Broken:
        name, thresholds = "broken", {"short": 0.5, "long": 0.5}

        def score(self, a: str, b: str) -> float:
            raise RuntimeError("model unavailable")

    assert similar(Broken(), "call mom tonight", "call mom tonight please", "short") == (
        LexicalSimilarity().score("call mom tonight", "call mom tonight please") >= LexicalSimilarity().thresholds["short"])
    assert not similar(Broken(), "call mom", "buy a car", "short")


# -- the program toolkits, called directly (the parsers may refuse some of these first) ---------
def test_program_toolkits_check_values_before_the_function_runs():
    from toolgym.worlds.api_programs.toolkit import Date
    from toolgym.worlds.interpreter import ProgramError
    from toolgym.worlds.homesearch import HomeSearchWorld
    from toolgym.worlds.tripbooking import TripBookingWorld

    homes = HomeSearchWorld()
    homes.api.invoke("set_location", ["Palo Alto"], {})
    homes.api.invoke("set_buy_or_rent", ["buy"], {})
    before = homes.state_hash()
    for value in (HUGE, float("nan")):
        with pytest.raises(ProgramError, match=r"Invalid arguments for set_min_price: value: "):
            homes.api.invoke("set_min_price", [value], {})
    assert homes.state_hash() == before
    homes.api.invoke("set_min_price", [100], {})
    assert homes.aux["criteria"]["min_price"] == 100

    trips = TripBookingWorld()
    before = trips.state_hash()
    with pytest.raises(ProgramError, match=r"value\.month: the integer \(67 bits\) is outside"):
        trips.api.invoke("set_departure_date", [Date(10**20, 1, 2023)], {})
    assert trips.state_hash() == before
