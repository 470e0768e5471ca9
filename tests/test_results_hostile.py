"""Results files are untrusted input: ``report`` and ``eval --resume`` end a hostile file with
one line, ``toolgym: error: FILE:LINE: ...``, never a traceback, and ``report`` never makes an
env that reads or writes a path the file names (unless ``--trust-env-kwargs``)."""

from __future__ import annotations

import json

import pytest

from toolgym.eval.cli import main
from toolgym.registry import untrusted_env_args

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def good_record(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("good") / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "2", "--no-progress",
                 "--out", str(out)]) == 0
    return json.loads(out.read_text().splitlines()[0])


def changed(record: dict, **fields) -> str:
    return json.dumps({**record, **fields})


def without_metric(record: dict, key: str) -> str:
    metrics = dict(record["metrics"])
    del metrics[key]
    return json.dumps({**record, "metrics": metrics})


# (the bad line, given the good record; what the error says after "FILE:2: ")
HOSTILE = {
    "100000-deep": (lambda r: "[" * 100_000 + "]" * 100_000, "nested deeper than 400 levels; not an episode record"),
    # written as text: json.dumps itself recurses once a level, past the limit under pytest's stack
    "950-deep trajectory": (lambda r: changed(r, trajectory=None).replace('"trajectory": null',
                                                                          '"trajectory": ' + "[" * 950 + "]" * 950),
                            "nested deeper than 400 levels; not an episode record"),
    "metrics a list": (lambda r: changed(r, metrics=[1, 2]), "metrics: Input should be a valid dictionary (got [1, 2])"),
    "metrics a string": (lambda r: changed(r, metrics="1"), 'metrics: Input should be a valid dictionary (got "1")'),
    "metric not a number": (lambda r: changed(r, metrics={**r["metrics"], "success": "yes"}),
                            "metrics.success must be a number for OpenWeather-v0's table (got \"yes\")"),
    "metric a dict": (lambda r: changed(r, metrics={**r["metrics"], "success": {"a": 1}}),
                      "metrics.success must be a number for OpenWeather-v0's table (got {\"a\": 1})"),
    "metric a nested dict": (lambda r: changed(r, metrics={**r["metrics"], "detail": {"a": {"b": 1}}}),
                             "metrics.detail: Input should be a valid boolean (got {\"a\": {\"b\": 1}})"),
    "metric missing": (lambda r: without_metric(r, "success"),
                       "metrics has no 'success', which OpenWeather-v0's table averages"),
    "task_id a list": (lambda r: changed(r, task_id=["a"]), 'task_id: Input should be a valid string (got ["a"])'),
    "task_id a number": (lambda r: changed(r, task_id=3), "task_id: Input should be a valid string (got 3)"),
    "env a number": (lambda r: changed(r, env=3), "env: Input should be a valid string (got 3)"),
    "env unknown": (lambda r: changed(r, env="Nope-v0"), "unknown env id 'Nope-v0'; known: ToolTalk-v0"),
    "env_kwargs a string": (lambda r: changed(r, env_kwargs="x"),
                            'env_kwargs: Input should be a valid dictionary (got "x")'),
    "env_kwargs nested": (lambda r: changed(r, env_kwargs={"k_shot": {"a": [1]}}), "env_kwargs.k_shot: Input should be"),
    "error a list": (lambda r: changed(r, error=[1]), "error: Input should be a valid string (got [1])"),
    "seed a string": (lambda r: changed(r, seed="0"), 'seed: Input should be a valid integer (got "0")'),
    "trajectory a dict": (lambda r: changed(r, trajectory={}), "trajectory: Input should be a valid list"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize("command", ["report", "resume"])
def test_a_hostile_results_line_is_a_one_line_error(good_record, tmp_path, capsys, case, command):
    make_line, says = HOSTILE[case]
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(good_record) + "\n" + make_line(good_record) + "\n" + json.dumps(good_record) + "\n")
    before = out.read_bytes()
    if command == "report":
        code = main(["report", str(out)])
    else:
        code = main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "2", "--no-progress",
                     "--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"toolgym: error: {out}:2: {says}"), err
    assert out.read_bytes() == before  # a refused file is left as it was
    # the same command goes on with a good file
    out.write_text(json.dumps(good_record) + "\n")
    assert main(["report", str(out)]) == 0


def test_report_makes_no_env_from_a_path_in_the_file(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "ToolTalk-v0", "--env-kwarg", "text_similarity=lexical", "--agent", "oracle", "--episodes",
                 "1", "--no-progress", "--out", str(out)]) == 0
    target = tmp_path / "elsewhere" / "made.db"
    target.parent.mkdir()
    record = json.loads(out.read_text())
    out.write_text(changed(record, env_kwargs={**record["env_kwargs"], "db_url": f"sqlite:///{target}"}) + "\n")
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"toolgym: error: {out}:1: env_kwargs names a path (db_url); a results file may come from anyone, so "
        "report does not make an env that reads or writes where it says: pass --trust-env-kwargs if you trust "
        "this file\n")
    assert list(target.parent.iterdir()) == []
    assert main(["report", str(out), "--trust-env-kwargs"]) == 0  # the owner of the file may
    assert target.is_file()


