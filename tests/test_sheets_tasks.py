"""GoogleSheets-v0's tasks over Drive copies, dates, named ranges, hidden rows and columns and
data validation: what the judge reads of each, near misses that fail, and the facades
(``copy_spreadsheet``, ``ValidationConditionType``) that keep the client out of reach."""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("gspread")
pytest.importorskip("gspread_dataframe")

import toolgym  # noqa: E402,F401

ADDED = ("drive", "dates", "named_ranges", "hidden", "data_validation")


@pytest.fixture(scope="module")
def env():
    return gym.make("GoogleSheets-v0").unwrapped


def task_of(env, template: str) -> str:
    return next(t for t in env.task_ids() if t.endswith("-" + template))


def run(env, task_id: str, program: str) -> dict:
    env.reset(options={"task_id": task_id})
    _, _, terminated, _, info = env.step(program)
    assert terminated
    return info


def test_each_added_category_has_tasks_of_two_ground_truth_forms(env):
    for category in ADDED:
        tasks = [env.tasks[t] for t in env.task_ids() if env.tasks[t].category == category]
        assert len(tasks) == 6, category
        assert all(len(t.programs) >= 2 for t in tasks), category
    assert len(env.task_ids()) == 111


def test_copy_task_reads_the_copy_and_the_original(env):
    task_id = task_of(env, "copy_edit")
    title = env.tasks[task_id].query.split("named '")[1].split("'")[0]
    solved = run(env, task_id, env.tasks[task_id].programs[0] + "\npass")
    assert solved["metrics"]["success"] == 1
    state = env.read_state(env.tasks[task_id].spreadsheet)
    assert list(state.values) == ["Sheet1", (title, "Sheet1")]
    assert state.values[(title, "Sheet1")].shape[1] == 3 and state.values["Sheet1"].shape[1] == 4
    # Deleting the column from the original instead, or copying under another name, fails.
    assert run(env, task_id, "worksheet.delete_columns(2)")["metrics"]["success"] == 0
    wrong_title = f"archive = copy_spreadsheet(sheet, 'Other')\narchive.sheet1.delete_columns(2)"
    assert run(env, task_id, wrong_title)["metrics"]["success"] == 0
    # The copy is undone with the episode: the next reset holds the original files only.
    env.reset(options={"task_id": task_id})
    assert list(env.read_state(env.tasks[task_id].spreadsheet).values) == ["Sheet1"]


def test_date_task_needs_the_date_format_under_paper_scoring(env):
    task_id = task_of(env, "date_cell")
    day = env.tasks[task_id].programs[0].split("['")[2].split("'")[0]  # yyyy-mm-dd
    typed = f"worksheet.update([['Last Updated'], ['{day}']], 'F1:F2', raw=False)\npass"
    assert run(env, task_id, typed)["metrics"]["success"] == 1
    # As RAW text the cell shows the same characters but is no date: values match, formats do not.
    text = run(env, task_id, f"worksheet.update([['Last Updated'], ['{day}']], 'F1:F2')")
    assert text["metrics"]["values_match"] == 1 and text["metrics"]["format_match"] == 0
    assert text["metrics"]["success"] == 0
    assert env.sheet_values()["Sheet1"][1][5] == day


def test_named_range_hidden_and_validation_near_misses_fail(env):
    named = task_of(env, "named_range")
    program = env.tasks[named].programs[0]
    assert run(env, named, program + "\npass")["metrics"]["success"] == 1
    assert run(env, named, program.replace("C2:", "C1:"))["metrics"]["format_match"] == 0
    hidden = task_of(env, "hide_column")
    assert run(env, hidden, "worksheet.hide_columns(2, 3)")["metrics"]["success"] == 0
    hidden_rows = task_of(env, "hide_rows")
    start, end = env.tasks[hidden_rows].programs[0].split("(")[1].rstrip(")").split(", ")
    assert run(env, hidden_rows, f"worksheet.hide_rows({start}, {int(end) - 1})")["metrics"]["success"] == 0
    validation = task_of(env, "validation_list")
    loose = env.tasks[validation].programs[0].replace("strict=True", "strict=False")
    assert run(env, validation, loose)["metrics"]["success"] == 0
    number = task_of(env, "validation_number")
    info = run(env, number, "worksheet.add_validation('D2:D3', ValidationConditionType.number_greater, ['0'], "
                            "strict=True, inputMessage='A positive number')")
    assert info["metrics"]["success"] == 0


