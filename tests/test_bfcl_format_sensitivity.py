"""BFCL's format_sensitivity category: the 26 prompt configurations, sent and decoded as BFCL does.

The prompts are checked against digests made with BFCL's own ``system_prompt_pre_processing_chat_model``
(``tests/data/bfcl_protocol/make_format_digests.py``); the decoder against what bfcl-eval 2026.3.23's
``default_decode_ast_prompting`` returned for the same answers (``error``: it raised).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.bfcl import formats, protocol
from toolgym.envs.bfcl.leaderboard import format_sensitivity_stats
from toolgym.eval.export import export_records
from toolgym.eval.rescore import rescore
from toolgym.eval.runner import evaluate

DIGESTS = json.loads((Path(__file__).parent / "data" / "bfcl_protocol" / "format_digests.json").read_text())["configs"]

# answers and what BFCL's decoder gave for them ("error": it raised)
BFCL_DECODED = [(c["answer"], c["return_format"], c["tool_call_tag"], c["bfcl"]) for c in json.loads(
    (Path(__file__).parent / "data" / "bfcl_protocol" / "format_decoded.json").read_text())["cases"]]


@pytest.fixture
def bfcl_data(official_data):
    if not (official_data / "bfcl" / "BFCL_v4_format_sensitivity.json").exists():
        pytest.skip("no BFCL data under the official data folder")
    return official_data / "bfcl"


def _config(return_format: str, tag: bool) -> str:
    return f"ret_fmt={return_format}&tool_call_tag={tag}&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"


def test_the_configurations_are_bfcls():
    assert len(formats.CONFIGS) == 26 == len(set(formats.CONFIGS))
    assert formats.CONFIGS[0] == \
        "ret_fmt=python&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=plaintext&style=classic"
    assert formats.CONFIGS[-1] == \
        "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental"
    assert set(DIGESTS) == set(formats.CONFIGS)
    assert formats.parse_config(formats.CONFIGS[13]) == formats.Variation("verbose_xml", True, "xml", "plaintext",
                                                                          "classic")
    for bad in ("ret_fmt=yaml&tool_call_tag=True&func_doc_fmt=xml&prompt_fmt=plaintext&style=classic",
                formats.CONFIGS[0] + "&x=1", formats.CONFIGS[0].replace("&", ";"), ""):
        with pytest.raises(ValueError, match="Invalid query format"):
            formats.parse_config(bad)


@pytest.mark.parametrize("text, return_format, tag, expected", BFCL_DECODED)
def test_answers_decode_as_bfcls_decoder_reads_them(text, return_format, tag, expected):
    if expected == "error":
        with pytest.raises(formats.FormatDecodeError):
            formats.decode(text, _config(return_format, tag), compat=True)
    else:
        assert json.loads(json.dumps(formats.decode(text, _config(return_format, tag), compat=True))) == expected


def test_paper_reads_a_json_list_of_objects_among_the_arguments():
    text = '[{"function": "f", "parameters": {"c": [{"k": 1}, {"k": 2}], "d": 3}}]'
    assert formats.decode(text, _config("json", False), compat=True) == []
    assert formats.decode(text, _config("json", False)) == [{"f": {"c": [{"k": 1}, {"k": 2}], "d": 3}}]


def test_the_xml_reader_is_bounded_and_reads_no_entities():
    config = _config("concise_xml", False)
    bomb = ('<!DOCTYPE functions [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
            '<functions><function name="f"><param name="x">&b;</param></function></functions>')
    with pytest.raises(formats.FormatDecodeError, match="undefined entity"):  # the span starts at <functions>
        formats.decode(bomb, config)
    with pytest.raises(formats.FormatDecodeError, match="declarations"):
        formats.read_xml('<!DOCTYPE f [<!ENTITY a "x">]><f>&a;</f>')
    with pytest.raises(formats.FormatDecodeError, match="nested deeper"):
        formats.read_xml("<a>" * 5000 + "</a>" * 5000)
    with pytest.raises(formats.FormatDecodeError, match="undefined entity"):
        formats.read_xml("<a>&nope;</a>")
    assert formats.read_xml('<a k="1&#10;2\t3">x<b/>tail</a>').attrib == {"k": "1\n2 3"}


def test_every_prompt_is_the_one_bfcl_sends(bfcl_data):
    """All 5,200 entries: the prompting first-turn messages equal BFCL's (digests per configuration)."""
    env = gym.make("BFCL-v0", tasks="official", category="format_sensitivity", data_dir=str(bfcl_data)).unwrapped
    by_config: dict[str, dict] = {}
    for task_id in env.task_ids():
        _, info = env.reset(options={"task_id": task_id})
        messages = protocol.Conversation(False, "chat").messages(info, [])
        by_config.setdefault(task_id.split(":")[1], {})[task_id] = \
            hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    assert len(by_config) == 26
    for config, items in by_config.items():
        assert len(items) == DIGESTS[config]["items"] == 200
        assert hashlib.sha256(json.dumps(sorted(items.items()), sort_keys=True).encode()).hexdigest() == \
            DIGESTS[config]["digest"], config