@pytest.mark.parametrize("kwargs, named", [
    ({"data_dir": "data"}, "data_dir"),
    ({"scoring": "../x/y"}, "scoring"),
    ({"split": "C:\\\\x"}, "split"),
    ({"k_shot": ["a/b"]}, "k_shot"),
])
def test_report_refuses_any_kwarg_that_names_a_path(good_record, tmp_path, capsys, kwargs, named):
    out = tmp_path / "r.jsonl"
    out.write_text(changed(good_record, env_kwargs=kwargs) + "\n")
    assert main(["report", str(out)]) == 2
    assert f"{out}:1: env_kwargs names a path ({named});" in capsys.readouterr().err


_WRITES: list | None = None


def _record_writes(event: str, args: tuple) -> None:
    if _WRITES is None:
        return
    if event == "open" and isinstance(args[0], str) and any(m in str(args[1] or "") for m in "wax+"):
        _WRITES.append(args[0])
    elif event == "sqlite3.connect":
        _WRITES.append(str(args[0]))
    elif event in ("subprocess.Popen", "os.system", "socket.connect"):
        _WRITES.append(f"{event}: {args[:1]}")


def test_report_of_a_hostile_file_writes_nothing_and_starts_nothing(good_record, tmp_path, capsys, monkeypatch):
    """Under an audit hook: report on refused files opens no file for writing, connects to no
    database file and starts no process or socket (the world cache is off)."""
    global _WRITES
    import sys

    monkeypatch.setenv("TOOLGYM_CACHE", "")
    sys.addaudithook(_record_writes)  # an audit hook stays for the process; it records only while _WRITES is a list
    out = tmp_path / "r.jsonl"
    lines = [changed(good_record, env_kwargs={"db_url": f"sqlite:///{tmp_path / 'x.db'}"}),
             changed(good_record, env_kwargs={"data_dir": "/etc"}), "[" * 100_000, changed(good_record, metrics=[1])]
    _WRITES = []
    try:
        probe = tmp_path / "probe"
        probe.write_text("the hook sees writes")
        assert _WRITES == [str(probe)]
        probe.unlink()
        for line in lines:
            out.write_text(line + "\n")
            _WRITES.clear()
            assert main(["report", str(out)]) == 2
            assert _WRITES == [], (line[:80], _WRITES)
    finally:
        _WRITES = None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


def test_resume_on_a_hostile_file_writes_nothing_and_starts_nothing(good_record, tmp_path, capsys, monkeypatch):
    """The same audit hook around ``eval --resume``: the run's own env (from the command line, its
    world in memory) is made to know its task ids; the refused file opens nothing for writing (the
    results file included), no database file and no process or socket."""
    global _WRITES
    import sys

    monkeypatch.setenv("TOOLGYM_CACHE", "")
    sys.addaudithook(_record_writes)
    out = tmp_path / "r.jsonl"
    lines = [changed(good_record, env_kwargs={"db_url": f"sqlite:///{tmp_path / 'x.db'}"}),
             changed(good_record, env="Nope-v0"), "[" * 100_000 + "]" * 100_000, changed(good_record, metrics=[1])]
    _WRITES = []
    try:
        for line in lines:  # the bad line first: resume reads an unfinished last line as a torn write and drops it
            out.write_text(json.dumps(good_record) + "\n" + line + "\n" + json.dumps(good_record) + "\n")
            before = out.read_bytes()
            _WRITES.clear()
            assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "2", "--no-progress",
                         "--out", str(out), "--resume"]) == 2
            assert [w for w in _WRITES if w != ":memory:"] == [], (line[:80], _WRITES)
            assert out.read_bytes() == before
    finally:
        _WRITES = None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


_MARKER_CLASS = '''
import pathlib
pathlib.Path({marker!r}).write_text("imported")


class User:
    def reset(self, scenario, seed=None):
        pass

    def respond(self, message, trajectory):
        return "###STOP###"
'''


