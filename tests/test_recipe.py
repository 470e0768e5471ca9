"""examples/recipe_bfcl.sh: which commands it runs, with a stand-in Python that records them."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "examples" / "recipe_bfcl.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def run_recipe(tmp_path: Path, *options: str) -> list[list[str]]:
    """The recipe's commands in the order they started, each its argv after the interpreter."""
    log = tmp_path / "calls.jsonl"
    stand_in = tmp_path / "python"
    stand_in.write_text(f"#!{sys.executable}\nimport json, sys\n"
                        f"with open({str(log)!r}, 'a') as f: f.write(json.dumps(sys.argv[1:]) + '\\n')\n")
    stand_in.chmod(0o755)
    done = subprocess.run(["bash", str(RECIPE), "--runs", str(tmp_path / "runs"), *options], cwd=ROOT,
                          env={**os.environ, "PYTHON": str(stand_in)}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in log.read_text().splitlines()]


def evaluations(calls: list[list[str]]) -> dict[str, list[str]]:
    """The evaluations by results file name."""
    return {Path(argv[argv.index("--out") + 1]).stem: argv for argv in calls if argv[:3] == ["-m", "toolgym.eval.cli",
                                                                                                "eval"]}


def test_the_recipe_trains_then_evaluates_every_model_on_every_category_once(tmp_path):
    calls = run_recipe(tmp_path, "--jobs", "2", "--threads", "2", "--sft-steps", "24", "--grpo-steps", "10",
                       "--eval-items", "all", "--long-items", "all")
    assert calls[0][0] == "examples/sft_demos.py" and calls[1][0] == "examples/grpo_toolgym.py"
    sft, grpo = calls[0], calls[1]
    assert sft[sft.index("--max-steps") + 1] == "24" and sft[sft.index("--threads") + 1] == "2"
    assert grpo[grpo.index("--max-steps") + 1] == "10"
    assert grpo[grpo.index("--model") + 1] == str(tmp_path / "runs" / "sft" / "model")
    runs = evaluations(calls[2:])
    categories = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
                  "multi_turn_base"]
    expected = {f"{name}-bfcl-{category}" for name in ("base", "sft", "grpo") for category in categories}
    expected |= {f"{name}-{env}-{domain}" for name in ("base", "sft", "grpo") for env in ("taubench", "tau2")
                 for domain in ("airline", "retail")}
    assert set(runs) == expected and len(calls) == 2 + len(expected)
    base = runs["base-bfcl-simple_python"]
    assert base[base.index("--agent") + 1] == "hf:smollm2-135m-instruct"
    assert base[base.index("--threads") + 1] == "1"  # two jobs share the two threads
    assert "--episodes" not in base and "--resume" not in base
    sft_tau = runs["sft-tau2-retail"]
    assert sft_tau[sft_tau.index("--agent") + 1] == "hf:" + str(tmp_path / "runs" / "sft" / "model")
    assert sft_tau[3] == "Tau2-v0" and sft_tau[sft_tau.index("--split") + 1] == "test"


def test_long_items_bound_only_multi_turn_and_the_tau_splits(tmp_path):
    runs = evaluations(run_recipe(tmp_path, "--eval-items", "50", "--long-items", "5"))
    episodes = {name: argv[argv.index("--episodes") + 1] for name, argv in runs.items()}
    assert episodes["grpo-bfcl-simple_python"] == "50" and episodes["base-bfcl-irrelevance"] == "50"
    assert episodes["sft-bfcl-multi_turn_base"] == "5" and episodes["base-taubench-airline"] == "5"
    assert episodes["grpo-tau2-retail"] == "5"


def test_defaults_fit_a_cpu_budget_and_take_everything_on_a_gpu(tmp_path):
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cuda").mkdir()
    cpu = run_recipe(tmp_path / "cpu")
    sft, grpo, runs = cpu[0], cpu[1], evaluations(cpu[2:])
    assert (sft[sft.index("--max-steps") + 1], grpo[grpo.index("--max-steps") + 1]) == ("64", "4")
    cores = int(sft[sft.index("--threads") + 1])
    assert {argv[argv.index("--threads") + 1] for argv in runs.values()} == {str(max(1, cores // 2))}
    single_turn = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple"]
    assert set(runs) == {f"{name}-bfcl-{c}" for name in ("base", "sft", "grpo") for c in single_turn}  # no long ones
    assert {argv[argv.index("--episodes") + 1] for argv in runs.values()} == {"50"}
    cuda = run_recipe(tmp_path / "cuda", "--device", "cuda")
    sft, grpo, runs = cuda[0], cuda[1], evaluations(cuda[2:])
    assert (sft[sft.index("--max-steps") + 1], grpo[grpo.index("--max-steps") + 1]) == ("-1", "50")
    assert not any("--episodes" in argv for argv in runs.values())
    assert all(argv[argv.index("--backend-kwarg") + 1] == "device=cuda" for argv in runs.values())


def test_an_evaluation_with_results_continues_them(tmp_path):
    (tmp_path / "runs" / "eval").mkdir(parents=True)
    (tmp_path / "runs" / "eval" / "sft-bfcl-parallel.jsonl").write_text('{"return": 1}\n')
    runs = evaluations(run_recipe(tmp_path))
    assert "--resume" in runs["sft-bfcl-parallel"] and "--resume" not in runs["sft-bfcl-multiple"]
