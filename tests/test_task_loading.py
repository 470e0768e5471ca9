"""The task-loading rule: where official data is found, what a bad folder or file says, and
where the task generators live."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json, read_jsonl, require_key
from toolgym.eval.cli import main as cli_main

OFFICIAL_ENVS = ["ToolTalk-v0", "AppBench-v0", "OpenWeather-v0", "CatAPI-v0", "HomeSearch-v0", "TripBooking-v0"]
ALL_ENVS = [*OFFICIAL_ENVS, "Tabletop-v0"]


# -- the rule, on synthetic folders ------------------------------------------------------------
LAYOUT = OfficialLayout(name="Bench", benchmark="bench", expected=("db/*.json",),
                        split_expected={"easy": ("easy/*.json",), "hard": ("bench/*.json",)})
TASK_LAYOUT = OfficialLayout(name="Suite task", benchmark="suite", task="task_a", expected=("test.jsonl",))


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")
    return path


def test_layout_finds_the_folder_with_the_expected_files_from_root_or_itself(tmp_path):
    for name in ("db/a.json", "easy/x.json", "bench/y.json"):
        touch(tmp_path / "bench" / name)
    own = tmp_path / "bench"
    assert LAYOUT.locate("B-v0", tmp_path) == own
    # The benchmark's own folder holds a subfolder with the benchmark's name (ToolTalk's hard
    # split): the files, not the name, decide, so the folder itself is taken.
    assert LAYOUT.locate("B-v0", own) == own
    assert LAYOUT.locate("B-v0", str(own), split="easy") == own


def test_layout_of_a_task_folder_accepts_root_benchmark_and_task_folders(tmp_path):
    touch(tmp_path / "suite" / "task_a" / "test.jsonl")
    task_folder = tmp_path / "suite" / "task_a"
    for data_dir in (tmp_path, tmp_path / "suite", task_folder):
        assert TASK_LAYOUT.locate("T-v0", data_dir) == task_folder


def test_layout_error_names_every_folder_tried_and_what_it_lacks(tmp_path):
    touch(tmp_path / "bench" / "easy" / "x.json")  # no db/, no hard split
    with pytest.raises(FileNotFoundError) as error:
        LAYOUT.locate("B-v0", tmp_path)
    message = str(error.value)
    assert f"{tmp_path}: no db/*.json, easy/*.json, bench/*.json" in message
    assert f"{tmp_path / 'bench'}: no db/*.json, bench/*.json" in message
    assert "Expected one folder with db/*.json, easy/*.json, bench/*.json" in message
    assert message.startswith(f"B-v0: no official Bench data in data_dir={str(tmp_path)!r}")


def test_layout_without_data_dir_reads_toolgym_data(tmp_path, monkeypatch):
    touch(tmp_path / "suite" / "task_a" / "test.jsonl")
    monkeypatch.setenv("TOOLGYM_DATA", str(tmp_path))
    assert TASK_LAYOUT.locate("T-v0", None) == tmp_path / "suite" / "task_a"
    monkeypatch.setenv("TOOLGYM_DATA", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=r"in \$TOOLGYM_DATA="):
        TASK_LAYOUT.locate("T-v0", None)
    monkeypatch.delenv("TOOLGYM_DATA")
    with pytest.raises(ValueError, match="needs the official data: pass data_dir"):
        TASK_LAYOUT.locate("T-v0", None)


def test_layout_counts_tasks_per_split(tmp_path):
    LAYOUT.check_not_empty("B-v0", tmp_path, 3, "easy")
    with pytest.raises(OfficialDataError, match=r"B-v0: the official Bench data in .* has no tasks of split "
                                                r"'hard' \(read db/\*\.json, bench/\*\.json\)"):
        LAYOUT.check_not_empty("B-v0", tmp_path, 0, "hard")


def test_read_json_and_jsonl_name_the_file_and_line(tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('[\n  {"a": 1},\n  {"a": 2,,}\n]\n', encoding="utf-8")
    with pytest.raises(OfficialDataError, match=rf"^{bad_json}:3: invalid JSON"):
        read_json(bad_json)
    bad_jsonl = tmp_path / "bad.jsonl"
    bad_jsonl.write_text('{"a": 1}\n\n{"a": 2\n', encoding="utf-8")
    with pytest.raises(OfficialDataError, match=rf"^{bad_jsonl}:3: invalid JSON"):
        read_jsonl(bad_jsonl)
    good = tmp_path / "good.jsonl"
    good.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    assert read_jsonl(good) == [(1, {"a": 1}), (3, {"a": 2})]
    with pytest.raises(OfficialDataError, match=r"^f:2: missing key 'b'$"):
        require_key({"a": 1}, "b", "f:2")
    with pytest.raises(OfficialDataError, match=r"^f:2: expected a JSON object with key 'b', got list$"):
        require_key([], "b", "f:2")


# -- data_dir needs tasks='official' -----------------------------------------------------------
@pytest.mark.parametrize("env_id", ALL_ENVS)
def test_data_dir_without_official_tasks_is_refused(env_id, tmp_path):
    with pytest.raises(ValueError, match=rf"{env_id}: data_dir is only read with tasks='official'"):
        gym.make(env_id, data_dir=str(tmp_path))


def test_toolgym_data_in_the_environment_leaves_builtin_runs_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_DATA", str(tmp_path / "nowhere"))
    env = gym.make("OpenWeather-v0").unwrapped
    assert env.task_set == "built-in" and len(env.task_ids()) == 108


def test_cli_data_dir_without_tasks_official_exits_with_the_reason(tmp_path, capsys):
    assert cli_main(["eval", "CatAPI-v0", "--agent", "oracle", "--no-progress", "--data-dir", str(tmp_path)]) == 2
    assert "data_dir is only read with tasks='official'" in capsys.readouterr().err


# -- the real data, from every folder a user may name -----------------------------------------
LOCATIONS = [
    ("ToolTalk-v0", "", None, 78), ("ToolTalk-v0", "tooltalk", None, 78), ("ToolTalk-v0", "tooltalk", "hard", 50),
    ("AppBench-v0", "", None, 801), ("AppBench-v0", "appbench", "ss", 200),
    ("OpenWeather-v0", "", None, 100), ("OpenWeather-v0", "sambanova", None, 100),
    ("OpenWeather-v0", "sambanova/open_weather", None, 100),
    ("CatAPI-v0", "sambanova", None, 100), ("CatAPI-v0", "sambanova/the_cat_api", None, 100),
    ("HomeSearch-v0", "", None, 100), ("HomeSearch-v0", "sambanova", None, 100),
    ("HomeSearch-v0", "sambanova/home_search", None, 100),
    ("TripBooking-v0", "sambanova", None, 120), ("TripBooking-v0", "sambanova/booking", None, 120),
]


@pytest.mark.official
@pytest.mark.parametrize(("env_id", "folder", "split", "count"), LOCATIONS)
def test_official_data_loads_from_the_root_and_the_benchmark_folder(official_data, env_id, folder, split, count):
    env = gym.make(env_id, tasks="official", split=split, data_dir=str(official_data / folder)).unwrapped
    assert len(env.task_ids()) == count


@pytest.mark.official
def test_a_same_named_subfolder_without_the_files_is_an_error_not_an_empty_run(official_data, tmp_path):
    # data_dir/tooltalk exists but is only ToolTalk's hard split: the old resolver ran nothing.
    (tmp_path / "tooltalk").symlink_to(official_data / "tooltalk" / "tooltalk")
    with pytest.raises(FileNotFoundError) as error:
        gym.make("ToolTalk-v0", tasks="official", data_dir=str(tmp_path))
    message = str(error.value)
    assert f"{tmp_path}: no databases/*.json, easy/*.json\n" in message  # its tooltalk/ has *.json
    assert f"{tmp_path / 'tooltalk'}: no databases/*.json, easy/*.json, tooltalk/*.json" in message


@pytest.mark.parametrize("env_id", OFFICIAL_ENVS)
def test_a_folder_without_the_files_is_an_error_at_make(env_id, tmp_path):
    with pytest.raises(FileNotFoundError, match=rf"{env_id}: no official .* data in data_dir=.*Tried:\n  {tmp_path}: no "):
        gym.make(env_id, tasks="official", data_dir=str(tmp_path))


# -- empty and corrupt files -------------------------------------------------------------------
def write_jsonl(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("env_id,task", [("OpenWeather-v0", "open_weather"), ("CatAPI-v0", "the_cat_api"),
                                         ("HomeSearch-v0", "home_search"), ("TripBooking-v0", "booking")])
def test_toolbench_files_empty_corrupt_or_missing_a_key(env_id, task, tmp_path):
    file = write_jsonl(tmp_path / "sambanova" / task / "test.jsonl", ["", "  "])
    with pytest.raises(OfficialDataError, match=rf"{env_id}: the official ToolBench {task} data in .* has no tasks"):
        gym.make(env_id, tasks="official", data_dir=str(tmp_path))
    good = json.dumps({"prompt": "p", "completion": ["curl 'https://x'"]})
    write_jsonl(file, [good, good, '{"prompt": "p", "completion": [}'])
    with pytest.raises(OfficialDataError, match=rf"^{file}:3: invalid JSON"):
        gym.make(env_id, tasks="official", data_dir=str(tmp_path))
    write_jsonl(file, [good, json.dumps({"prompt": "p"})])
    with pytest.raises(OfficialDataError, match=rf"^{file}:2: missing key 'completion'$"):
        gym.make(env_id, tasks="official", data_dir=str(tmp_path / "sambanova"))


def test_appbench_files_empty_corrupt_or_missing_a_key(tmp_path):
    folder = tmp_path / "appbench"
    folder.mkdir()
    file = folder / "test_ss.json"
    file.write_text("[]", encoding="utf-8")
    with pytest.raises(OfficialDataError, match=r"has no tasks of split 'ss' \(read test_ss.json\)"):
        gym.make("AppBench-v0", tasks="official", split="ss", data_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"no test_sm.json, test_ms.json, test_mm.json"):
        gym.make("AppBench-v0", tasks="official", data_dir=str(folder))
    sample = {"input": "Find a restaurant in Paris.", "output": {"used_app": ["Restaurants"], "api_results": [
        "restaurant_name = findrestaurants(#city='Paris')"]}}
    file.write_text(json.dumps([sample, {"input": "x"}], indent=1), encoding="utf-8")
    with pytest.raises(OfficialDataError, match=rf"^{file}: sample 1: missing key 'output'$"):
        gym.make("AppBench-v0", tasks="official", split="ss", data_dir=str(folder))
    file.write_text('[\n {"input": "x"\n]', encoding="utf-8")
    with pytest.raises(OfficialDataError, match=rf"^{file}:3: invalid JSON"):
        gym.make("AppBench-v0", tasks="official", split="ss", data_dir=str(folder))


@pytest.mark.official
def test_tooltalk_files_corrupt_or_missing_a_key(official_data, tmp_path):
    root = tmp_path / "tooltalk"
    (root / "databases").mkdir(parents=True)
    for database in (official_data / "tooltalk" / "databases").glob("*.json"):
        (root / "databases" / database.name).symlink_to(database)
    (root / "tooltalk").symlink_to(official_data / "tooltalk" / "tooltalk")
    easy = root / "easy"
    easy.mkdir()
    conversation = read_json(official_data / "tooltalk" / "easy" / "AddAlarm-easy.json")
    broken = {k: v for k, v in conversation.items() if k != "metadata"}
    (easy / "AddAlarm-easy.json").write_text(json.dumps(broken, indent=2), encoding="utf-8")
    with pytest.raises(OfficialDataError, match=rf"^{easy / 'AddAlarm-easy.json'}: missing key 'metadata'$"):
        gym.make("ToolTalk-v0", tasks="official", data_dir=str(root))
    del conversation["conversation"][1]["apis"][0]["request"]["api_name"]
    (easy / "AddAlarm-easy.json").write_text(json.dumps(conversation, indent=2), encoding="utf-8")
    with pytest.raises(OfficialDataError, match=r"AddAlarm-easy.json: conversation\[1\].apis\[0\].request: "
                                                r"missing key 'api_name'$"):
        gym.make("ToolTalk-v0", tasks="official", data_dir=str(tmp_path))
    (easy / "AddAlarm-easy.json").write_text('{\n "name": "AddAlarm-easy",\n "user": \n}', encoding="utf-8")
    with pytest.raises(OfficialDataError, match=r"AddAlarm-easy.json:4: invalid JSON"):
        gym.make("ToolTalk-v0", tasks="official", data_dir=str(root))
    (easy / "AddAlarm-easy.json").write_text(json.dumps(read_json(official_data / "tooltalk" / "easy" /
                                                                  "AddAlarm-easy.json")), encoding="utf-8")
    (root / "databases" / "Alarm.json").unlink()
    (root / "databases" / "Alarm.json").write_text(json.dumps({"justinkool": {"a": {"time": "16:23:00"}}}),
                                                   encoding="utf-8")
    with pytest.raises(OfficialDataError, match=r"databases/Alarm.json: a record lacks key 'alarm_id'$"):
        gym.make("ToolTalk-v0", tasks="official", data_dir=str(root))


# -- the layout of the code --------------------------------------------------------------------
def test_task_generators_live_with_their_worlds_and_import_no_env_module():
    modules = ["toolgym.worlds.tooltalk.tasks", "toolgym.worlds.appbench.tasks", "toolgym.worlds.openweather.tasks",
               "toolgym.worlds.catapi.tasks", "toolgym.worlds.homesearch.tasks", "toolgym.worlds.tripbooking.tasks",
               "toolgym.worlds.tabletop.tasks", "toolgym.worlds.rest.tasks", "toolgym.worlds.demos"]
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "print(sorted(m for m in sys.modules if m.startswith('toolgym.envs')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.timeout(60)  # a reader that waits on the FIFO fails here instead of hanging the suite
@pytest.mark.parametrize("make", ["fifo", "dev-zero"])
def test_a_task_or_question_file_that_is_a_fifo_or_device_is_refused_at_once(tmp_path, make):
    from toolgym.envs.bfcl.tasks import load_single_turn
    from toolgym.envs.taubench.tasks import parse_task_file

    for path in (tmp_path / "tasks_test.py", tmp_path / "BFCL_v4_simple_python.json"):
        os.mkfifo(path) if make == "fifo" else path.symlink_to("/dev/zero")
    with pytest.raises(OfficialDataError, match="not a regular file"):
        parse_task_file(tmp_path / "tasks_test.py")
    with pytest.raises(OfficialDataError, match="not a regular file"):
        load_single_turn(tmp_path, "simple_python")


@pytest.mark.parametrize("expression", ["not " * 100_000 + "1", "-" * 100_000 + "1", "lambda: " * 50_000 + "1",
                                        "1 if 1 else " * 50_000 + "1", "a" + ".b" * 100_000],
                         ids=["not", "unary", "lambda", "conditional", "attributes"])
def test_a_deeply_chained_task_file_is_one_error(tmp_path, expression):
    from toolgym.envs.taubench.tasks import parse_task_file

    path = tmp_path / "tasks_test.py"
    path.write_text(f'TASKS = [Task(user_id="u", instruction="i", actions=[], outputs=[{expression}])]\n')
    with pytest.raises(OfficialDataError, match=r"tasks_test.py:1: an expression nested deeper than 100 levels"):
        parse_task_file(path)


def test_a_100000_deep_line_in_bfcl_multi_turn_and_memory_files_is_one_error(tmp_path):
    from toolgym.envs.bfcl.memory import load_memory_tasks
    from toolgym.envs.bfcl.multi_turn import load_multi_turn_tasks

    deep = "[" * 100_000 + "]" * 100_000 + "\n"
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "multi_turn_func_doc").mkdir()
    (tmp_path / "possible_answer" / "BFCL_v4_multi_turn_base.json").write_text("")
    (tmp_path / "BFCL_v4_multi_turn_base.json").write_text(deep)
    with pytest.raises(OfficialDataError, match=r"BFCL_v4_multi_turn_base.json:1: nested deeper than 400 levels"):
        load_multi_turn_tasks(tmp_path, "multi_turn_base")
    (tmp_path / "multi_turn_func_doc" / "memory_kv.json").write_text(deep)
    with pytest.raises(OfficialDataError, match=r"memory_kv.json:1: nested deeper than 400 levels"):
        load_memory_tasks(tmp_path, "memory_kv")


_PEAK_GROWTH = """
import resource, sys
from pathlib import Path
from toolgym.envs.taubench.tasks import parse_task_file
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(parse_task_file(Path(sys.argv[1]))), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_a_dense_4_mib_task_file_costs_less_than_20_times_its_size(tmp_path):
    call = f'Task(user_id="u", instruction="i", actions=[], outputs=[{"1," * 6000}]),\n'
    path = tmp_path / "tasks_test.py"
    path.write_text("TASKS = [\n" + call * ((4 * 2**20 - 100) // len(call)) + "]\n")
    done = subprocess.run([sys.executable, "-c", _PEAK_GROWTH, str(path)], capture_output=True, text=True,
                          timeout=600, check=True)
    tasks, grown_kib = map(int, done.stdout.split())
    assert tasks == 347 and grown_kib * 1024 < 20 * path.stat().st_size  # whole-file ast.parse: some 500 times


@pytest.mark.timeout(120)  # a reader that waits on the FIFO fails here instead of hanging the suite
@pytest.mark.parametrize("make", ["fifo", "dev-zero"])
def test_eval_on_a_fifo_or_device_task_file_is_one_error_line(official_data, tmp_path, capsys, make):
    from toolgym.envs.taubench.tasks import FOLDER

    released = official_data / "tau2bench" / FOLDER / "airline"
    folder = tmp_path / "tau2bench" / FOLDER / "airline"
    (folder / "data").mkdir(parents=True)
    (folder / "wiki.md").symlink_to(released / "wiki.md")
    for table in ("flights", "reservations", "users"):
        (folder / "data" / f"{table}.json").symlink_to(released / "data" / f"{table}.json")
    tasks = folder / "tasks_test.py"
    os.mkfifo(tasks) if make == "fifo" else tasks.symlink_to("/dev/zero")
    assert cli_main(["eval", "TauBench-v0", "--agent", "oracle", "--tasks", "official", "--data-dir", str(tmp_path),
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"toolgym: error: TauBench-v0: {tasks}: not a regular file (a {'FIFO' if make == 'fifo' else 'character device'}" \
                  f"); a τ-bench task file is a plain file\n"


def test_a_task_file_cut_short_is_one_error(tmp_path):
    from toolgym.envs.taubench.tasks import parse_task_file

    path = tmp_path / "tasks_test.py"
    path.write_text('TASKS = [\n    Task(user_id="u", instruction="i", actions=[]),\n    Task(user_id="v",\n')
    with pytest.raises(OfficialDataError, match=r"tasks_test.py:4: a bracket is never closed"):
        parse_task_file(path)
    path.write_text('TASKS = [\n    Task(user_id="u", instruction="i\n')
    with pytest.raises(OfficialDataError, match=r"tasks_test.py:2: a string that does not end"):
        parse_task_file(path)