@pytest.fixture(scope="module")
def tau2_record(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("tau2") / "r.jsonl"
    assert main(["eval", "Tau2-v0", "--env-kwarg", "domain=mock", "--env-kwarg", "user=scripted", "--agent", "oracle",
                 "--episodes", "1", "--no-progress", "--out", str(out)]) == 0
    return json.loads(out.read_text().splitlines()[0])


@pytest.mark.parametrize("field, value, named", [
    ("user", "{file}:User", "user"),                       # a file: its code runs at import
    ("user", "{module}:User", "user"),                     # a module on the path
    ("user", "antigravity:User", "user"),                  # a module of the standard library
    ("user", "llm:hf:smollm2-135m-instruct", "user"),      # a model backend
    ("user", "llm:openai:http://127.0.0.1:9#m", "user"),
    ("judge", "hf:smollm2-135m-instruct", "judge"),
    ("judge", "{module}:User", "judge"),
    ("text_similarity", "cls:{file}", "text_similarity"),  # a model read from a path
    ("max_steps", "{module}:User", "max_steps"),           # a plain keyword with a value that is not plain
    ("future_keyword", 1, "future_keyword"),               # a keyword nobody has listed as plain
])
def test_report_imports_no_code_a_results_file_names(tau2_record, tmp_path, capsys, monkeypatch, field, value,
                                                      named):
    """A results file never chooses code: a user, judge or backend named by its env_kwargs (a file,
    a module, a model) is refused before anything is imported, unless the file is trusted."""
    marker = tmp_path / "imported"
    module = "toolgym_hostile_user_module"
    (tmp_path / f"{module}.py").write_text(_MARKER_CLASS.format(marker=str(marker)))
    (tmp_path / "user.py").write_text(_MARKER_CLASS.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    if isinstance(value, str):
        value = value.format(file=tmp_path / "user.py", module=module)
    out = tmp_path / "r.jsonl"
    out.write_text(changed(tau2_record, env_kwargs={**tau2_record["env_kwargs"], field: value}) + "\n")
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"toolgym: error: {out}:1: env_kwargs "), err
    assert f"({named})" in err and "pass --trust-env-kwargs if you trust this file" in err, err
    assert not marker.exists()
    import sys
    assert module not in sys.modules and "antigravity" not in sys.modules


def test_report_refuses_an_env_id_that_names_a_module(good_record, tmp_path, capsys, monkeypatch):
    marker = tmp_path / "imported"
    (tmp_path / "toolgym_hostile_env_module.py").write_text(_MARKER_CLASS.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.jsonl"
    out.write_text(changed(good_record, env="toolgym_hostile_env_module:Env-v0") + "\n")
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"toolgym: error: {out}:1: "), err
    assert not marker.exists()
    import sys
    assert "toolgym_hostile_env_module" not in sys.modules
    assert untrusted_env_args("toolgym_hostile_env_module:Env-v0", {}) == ["env"]
    assert untrusted_env_args("ToolTalk-v0", {"split": "easy", "user": "scripted", "world_seed": 3}) == []


def test_report_takes_plain_values_and_the_packaged_user(tau2_record, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(tau2_record) + "\n")
    assert tau2_record["env_kwargs"] == {"domain": "mock", "user": "scripted"}
    assert main(["report", str(out)]) == 0
    assert "Tau2-v0" in capsys.readouterr().out


@pytest.mark.parametrize("body, says", [
    ('{"simulations": [' + "9" * 1_000_000 + "]}", "not JSON (Exceeds the limit (4300 digits)"),
    ('{"simulations": [' + ",".join(["[]"] * 1_000_000) + "]}", "too many lists and objects for"),
    ('{"info": {}, "simulations": [' + ",".join(['{"task_id":"task_000001","messages":[]}'] * 100_000) + "]}",
     "100,000 runs in"),
], ids=["10^6 digits", "3 MiB of empty lists", "100,000 empty runs"])
def test_rescore_names_the_file_and_refuses_what_would_cost_memory_out_of_proportion(tmp_path, capsys, body, says):
    path = tmp_path / "results.json"
    path.write_text(body)
    assert main(["rescore", str(path), "--format", "tau2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toolgym: error: {path}: ") and says in err and err.count("\n") == 1, err


def test_report_escapes_control_characters_of_the_file(good_record, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(changed(good_record, agent="x\x1b[2J\x07", split="s\x1b]0;t\x07") + "\n")
    main(["report", str(path)])
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "\x07" not in out.out + out.err
    assert "agent x\\x1b[2J\\x07" in out.out and "s\\x1b]0;t\\x07" in out.out


_RESCORE_PEAK_GROWTH = """
import contextlib, io, resource, sys
from toolgym.eval.cli import main
import toolgym.eval.rescore
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with contextlib.redirect_stderr(io.StringIO()):
    code = main(["rescore", sys.argv[1], "--format", "tau2"])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


@pytest.mark.parametrize("simulation", ["[]", '{"task_id":"task_000001","messages":[]}'])
def test_a_3_mib_file_of_empty_simulations_costs_less_than_20_times_its_size(tmp_path, simulation):
    import subprocess
    import sys

    path = tmp_path / "results.json"
    path.write_text('{"info": {}, "simulations": [' + ",".join([simulation] * (3 * 2**20 // (len(simulation) + 1)))
                    + "]}")
    done = subprocess.run([sys.executable, "-c", _RESCORE_PEAK_GROWTH, str(path)], capture_output=True, text=True,
                          timeout=600, check=True)
    code, grown_kib = map(int, done.stdout.split())
    assert code == 2 and grown_kib * 1024 < 20 * path.stat().st_size  # pydantic's error per item: 1.5 GB
