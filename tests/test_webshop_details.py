"""WebShop-v0 details next to the original: ReAct's think[...] answer, fuzzy matching of text
that is not ASCII (paper keeps it; paper_compat drops it, as the released code does)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.worlds.webshop.reward import get_reward, token_set_ratio


@pytest.fixture(scope="module")
def env():
    return gym.make("WebShop-v0", max_steps=3).unwrapped


def test_think_is_answered_ok_and_changes_nothing(env):
    page, info = env.reset(seed=0, options={"task_index": 0})
    session = json.dumps(env.session, sort_keys=True)
    observation, reward, terminated, truncated, info = env.step("think[I should search for the product first.]")
    assert (observation, reward, terminated, truncated) == ("OK.", 0.0, False, False)
    assert "error" not in info and json.dumps(env.session, sort_keys=True) == session and env._steps == 1
    observation, *_ = env.step(env.oracle_action())  # the shop goes on from the same page
    assert "Total results" in observation
    observation, reward, terminated, truncated, info = env.step("think[out of steps]")
    assert (observation, terminated, truncated) == ("OK.", False, True)  # a thought uses one of max_steps
    assert info["metrics"]["score"] == 0.0 and info["metrics"]["steps"] == 3


PRODUCT = {"query": "sneaker", "product_category": "Clothing › Shoes › Sneakers", "title_nouns": ["sneaker"],
           "Title": "Trail Sneaker", "BulletPoints": ["light"], "Description": "a shoe",
           "Attributes": ["women's", "日本製"]}
GOAL = {"query": "sneaker", "product_category": "Clothing › Shoes › Sneakers", "title_nouns": ["sneaker"],
        "attributes": ["women’s", "日本製"], "goal_options": {}, "price_upper": 100.0}


def test_fuzzy_matching_keeps_non_ascii_text_under_paper_scoring():
    assert token_set_ratio("women’s fit", "women's fit", force_ascii=False) == 100
    assert token_set_ratio("women’s", "women's") == 77  # the released code: the ’ is dropped, "womens"
    assert token_set_ratio("日本製", "日本製") == 0 and token_set_ratio("日本製", "日本製", force_ascii=False) == 100
    paper, details = get_reward(PRODUCT, GOAL, 50.0, {}, "paper")
    compat, compat_details = get_reward(PRODUCT, GOAL, 50.0, {}, "paper_compat")
    assert details["attribute_matches"] == 2 and paper == 1.0
    assert compat_details["attribute_matches"] == 0 and compat == pytest.approx(1 / 3)