def test_ids_and_the_sent_prompt_of_a_configuration(bfcl_data):
    env = gym.make("BFCL-v0", tasks="official", category="format_sensitivity", data_dir=str(bfcl_data)).unwrapped
    ids = env.task_ids()
    assert len(ids) == 5200
    assert ids[0] == f"format_sensitivity_0:{formats.CONFIGS[0]}:simple_python_19"
    assert ids[27] == f"format_sensitivity_27:{formats.CONFIGS[1]}:simple_python_25"
    _, info = env.reset(options={"task_id": ids[13]})  # verbose XML, tagged, XML docs
    assert info["prompt_variation"] == formats.CONFIGS[13]
    prompt = protocol.Conversation(False, "chat").messages(info, [])[0]["content"]
    assert prompt.startswith("You are an expert in composing functions.You are given a question")
    assert "you MUST put it in the format of <TOOLCALL><functions><function name=\"func_name1\"><params>" in prompt
    assert "</TOOLCALL>. The type fields of the parameters in your function calls must be one of: string" in prompt
    assert "Here is a list of functions in xml format that you can invoke.\n<function name=\"" in prompt
    assert prompt.count("Note that the provided function is in Python 3 syntax.") == 2 * len(info["functions"])


def _oracle_scores(env) -> tuple[Counter, Counter, list]:
    totals, correct, failed = Counter(), Counter(), []
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(env.oracle_action())
        assert terminated
        config = task_id.split(":")[1]
        totals[config] += 1
        correct[config] += reward
        if reward != 1:
            failed.append(task_id)
    return totals, correct, failed


@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
def test_the_oracle_scores_every_configuration_of_the_built_in_tasks(scoring):
    env = gym.make("BFCL-v0", category="format_sensitivity", scoring=scoring).unwrapped
    totals, correct, failed = _oracle_scores(env)
    assert len(totals) == 26 and set(totals.values()) == {24} and not failed


def test_the_oracle_scores_every_official_configuration(bfcl_data):
    paper = gym.make("BFCL-v0", tasks="official", category="format_sensitivity", data_dir=str(bfcl_data)).unwrapped
    totals, correct, failed = _oracle_scores(paper)
    assert sum(totals.values()) == 5200 and not failed
    compat = gym.make("BFCL-v0", tasks="official", category="format_sensitivity", data_dir=str(bfcl_data),
                      scoring="paper_compat").unwrapped
    _, correct, failed = _oracle_scores(compat)
    # BFCL's JSON pattern stops at the first "}]": its own ground truth of simple_python_96 (a list of
    # condition objects) reads as no call in each of the six JSON configurations
    assert [t.rsplit(":", 1)[1] for t in failed] == ["simple_python_96"] * 6
    assert {t.split(":")[1] for t in failed} == {c for c in formats.CONFIGS if c.startswith("ret_fmt=json")}


def test_answers_in_each_format_are_graded():
    env = gym.make("BFCL-v0", category="format_sensitivity").unwrapped
    task_id = next(t for t in env.task_ids() if t.startswith("format_sensitivity_") and ":ret_fmt=concise_xml" in t
                   and "tool_call_tag=False" in t)
    env.reset(options={"task_id": task_id})
    right = env.oracle_action()
    assert right.startswith("<functions><function name=")
    _, reward, *_ , info = env.step(right)
    assert reward == 1 and info["metrics"]["success"] == 1
    env.reset(options={"task_id": task_id})
    _, reward, *_ , info = env.step("[" + right.split("name=\"")[1].split("\"")[0] + "()]")  # python, not XML
    assert reward == 0 and info["metrics"]["error_type"] == "ast_decoder:decoder_failed"
    env.reset(options={"task_id": task_id})
    _, reward, *_ , info = env.step("<functions></functions>")  # no call: BFCL's checker counts the calls
    assert reward == 0 and info["metrics"]["error_type"].endswith(":wrong_count")