def test_a_strict_rule_rejects_input_and_the_program_is_undone(env):
    task_id = task_of(env, "validation_number")
    info = run(env, task_id, env.tasks[task_id].programs[0] + "\nworksheet.update_acell('D2', -5)")
    assert "violates the cell's data validation rule" in info["error"] and info["metrics"]["executable"] == 0
    assert env.read_state(env.tasks[task_id].spreadsheet).formats["Sheet1"]["validation"] == {}


@pytest.mark.parametrize("program,message", [
    ("copy_spreadsheet(worksheet, 'x')", "copy_spreadsheet() takes a spreadsheet first, got Worksheet"),
    ("copy_spreadsheet(sheet, 5)", "the title must be a text of at most 1,000 characters"),
    ("x = ValidationConditionType.__class__", "'__class__' is not allowed"),
    ("x = ValidationConditionType.mro", "attribute access is only allowed on values with methods"),
    ("x = copy_spreadsheet", "copy_spreadsheet is a function; call it as copy_spreadsheet(...)"),
    ("x = sheet.client", "attribute access is only allowed on values with methods (found Attribute `sheet.client`)"),
    ("x = sheet.worksheets()[0].client", "attribute access is only allowed on values with methods"),
])
def test_facades_refuse_what_they_do_not_offer(env, program, message):
    info = run(env, task_of(env, "copy_edit"), program)
    assert message in info["error"], info["error"]
    assert list(env.read_state(env.tasks[env.task_id].spreadsheet).values) == ["Sheet1"]


def test_copies_are_priced_before_they_are_made():
    from toolgym.worlds.sheets.drive import FILE_WORK
    from toolgym.worlds.sheets.models import Spreadsheet
    from toolgym.worlds.sheets.world import SheetsWorld

    world = SheetsWorld()
    files = world.session.query(Spreadsheet).count()
    world.service.quota = 10
    world.service.work_left = FILE_WORK + 5  # less than a file and the 44 stored cells of the products table
    status, body, _ = world.drive.handle("POST", "/drive/v3/files/products/copy", {}, {"name": "Copy"})
    assert status == 429 and "copying this spreadsheet needs more work" in body["error"]["message"]
    assert world.session.query(Spreadsheet).count() == files and world.service.work_left == FILE_WORK + 5
    world.service.work_left = FILE_WORK + 100
    status, body, _ = world.drive.handle("POST", "/drive/v3/files/products/copy", {}, {"name": "Copy"})
    assert status == 200 and world.service.work_left == 56


def test_a_copy_keeps_the_named_ranges_on_its_own_sheets(env):
    task_id = task_of(env, "named_range")
    env.reset(options={"task_id": task_id})
    program = env.tasks[task_id].programs[0] + "\nnew = copy_spreadsheet(sheet, 'Copy')\nnames = new.list_named_ranges()"
    env.step(program)
    names = env.interpreter.variables["names"]
    copy_sheet = env.interpreter.variables["new"].sheet1.id
    original = env.interpreter.variables["sheet"].list_named_ranges()
    assert [n["name"] for n in names] == [n["name"] for n in original] and len(names) == 1
    assert names[0]["range"] == {**original[0]["range"], "sheetId": copy_sheet} != original[0]["range"]


def test_a_program_copying_in_a_loop_is_stopped_in_time_and_undone(env):
    import time

    task_id = task_of(env, "copy_edit")
    env.reset(options={"task_id": task_id})
    before = env.world.state_hash()
    began = time.process_time()  # this process's CPU time: a busy machine stretches only the wall clock
    info = run(env, task_id, "for i in range(300):\n    copy_spreadsheet(sheet, 'c')")
    assert time.process_time() - began < 5  # about 0.5 s: each copy is priced (drive.FILE_WORK)
    assert "copying this spreadsheet needs more work" in info["error"] and env.world.state_hash() == before
    # A program that makes more files than the ground truth is judged without reading them.
    env.reset(options={"task_id": task_id})
    program = env.tasks[task_id].programs[0] + "\nfor i in range(3):\n    copy_spreadsheet(sheet, 'extra')"
    _, _, _, _, info = env.step(program)
    assert info["metrics"]["executable"] == 1 and info["metrics"]["success"] == 0
