"""banking_knowledge's simulated shell (``terminal_use``): its outputs equal a real shell's (bash,
GNU coreutils and grep, on this side only) over the documents exported as τ³'s sandbox exports
them, bad commands are error texts, and work and output are bounded (issue 50)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgym.worlds.tau2.banking_knowledge.knowledge import KnowledgeBase
from toolgym.worlds.tau2.banking_knowledge.knowledge.shell import MAX_OUTPUT, MAX_WORK, Shell
from toolgym.worlds.tau2.banking_knowledge.knowledge.toolkits import ShellTools, ShellWriteTools

from conftest import official_data_root

DOCUMENTS = [
    {"id": "doc_cards_gold_001", "title": "Gold Rewards Card: Fees",
     "content": "## Fees\n\nThe annual fee is $95.\nForeign transaction fee: 3%.\nLate fee: up to $40.\n\n"
                "Gold members earn 2x points.\nfee waived for the first year"},
    {"id": "doc_cards_gold_002", "title": "Gold Rewards Card: Disputes",
     "content": "To dispute a charge, verify the customer first.\nThen call open_dispute_4412.\n"
                "Disputes over $500 need a supervisor.\nA FEE is never charged for disputes.\n"},
    {"id": "doc_accounts_(general)_001", "title": "Opening Accounts",
     "content": "Customers must be 18 or older.\nfee-free checking for students\nfeel free to ask\n"
                "Café hours: 9–5\n\ttabbed line\n\nlast line without newline"},
    {"id": "doc_wires/international", "title": "Wire Transfers",
     "content": "International wires cost $45.\nDomestic wires cost $25.\nwire limit: 10000\nWire cutoff 4pm"},
    {"id": "doc_empty", "title": "Empty", "content": ""},
]

# Commands whose output must equal bash's, byte for byte (listing order is byte order on both sides:
# the commands that list a folder's files sort, or name the files through a glob).
COMMANDS = [
    "ls", "ls -1", "ls *.md", "ls -r", "ls -S", "ls doc_cards_gold_001.md INDEX.md", "ls nope", "ls -a | head -3",
    "cat INDEX.md", "cat doc_cards_gold_001.md doc_empty.md doc_cards_gold_002.md", "cat -n doc_wires_international.md",
    "cat nope.md", "cat doc_cards_gold_00*", "cat 'doc_cards_gold_00*'",
    "head -n 3 doc_cards_gold_001.md", "head -2 doc_cards_gold_001.md", "head -c 20 doc_cards_gold_001.md",
    "head -n 2 doc_cards_gold_001.md doc_cards_gold_002.md", "head -n -2 doc_cards_gold_001.md",
    "tail -n 2 doc_cards_gold_001.md", "tail -3 doc_accounts__general__001.md", "tail -n +5 doc_cards_gold_001.md",
    "tail -c 10 doc_wires_international.md", "tail -n 1 doc_cards_gold_001.md doc_wires_international.md",
    "head nope.md",
    "grep fee doc_cards_gold_001.md", "grep -i fee doc_cards_gold_002.md", "grep -n fee *.md",
    "grep -c fee *.md", "grep -l -i fee *.md", "grep -L fee *.md", "grep -w fee *.md", "grep -wi fee *.md",
    "grep -x 'Domestic wires cost \\$25.' doc_wires_international.md", "grep -v fee doc_cards_gold_001.md",
    "grep -E 'fee|wire' *.md", "grep 'fee\\|wire' *.md", "grep -F '$45.' doc_wires_international.md",
    "grep -o 'fee[a-z]*' doc_accounts__general__001.md", "grep -on '[0-9]\\+' doc_wires_international.md",
    "grep -A 1 Late doc_cards_gold_001.md", "grep -B 2 Gold doc_cards_gold_001.md", "grep -C 1 fee *.md",
    "grep -n -C 1 wire doc_wires_international.md", "grep -ri 'gold rewards' . | sort", "grep -rl dispute . | sort",
    "grep -rn fee | sort", "grep -rc fee . | sort", "grep -r --include='*gold*' fee . | sort",
    "grep -h fee *.md", "grep -H fee doc_cards_gold_001.md", "grep -m 1 fee *.md", "grep nothinghere *.md",
    "grep fee nope.md", "grep -s fee nope.md doc_cards_gold_001.md", "grep -q fee doc_cards_gold_001.md",
    "grep -e fee -e wire doc_wires_international.md doc_cards_gold_001.md", "grep -E '^[A-Z][a-z]+ wires' *.md",
    "grep '[[:digit:]]\\{3,\\}' *.md", "grep -E 'cost \\$[0-9]{2}\\.' *.md", "grep 'Caf' *.md", "grep -i 'CAFÉ' *.md",
    "grep -E '(fee|FEE)s?' doc_cards_gold_002.md", "grep -ci FEE doc_cards_gold_002.md", "grep '^$' -c *.md",
    "grep -E 'wire$' doc_wires_international.md", "grep '\\<fee\\>' *.md",
    "find . -name '*gold*' | sort", "find . -type f | sort", "find . -iname '*WIRES*'", "find . -maxdepth 0",
    "find nope", "find . -name INDEX.md",
    "wc -l doc_cards_gold_001.md", "wc doc_cards_gold_001.md", "wc -w *.md", "wc -c doc_accounts__general__001.md",
    "wc -m doc_accounts__general__001.md", "wc *.md", "cat *.md | wc -l", "cat doc_cards_gold_001.md | wc",
    "wc -l nope.md doc_empty.md",
    "cat *.md | grep -i fee | sort", "cat *.md | grep -io 'fee' | sort | uniq -c", "grep -h fee *.md | sort -r",
    "grep -oh '[0-9]\\+' *.md | sort -n", "grep -oh '[0-9]\\+' *.md | sort -n | uniq",
    "grep -oh '[a-z]*' doc_cards_gold_001.md | sort | uniq -d", "grep -oh '[a-z]*' doc_cards_gold_001.md | sort -u",
    "sort doc_wires_international.md", "sort -f doc_cards_gold_001.md", "uniq -c doc_cards_gold_001.md",
    "echo hello world", "echo -n hi", "echo 'a  b' \"c\"",
    "ls nope 2>/dev/null", "cat nope.md 2>&1", "grep fee doc_empty.md && echo found || echo missing",
    "true && echo yes; false || echo no", "ls | grep -c md", "cat doc_cards_gold_001.md | head -3 | tail -1",
    "grep -n fee doc_cards_gold_001.md | head -2", "grep -rn 'verify' . | wc -l",
    "sed -n '2,4p' doc_cards_gold_001.md", "sed -n '$p' doc_wires_international.md",
    "sed '2d' doc_wires_international.md",
    "sed -n '/fee/p' doc_cards_gold_001.md", "sed 's/fee/[&]/g' doc_cards_gold_001.md",
    "sed -E 's/([0-9]+)/<\\1>/g' doc_wires_international.md", "sed -n '/Fees/,/Late/p' doc_cards_gold_001.md",
    "sed 3q doc_cards_gold_001.md", "sed -n '2!p' doc_wires_international.md", "sed -n '1p;3p' doc_cards_gold_001.md",
    "sed 's/a/b/x' INDEX.md", "sed -n '5,2p' doc_cards_gold_001.md", "cat doc_cards_gold_001.md | sed -n '1,3p'",
    "sed -n '1,3p' nope.md", "sed 's|/|:|g' INDEX.md", "sed p doc_wires_international.md", "sed -n '/^$/=' *.md",
    "sed -n 's/fee/X/p' doc_cards_gold_001.md", "sed 's/fee/X/gi' doc_cards_gold_002.md",
    "grep -l fee *.md | xargs wc -l", "ls | xargs -n 2 echo", "grep -l zzz *.md | xargs cat",
    "ls doc_cards* | xargs grep -c fee", "tail -1 INDEX.md doc_empty.md", "uniq a b c", "ls | grep -L md",
    "cd . && ls | head -2", "cd knowledge_base && ls", "cd INDEX.md", "cd a b",
    "cat << 'EOF'\nline one\n  two $x\nEOF", "cat <<EOF\nplain\nEOF\necho after",
    "grep -c fee << 'END'\nfee\nno\nfee fee\nEND", "cat <<-'EOF'\n\tindented\n\tEOF",
    "wc -l << 'X' && echo ok\na\nb\nX",
    "cat << 'EOF'\nnever closed",
]


def _export(kb: KnowledgeBase, folder: Path) -> None:
    for name, text in kb.files().items():
        (folder / name).write_text(text, encoding="utf-8")


def _bash(command: str, folder: Path) -> tuple[int, str, str]:
    done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"})
    # bash names itself in its messages; τ³'s sandbox runs the same bash
    return done.returncode, done.stdout, done.stderr.replace("bash: line 1: ", "bash: line 1: ")


needs_bash = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("grep") is None,
                                reason="the comparison needs bash and GNU grep")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.from_documents(DOCUMENTS)


@pytest.fixture(scope="module")
def exported(kb, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("knowledge_base")
    _export(kb, folder)
    return folder


@needs_bash
@pytest.mark.parametrize("command", COMMANDS)
def test_shell_equals_bash(kb, exported, command):
    assert Shell(kb).run(command) == _bash(command, exported)


@needs_bash
def test_long_listing_equals_bash_after_sanitising(kb, exported):
    """``ls -l`` of files: τ³ replaces the owner, group and date (``_sanitize_output``)."""
    command = "ls -l doc_cards_gold_001.md doc_wires_international.md INDEX.md"
    status, out, err = _bash(command, exported)
    line = re.compile(r"^([-d][rwx-]{9} +\d+ )\S+ +\S+ +(\d+) \w{3} +\d+ +[\d:]+ (.*)$", re.MULTILINE)
    sanitised = line.sub(r"\1kb_user  kb_group  \2 Jan  1 00:00 \3", out)
    assert Shell(kb).run(command) == (status, sanitised, err)


@needs_bash
def test_official_documents_equal_bash(tmp_path):
    root = official_data_root()
    folder = root / "tau2bench" / "tau2" / "domains" / "banking_knowledge" / "documents" if root else None
    if folder is None or not folder.is_dir():
        pytest.skip("official data not found: set TOOLGYM_DATA or place it at ../shared/data")
    kb = KnowledgeBase.from_documents(json.loads(p.read_text()) for p in sorted(folder.glob("*.json")))
    _export(kb, tmp_path)
    shell = Shell(kb)
    for command in ["ls | head -20", "ls | wc -l", "cat INDEX.md | head -30", "grep -ril 'gold rewards' . | sort",
                    "grep -rn -i 'annual fee' . | sort | head -40", "grep -c -i 'dispute' doc_*credit*.md",
                    "find . -name '*checking*' | sort", "wc -l doc_credit_cards_gold_rewards_card_00*",
                    "grep -rh -o -i 'open_[a-z_]*_[0-9]\\+' . | sort | uniq -c | sort -rn | head",
                    "cat doc_credit_cards_gold_rewards_card_001.md", "grep -E -i -C 2 'foreign (transaction )?fee' "
                    "doc_credit_cards_*.md", "grep -rliw 'overdraft' . | sort | head", "tail -n 5 INDEX.md",
                    "sed -n '5,9p' INDEX.md", "grep -rl 'overdraft' . | sort | head -3 | xargs wc -l"]:
        assert shell.run(command) == _bash(command, tmp_path), command


def test_tool_words_outcomes_as_tau3(kb):
    """τ³'s ShellMixin: grep's status 1 without stderr is "No matches found.", other failures
    carry the exit code, empty output is "(no output)"."""

    class World:
        knowledge = kb
        aux: dict = {}

    tools = ShellTools(World())
    assert tools.shell("grep zzz INDEX.md") == "No matches found."
    assert tools.shell("cat nope.md") == "Error (exit code 1): cat: nope.md: No such file or directory\n"
    assert tools.shell("false") == "Command failed with exit code 1"
    assert tools.shell("true") == "(no output)"
    assert tools.shell("cat ../etc/passwd") == \
        "Error (exit code 1): Error: Command blocked - contains '..' which could escape the sandbox"
    assert tools.shell("ls /etc") == \
        "Error (exit code 1): Error: Command blocked - contains 'absolute path: /etc' which could escape the sandbox"
    assert tools.shell("cat ~/x") == "Error (exit code 1): Error: Command blocked - contains '~' which could escape " \
                                     "the sandbox"
    assert tools.shell("echo note > notes.md") == \
        "Error (exit code 1): bash: line 1: notes.md: Read-only file system\n"
    assert tools.shell("sed -i 's/a/b/' INDEX.md") == \
        "Error (exit code 4): sed: couldn't open temporary file sedAbCdEf: Read-only file system\n"
    assert tools.shell("awk '{print}' INDEX.md").startswith("Error (exit code 127): bash: line 1: awk: not available")
    assert tools.shell("echo $(ls)").startswith("Error (exit code 127): variables and command substitution")
    assert tools.shell("ls | xargs " + "xargs " * 900) == \
        "Error (exit code 127): xargs: running xargs from xargs is not simulated\n"


def test_write_variant_keeps_files_for_the_episode_only(kb):
    class World:
        knowledge = kb

        def __init__(self):
            self.aux = {}  # the world's state outside its database: a new episode starts it empty

    world = World()
    tools = ShellWriteTools(world)
    assert tools.shell("echo 'first note' > notes.md && echo second >> notes.md") == "(no output)"
    assert tools.shell("cat notes.md") == "first note\nsecond\n"
    assert tools.shell("mkdir scratch && touch scratch/a.md && ls scratch") == "a.md\n"
    assert tools.shell("rm doc_empty.md && ls | grep -c empty") == "No matches found."
    assert tools.shell("grep -rl note .") == "./notes.md\n"
    assert world.aux["knowledge_shell"]["files"]["notes.md"] == "first note\nsecond\n"
    assert tools.shell("sed -i 's/first/1st/' notes.md && head -1 notes.md") == "1st note\n"
    assert tools.shell("cat > plan.md << 'EOF'\n# Plan\n- verify $id\nEOF\ncat plan.md") == "# Plan\n- verify $id\n"
    # the knowledge base itself, and another episode's shell, are untouched
    assert "doc_empty.md" in kb.files()
    assert ShellWriteTools(World()).shell("ls notes.md") == \
        "Error (exit code 2): ls: cannot access 'notes.md': No such file or directory\n"


def test_work_is_bounded(kb):
    """A command line reads at most MAX_WORK characters and prints at most MAX_OUTPUT: a long
    pipeline over the whole knowledge base is counted, and stopped at the bound."""
    shell = Shell(kb)
    status, out, _ = shell.run("cat *.md | cat | cat | wc -c")
    size = sum(len(text) for name, text in kb.files().items())
    assert status == 0 and shell.work == 4 * size
    big = KnowledgeBase.from_documents([{"id": f"d{i}", "title": "t", "content": "x" * 900_000} for i in range(8)])
    shell = Shell(big)
    status, out, err = shell.run("cat *.md | cat | cat | cat | cat | cat | cat | cat | wc -c")
    assert status == 1 and err.startswith("Command failed: the command read more than")
    assert shell.work <= MAX_WORK + 8 * 900_100
    status, out, err = shell.run("cat *.md *.md")
    assert status == 1 and "output is longer" in err and len(out) <= MAX_OUTPUT


COMMAND_TEXT = st.text(alphabet=st.sampled_from(list("lscatgrephdwfin -|&;<>'\"\\*?[]{}()$`~./0123456789\n\tEAC")),
                       max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=COMMAND_TEXT)
def test_fuzzed_commands_are_answers_not_crashes(kb, command):
    shell = Shell(kb)
    status, out, err = shell.run(command)
    assert isinstance(status, int) and isinstance(out, str) and isinstance(err, str)
    assert len(out) <= MAX_OUTPUT and shell.work <= MAX_WORK
    assert status == 0 or err or status in (1, 2)  # a failure says why, or is grep's "no match"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(utility=st.sampled_from(["ls", "cat", "head", "tail", "grep", "find", "wc", "sort", "uniq", "sed", "xargs",
                                "echo"]),
       args=st.lists(st.sampled_from(["-n", "-1", "-r", "-c", "-l", "-i", "-E", "-A", "-z", "--x", "--",
                                      "fee", "*.md", "INDEX.md", "nope", "-5", "+2", "[", "\\(", "a{2,1}"]),
                     max_size=5))
def test_fuzzed_utility_arguments_are_answers(kb, utility, args):
    status, out, err = Shell(kb).run(" ".join([utility, *(f"'{a}'" for a in args)]))
    assert isinstance(status, int) and len(out) <= MAX_OUTPUT
    assert status == 0 or err or status == 1


@needs_bash
def test_grep_patterns_read_as_gnu_grep_reads_them(kb, exported):
    """Random basic and extended patterns (GNU's quirks included: a leading repetition ignored with a
    warning, stacked repetitions, literal braces and parentheses, error texts) select the lines GNU
    grep selects; ``\\<`` and ``\\>`` are left out (documented: toolgym reads both as ``\\b``)."""
    import random

    rng = random.Random(50)  # any seed; 50 is the issue
    alphabet = list("aefw .*+?|()[]^$\\{}0123,-:") + ["[[:digit:]]", "\\w", "fee", "wire", "\\(", "\\)", "\\{2\\}",
                                                     "{2}", "\\|"]
    files = "doc_cards_gold_001.md doc_wires_international.md doc_accounts__general__001.md"
    for _ in range(150):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))
        if pattern.endswith("\\") and not pattern.endswith("\\\\"):
            pattern += "w"
        for flags in ("-c", "-cE", "-ciw"):
            command = f"grep {flags} -e '{pattern}' {files}"
            if "'" in pattern:
                continue
            assert Shell(kb).run(command) == _bash(command, exported), command


@needs_bash
def test_random_pipelines_equal_bash(kb, tmp_path):
    """Random pipelines of the utilities over files that exist or not: the status and output equal
    bash's (stderr too for one command; a pipeline's stages write it concurrently in bash)."""
    import random

    rng = random.Random(50)
    files = ["INDEX.md", "doc_cards_gold_001.md", "doc_wires_international.md", "doc_empty.md", "nope.md", "*.md",
             "doc_cards*"]
    utilities = {
        "cat": ["-n", ""], "head": ["-n 2", "-3", "-c 5", "-n -1", ""], "tail": ["-n 2", "-1", "-n +3", "-c 7", ""],
        "wc": ["-l", "-w", "-c", "-m", "", "-lw"], "sort": ["", "-r", "-n", "-u", "-f", "-rn"],
        "grep": ["-i fee", "-c fee", "-n wire", "-v e", "-l fee", "-o '[0-9]\\+'", "-w fee", "-A1 fee", "-B1 -n Fee",
                 "-h fee", "-iE 'fee|wire'", "-x ''", "-L fee"],
        "uniq": ["", "-c", "-d", "-u", "-i"], "sed": ["-n '1,2p'", "'1d'", "'s/e/E/g'", "-n '$p'", "'2q'"],
        "ls": ["", "-1", "-r", "-S"], "echo": ["hi", "-n x", "a b"],
    }
    _export(kb, tmp_path)
    for _ in range(150):
        stages = []
        for position in range(rng.randint(1, 3)):
            name = rng.choice(list(utilities))
            operands = []
            if name not in ("ls", "echo") and (position == 0 or rng.random() < 0.2):
                # uniq writes to a second operand (the sandbox is read-only, this folder is not)
                operands = [rng.choice(files[:5])] if name == "uniq" else \
                    [rng.choice(files) for _ in range(rng.randint(1, 2))]
            stages.append(" ".join([name, rng.choice(utilities[name]), *operands]))
        command = " | ".join(stages) + rng.choice(["", "", " && echo ok", " || echo failed", "; echo done"])
        mine, theirs = Shell(kb).run(command), _bash(command, tmp_path)
        assert mine[:2] == theirs[:2], command
        if len(stages) == 1:
            assert mine[2] == theirs[2], command