def test_the_function_calling_profiles_refuse_it():
    env = gym.make("BFCL-v0", category="format_sensitivity").unwrapped
    _, info = env.reset(options={"task_id": env.task_ids()[0]})
    for api in ("chat", "responses"):
        with pytest.raises(ValueError, match="only supported for prompting"):
            protocol.Conversation(True, api).tools(info)
        with pytest.raises(ValueError, match="only supported for prompting"):
            protocol.Conversation(True, api).messages(info, [])
    assert protocol.Conversation(False, "responses").messages(info, [])[0]["role"] == "developer"


def _record(config: str, n: int, success: bool, error: str | None = None) -> dict:
    return {"env": "BFCL-v0", "split": "format_sensitivity",
            "task_id": f"format_sensitivity_{n}:{config}:simple_python_0",
            "metrics": {"success": int(success)}, "error": error}


def test_format_sensitivity_stats_are_computed_as_bfcls_runner_computes_them():
    a, b, c = formats.CONFIGS[:3]
    records = ([_record(a, n, n < 3) for n in range(4)] + [_record(b, 4 + n, n < 1) for n in range(4)]
               + [_record(c, 8 + n, True, error="timeout" if n > 1 else None) for n in range(4)]
               + [{"env": "BFCL-v0", "split": "simple_python", "task_id": "simple_python_0",
                   "metrics": {"success": 1}}])
    stats = format_sensitivity_stats(records)
    assert stats == {"accuracy_max_delta": 50.0, "accuracy_variance": 625.0, "accuracy_std": 25.0,
                     a: {"accuracy": 0.75, "correct_count": 3, "total_count": 4},
                     b: {"accuracy": 0.25, "correct_count": 1, "total_count": 4},
                     c: {"accuracy": 0.5, "correct_count": 2, "total_count": 4}}
    assert format_sensitivity_stats(records[:4])["accuracy_std"] == 0.0  # one configuration
    assert format_sensitivity_stats(records[-1:]) is None


def test_export_writes_bfcls_format_sensitivity_files(bfcl_data, tmp_path):
    records, _ = evaluate("BFCL-v0", "oracle", {"tasks": "official", "category": "format_sensitivity",
                                                "data_dir": str(bfcl_data), "scoring": "paper_compat"},
                          episodes=52, progress=False)
    out = tmp_path / "bfcl"
    message = export_records(records, "bfcl", out, data_dir=str(bfcl_data), bfcl_model="gpt-4o-2024-11-20")
    assert "bfcl evaluate --model gpt-4o-2024-11-20 --test-category format_sensitivity" in message
    folder = "gpt-4o-2024-11-20/format_sensitivity"
    lines = [json.loads(line) for line in (out / "result" / folder / "BFCL_v4_format_sensitivity_result.json").open()]
    assert lines[0] == {"id": f"format_sensitivity_0:{formats.CONFIGS[0]}:simple_python_19",
                        "result": "<TOOLCALL>[math.gcd(num1=40, num2=50)]</TOOLCALL>"}
    assert lines[13]["result"].startswith('<TOOLCALL><functions><function name="math.gcd"><params>')
    header = json.loads((out / "score" / folder / "BFCL_v4_format_sensitivity_score.json").read_text().splitlines()[0])
    assert header["accuracy"] == 1.0 and header["accuracy_max_delta"] == header["accuracy_std"] == 0.0
    assert [k for k in header if k.startswith("ret_fmt")] == list(formats.CONFIGS)
    assert header[formats.CONFIGS[5]] == {"accuracy": 1.0, "correct_count": 2, "total_count": 2}
    rescored, _ = rescore(out, "bfcl", data_dir=str(bfcl_data))
    assert len(rescored) == 52 and {r["rescore"]["verdict"] for r in rescored} == {"agree"}
    message = export_records(records, "bfcl", tmp_path / "fc")  # an FC model: BFCL does not run the category
    assert "not exported: format_sensitivity" in message
