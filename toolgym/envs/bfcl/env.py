"""BFCL-v0: the Berkeley Function Calling Leaderboard (v4), graded as BFCL grades."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, ClassVar

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.bfcl.actions import DecodeError, answer_text, is_message, read_calls
from toolgym.envs.bfcl.ast_checker import ast_check, check_name
from toolgym.envs.bfcl.protocol import system_prompt, with_language_hints
from toolgym.envs.bfcl import formats
from toolgym.envs.bfcl.formats import FormatDecodeError
from toolgym.envs.bfcl.tasks import (NO_GROUND_TRUTH, SINGLE_TURN, SingleTurnTask, builtin_single_turn,
                                     format_sensitivity_copies, load_format_sensitivity, load_single_turn,
                                     openai_name, oracle_calls, source_id, tools_of)
from toolgym.envs.common.actions import json_text
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.official import OfficialLayout

#: The system prompts' characters of the prompt parts an env keeps (:meth:`BFCLEnv._docs_made`),
#: about half the memory they hold: every official single-turn entry's fit (16.4 million, about
#: 35 MB). Parts made past it are not kept; those kept stay (clearing them all made a pass over
#: more tasks than fit build every task's parts again).
MAX_PROMPT_CHARS = 20_000_000
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")
CATEGORIES = SINGLE_TURN + MULTI_TURN + MEMORY
#: BFCL's non-scoring category: its items under 26 prompt configurations (in no group; not in ``all``).
FORMAT_SENSITIVITY = "format_sensitivity"
#: The categories format_sensitivity copies its items from (the ids in ``BFCL_v4_format_sensitivity.json``).
FORMAT_SENSITIVITY_SOURCES = ("simple_python", "parallel", "multiple", "parallel_multiple", "live_simple",
                              "live_multiple", "live_parallel", "live_parallel_multiple")
#: Names for several categories at once (``category="non_live"``).
GROUPS = {
    "non_live": ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
                 "irrelevance"),
    "live": ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
             "live_relevance"),
    "multi_turn": MULTI_TURN,
    "memory": MEMORY,
    "hallucination": ("irrelevance", "live_irrelevance", "live_relevance"),
    "single_turn": SINGLE_TURN,
    "all": CATEGORIES,
}
#: BFCL's categories toolgym does not run, and why (asking for one is an error that says so).
NOT_SIMULATED = {
    "web_search": "BFCL's web_search category searches the live web (DuckDuckGo through SerpAPI) and fetches "
                  "real pages, which toolgym does not simulate; run category='memory' for the agentic "
                  "categories that run offline",
}
NOT_SIMULATED.update({name: NOT_SIMULATED["web_search"] for name in ("web_search_base", "web_search_no_snippet",
                                                                     "agentic")})
#: BFCL's step limit per turn (constants/default_prompts.py MAXIMUM_STEP_LIMIT): a model that calls
#: more often than this in one turn is forced to quit and the whole entry fails.
MAXIMUM_STEP_LIMIT = 20

#: The released checker's rejections of its own ground truths (``paper_compat``), which ``paper``
#: accepts; measured by the oracle over every official single-turn item.
COMPAT_REJECTED = (
    "simple_java_35", "simple_java_36", "simple_java_64", "simple_java_65", "simple_java_78", "simple_java_83",
    "simple_java_85", "simple_java_86", "simple_java_89", "simple_java_90", "simple_java_91",
    "parallel_multiple_12", "parallel_multiple_26", "live_simple_106-63-0", "live_simple_112-68-0",
    "live_multiple_507-149-4", "live_multiple_862-181-3", "live_multiple_964-207-0",
)


def _multi_turn():
    """The multi-turn worlds and checker (``toolgym.envs.bfcl.multi_turn``), imported when used."""
    return importlib.import_module("toolgym.envs.bfcl.multi_turn")


def official_layout(categories: Sequence[str]) -> OfficialLayout:
    """The files BFCL's ``categories`` are read from: questions, answers, the multi-turn APIs' docs
    and the memory scenarios' prerequisite conversations."""
    files = tuple(dict.fromkeys(_official_file(c) for c in categories))
    answered = tuple(dict.fromkeys(f for c in categories
                                   for f in ((f"BFCL_v4_{s}.json" for s in FORMAT_SENSITIVITY_SOURCES)
                                             if c == FORMAT_SENSITIVITY else (_official_file(c),))))
    return OfficialLayout(name="BFCL", benchmark="bfcl", expected=files,
                          also_reads=(*(f for f in answered if f not in files),
                                      *(f"possible_answer/{f}" for f in answered),
                                      *(("multi_turn_func_doc/*.json",) if set(categories) & set(MULTI_TURN) else ()),
                                      *(("memory_prereq_conversation/*.json",) if set(categories) & set(MEMORY)
                                        else ())),
                          source="the bfcl-eval package on PyPI (2026.3.23), bfcl_eval/data/; ShishirPatil/gorilla "
                                 "on GitHub (Apache-2.0), berkeley-function-call-leaderboard/bfcl_eval/data/")


def _memory():
    """The memory categories (``toolgym.envs.bfcl.memory``), imported when used."""
    return importlib.import_module("toolgym.envs.bfcl.memory")


def resolve_categories(category: str | Sequence[str]) -> tuple[str, ...]:
    """The categories ``category`` names: one, a group of :data:`GROUPS`, or a list of either."""
    names = [category] if isinstance(category, str) else list(category)
    resolved: list[str] = []
    for name in names:
        if isinstance(name, str) and name in NOT_SIMULATED:
            raise ValueError(f"BFCL-v0: category {name!r} is not supported: {NOT_SIMULATED[name]}")
        if not isinstance(name, str) or (name not in CATEGORIES and name not in GROUPS
                                         and name != FORMAT_SENSITIVITY):
            raise ValueError(f"BFCL-v0: unknown category {name!r}; the categories are {', '.join(CATEGORIES)} "
                             f"and the groups {', '.join(GROUPS)}")
        for member in GROUPS.get(name, (name,)):
            if member not in resolved:
                resolved.append(member)
    if not resolved:
        raise ValueError("BFCL-v0: category names no category")
    return tuple(resolved)


class BFCLEnv(ToolEnv):
    """
    ## Description
    The Berkeley Function Calling Leaderboard v4 (Patil et al. 2025, "The Berkeley Function Calling
    Leaderboard (BFCL): From Tool Use to Agentic Evaluation of Large Language Models"), with
    BFCL's categories that run offline. Single-turn categories (``simple_python``,
    ``simple_java``, ``simple_javascript``, ``multiple``, ``parallel``, ``parallel_multiple``, the
    ``live_`` ones, ``irrelevance``, ``live_irrelevance``, ``live_relevance``) are one step: the
    model answers the question with calls of the offered functions, graded by BFCL's AST checker
    (:mod:`toolgym.envs.bfcl.ast_checker`: function name, required and optional parameters,
    types with Java/JavaScript source conversion, every acceptable value, order-free matching of
    parallel calls); relevance and irrelevance by whether a call was produced. Multi-turn
    categories (``multi_turn_base``, ``_miss_func``, ``_miss_param``, ``_long_context``) run
    BFCL's loop over stateful worlds of its eight APIs (``toolgym.envs.bfcl.multi_turn``).
    Memory categories (``memory_kv``, ``memory_vector``, ``memory_rec_sum``: BFCL's agentic memory
    over a key-value store, a vector store and a recursive summary; ``toolgym.envs.bfcl.memory``)
    play the scenario's prerequisite conversations, in which the model may write memories, then
    ask the question in a fresh conversation, graded by BFCL's agentic checker on the final
    answer. The vector store embeds with the packaged all-MiniLM-L6-v2, the model BFCL loads
    (``SentenceTransformer("all-MiniLM-L6-v2")``), so nothing is downloaded.

    Not run: ``web_search`` (``web_search_base``, ``web_search_no_snippet``) queries the live web
    through SerpAPI's DuckDuckGo engine and fetches real pages, which toolgym does not simulate;
    asking for it (or for BFCL's ``agentic`` group) is a ``ValueError`` that says so.

    ``format_sensitivity`` (BFCL's non-scoring category; in no group, not in ``all``): the 200
    single-turn items that ``BFCL_v4_format_sensitivity.json`` names (simple_python, multiple,
    parallel, parallel_multiple and four live categories), each under BFCL's 26 prompt
    configurations (:mod:`toolgym.envs.bfcl.formats`: return format python / json /
    verbose_xml / concise_xml, with or without ``<TOOLCALL>`` tags, function docs as python /
    xml / json, then the default's markdown and experimental variants), 5,200 entries with
    BFCL's ids ``format_sensitivity_<n>:<config>:<source id>``; built-in tasks: the generated
    simple_python, multiple, parallel and parallel_multiple items under the 26 configurations.
    ``info["prompt_variation"]`` is the entry's configuration and ``info["system_prompt"]`` its
    prompt (the docs carry the Python note twice, as BFCL's loader hints them twice). A text
    answer is decoded in the configuration's format as BFCL's prompting decoder reads it and
    graded as the source item's category (``parallel``/``multiple`` read from the source id);
    native calls are read as in any category; the oracle answers in the configuration's format.
    The function-calling profiles refuse the category (BFCL runs it for prompting models only).
    ``toolgym report`` shows its per-configuration accuracy, max delta and standard deviation
    (:mod:`toolgym.envs.bfcl.leaderboard`). Under ``paper`` a JSON answer is read to the end of
    the list where BFCL's pattern cuts it at the first ``}]`` (so simple_python_96, whose
    arguments hold a list of objects, passes; ``paper_compat``, like BFCL, reads no call from its
    ground truth in the six JSON configurations). XML answers are read by a linear reader without
    a DTD, where BFCL uses ElementTree (which expands a DTD's internal entities).

    ## Action Space
    Both of BFCL's modes, in any step:

    - native tool calls: one OpenAI-style call (``{"name": ..., "arguments": {...}}`` or
      ``{"type": "function", "function": {"name", "arguments": "<json>"}}``), as a dict or JSON
      text, or a list of them; names as in ``info["tools"]``, where BFCL's dots are underscores
      (``math_factorial`` for ``math.factorial``);
    - BFCL's prompting format, ``[func(a=1), other(b='x')]`` (brackets optional, as BFCL's
      decoder adds them), read with :mod:`ast` and never evaluated (Python) or by a scanner of
      the call syntax (Java and JavaScript, where BFCL uses tree-sitter): each value is its source
      text, a string literal without its quotes, which the checker converts as BFCL does
      (``new int[]{1, 2}``, ``5L``, ``new HashMap<...>() {{ put("k", v); }}``, ``[1, 2]``).
      Java and JavaScript values in native calls are strings of source text too
      (``info["tools"]`` types them as strings, as BFCL does).
      As BFCL's decoder, the Python reader keeps keyword arguments only: ``f('x', b=2)`` and
      ``f(*xs, b=2)`` are the call ``f(b=2)``, so a positional argument reaches the function
      as a missing one (multi-turn: Python's ``missing 1 required positional argument`` text
      as BFCL's executor gives it, and the turn goes on; single-turn: the checker's verdict on
      the keywords). A ``**`` argument is a decoder failure under both scorings, where BFCL
      reads it as the keyword ``None`` (AST categories: ``unexpected_param``, 0 as here;
      relevance and irrelevance: a decoded call, so BFCL's verdict is the opposite of
      toolgym's; multi-turn: ``Error during execution: cannot assign to None (<string>, line
      1)`` and the turn goes on, where toolgym's turn ends). Not yet reproduced.

    An answer with no call is plain text (or ``[]``), or an OpenAI assistant message without
    ``tool_calls`` (``{"role": "assistant", "content": ...}``, the function-calling profiles'
    text answer: never read as calls, as BFCL's FC decoder reads native calls only).

    ## Observation Space
    A string: the current user turn's text; after a multi-turn or memory step the results of the
    calls (one per line). In a memory entry each prerequisite conversation and the question is a
    fresh chat: ``info["messages"]`` starts again with BFCL's memory system prompt (the
    scenario's assistant role, the backend's instructions and the memory shown in context: the
    core memory, or the whole summary for ``rec_sum``) and the chat's first user turn.
    ``info["messages"]`` holds the conversation (role/content dicts, tool results
    as ``tool`` messages), ``info["tools"]`` the OpenAI tool schemas of the offered functions
    (BFCL's ``convert_to_tool``: GORILLA_TO_OPENAPI types), ``info["functions"]`` BFCL's own
    docs and ``info["system_prompt"]`` BFCL's system prompt for prompting models (the offered docs
    with BFCL's language hints). These three are made once per task (and set of offered docs) and
    the same objects are in every ``info`` of its episodes, as are the messages of
    ``info["messages"]`` within an episode (a single-turn question's in every episode of its
    task): read them, copy before changing them.

    ## Rewards
    The return is the category's accuracy item: 1 when the entry passes, else 0, given at the
    end. ``info["metrics"]``: ``success``, ``check`` (the failing check: ``wrong_func_name``,
    ``missing_required``, ``unexpected_param``, ``missing_optional``, ``wrong_count``,
    ``type_error``, ``value_error``, ``cannot_find_match``, ``decoder_failed``,
    ``decoder_wrong_output_format``, ``decoder_success`` for a call in irrelevance; multi-turn:
    the episode's check; memory: ``answer_not_found``, or ``no_last_message`` when the question
    gets no answer within the step limit), ``error_type`` (BFCL's full ``error_type``) and, for
    multi-turn, the episode's ``turns_passed``, ``turns``, ``failing_turn``; for memory,
    ``prereq_conversations``, ``memory_calls``, ``forced_quits``, ``memory_entries`` (what the
    memory holds when the question is answered) and ``question_steps`` (the steps of the question's
    chat: BFCL's result of the entry, which ``toolgym export --format bfcl`` writes).

    ``table_columns`` is the accuracy; ``table_groups`` adds BFCL's leaderboard columns as rows:
    Non-Live AST (unweighted mean of simple (itself the mean of Python, Java, JavaScript),
    multiple, parallel, parallel multiple), Live AST (weighted by item count), Multi-Turn
    (unweighted), Relevance (live_relevance), Irrelevance (unweighted mean of irrelevance and
    live_irrelevance), Memory (unweighted mean of memory_kv, memory_vector, memory_rec_sum, as
    the leaderboard's Memory column). The leaderboard's Agentic column is the unweighted mean of
    Memory and Web Search; web_search is not run, so there is no Agentic row. The Overall column
    (which weighs Agentic at 40%) is computed across results files by ``toolgym report``
    (:mod:`toolgym.envs.bfcl.leaderboard`), with web search at 0 as BFCL counts a category not run.

    Scorings: ``"paper"`` (default) accepts every released ground truth; ``"paper_compat"`` is
    the released checker, whose differences are:

    - a Java ``Array`` of ``String`` keeps its items' quotes, and an ``ArrayList`` of ``any``
      keeps its items as source text (paper: string literals lose their quotes, ``any`` items
      read as Java literals);
    - a possible answer's dict value that is a bare value and not a list of options is
      compared character by character (paper: the value is its one option);
    - a parameter whose acceptable values are ``[]`` is required though nothing is acceptable
      (paper: it can only be left out); a doc's required parameter that the possible answer
      marks optional (``""`` only) is still required (paper: the possible answer decides);
      a parameter in the possible answer but not in the doc is unexpected (paper: judged by
      value).

    The 18 official items the released checker rejects with their own ground truth (issue 40
    counted 17; toolgym's oracle writes Java source in one way, and counts 18):
    simple_java_35, 36, 64, 65, 78, 83, 85, 86, 89, 90, 91; parallel_multiple_12, 26;
    live_simple_106-63-0, 112-68-0; live_multiple_507-149-4, 862-181-3, 964-207-0
    (:data:`COMPAT_REJECTED`). Under both scorings toolgym's checker fails an item whose expected
    function has no doc, where the released checker raises.

    Memory answers (``toolgym.envs.bfcl.memory.check_answer``, BFCL's ``agentic_checker``: a
    possible answer in the last message without a call, after removing ``,./-_*^()``, lower
    case, ``'`` as ``"``, as a whole word): under ``paper_compat`` "whole word" is the released
    ``\\b`` on both sides, which cannot hold beside a non-word character, so a possible answer
    that starts or ends with one (``$49.99``, one of the two accepted for memory_22-customer-22)
    matches only glued to a letter or digit; under ``paper`` the answer must not touch a letter
    or digit on either side. The checker's docstring says whitespace is ignored; its code keeps
    it, and toolgym keeps it under both scorings. The oracle scores every official memory item
    under both. Other differences from BFCL's memory runs, under both scorings:

    - BFCL plays a scenario's prerequisite conversations once per backend and starts every
      question of that scenario from the memory they left (its snapshot file); by default
      toolgym plays them in every episode, so each question is an independent episode whose
      memory the model wrote in that episode (the same inputs, sampled once per question
      instead of once per scenario, at 35 times the prerequisite turns);
      ``memory_prereq="once"`` runs BFCL's protocol.
    - The vector store ranks by exact inner products of unit embeddings in numpy, where BFCL
      uses FAISS ``IndexFlatIP`` (the same ranking; scores equal to float32 rounding). Entries
      of equal embedding (equal texts, or texts alike up to MiniLM's 256-token cut) score
      exactly alike here and the one earlier in FAISS's index comes first (an update moves an
      entry to the end); in BFCL their float32 scores differ in the last bits with their place
      in the index, which orders them and decides which a ``top_k`` cut keeps. Embeddings are computed when the
      model retrieves, one text at a time as BFCL embeds them, not when it adds.
    - Arguments are read by the tools' types: a ``vec_id`` given as ``"3"`` is the id 3 (BFCL
      would not find it); numbers given for kv keys and values and for summary texts become
      text, as BFCL's ``str()`` makes them. Calls whose texts total over 100,000 characters are
      refused before they run (no memory holds that much).

    Budgets (both scorings; BFCL has none of them, and no official task comes near one). A
    call over a budget does not run: its result is an error text and the world is as before.

    - Calls of one step: at most 200 (``MAX_CALLS_PER_STEP``); of one turn, 1,000
      (``MAX_CALLS_PER_TURN``); the official ground truths make at most 34 in a turn. Work
      units, one per call and, for MathAPI's ``logarithm`` and ``square_root``, the digits of
      the precision: 50,000 per step and 200,000 per turn (a logarithm at 10,000 digits takes
      0.16 s). A memory entry's steps and turns (a prerequisite turn or the question) have the
      same budgets, a memory call's work being one unit per 100 characters it reads (its
      texts; a key search also every key of its tier, which BM25 reads again each time) and
      1,000 for a similarity search's embedding. A call's result costs a unit per 100 of its
      characters once it has run (later calls pay for it), so a step's observation stays
      near 5 MB and a turn's results near 20 MB. Refused: ``Error during execution: the call did not run: more than 200
      calls in one step is over toolgym's budget``.
    - The world's size: a multi-turn call that would leave the world's database over 16 MiB
      (``MAX_WORLD_BYTES``; the largest official scenario is 147 KB) is undone under both
      scorings, even one that raises (``paper_compat`` otherwise keeps what a raising call
      changed), with ``Error during execution: the call was undone: it would make the world N
      bytes, more than toolgym's limit of 16777216 bytes``.
    - ``memory_replace`` (``rec_sum``) that would leave the memory over 100,000 characters
      (``MAX_REPLACED_SUMMARY_CHARS``; BFCL checks only the replacement's own length, so
      replacing ``''`` multiplies the memory) is refused with ``Memory will be too long after
      replacing (N characters). toolgym keeps the memory under 100000 characters.``
    - ``round_number`` of an integer to more negative places than it has digits answers 0, as
      Python does, without computing the power of ten (BFCL computes it: 10**(10**8)).
    - The file tree is walked without recursion (the turn's state check, ``find``, ``du``), so
      a tree thousands of folders deep is graded as any other (BFCL's recursive walks end in
      RecursionError past about 1,000 levels). A walk that passes more than 10,000 entries
      (``MAX_WALK_ENTRIES``: a folder copied into itself holds itself, in BFCL too) or whose
      ``find`` matches pass 1,000,000 characters is an error; two trees met again on such a
      cycle compare as equal.
    - The JavaScript 2-D array and Java ``HashMap`` values are read by linear code that finds
      what BFCL's patterns find (their backtracking takes exponential and fourth-power time).

    ## What a model is sent
    LLM agents use BFCL's protocol profiles (:mod:`toolgym.envs.bfcl.protocol`: ``bfcl-fc``,
    ``bfcl-fc-responses``, ``bfcl-prompting`` (the default, also ``bfcl``) and
    ``bfcl-prompting-responses``), which send what BFCL's OpenAI handlers send, byte for byte, under
    both scorings. Multi-turn entries offer every function of their APIs, the entry's
    ``excluded_function`` too, as BFCL does (its loader never reads that field). A
    ``miss_func`` turn that reveals held-out functions has no user message of its own in
    ``info["messages"]``; the profiles send BFCL's in its place. An LLM agent passes all calls of
    one completion as one action (:attr:`calls_in_one_action`), whatever its parser.

    ## Starting State
    The task's question (single-turn) or first user turn and the initial state of the involved
    APIs (multi-turn).

    ## Episode End
    Single-turn: after the one step. Multi-turn: after the last turn ends (the model answers
    without a call), or when the model calls in more than ``MAXIMUM_STEP_LIMIT`` (20) steps of
    one turn (BFCL's forced quit: the entry fails). Memory: when the model answers the question
    without a call, or calls in more than 20 steps of the question (the entry fails); more than
    20 steps in a prerequisite turn end that conversation, as in BFCL, and the next one starts.

    ## Arguments
    - ``category``: a category, a group of :data:`GROUPS` (``non_live``, ``live``,
      ``multi_turn``, ``memory``, ``hallucination``, ``single_turn``, ``all``), or a list of them;
      default ``"simple_python"``. Task ids are BFCL's ids (``simple_python_0``,
      ``live_simple_3-2-1``; memory as BFCL renames them per backend, ``memory_kv_0-customer-0``).
    - ``tasks``: ``"built-in"`` (generated tasks: 6 per category for simple_python, simple_java,
      simple_javascript, multiple, parallel, parallel_multiple, irrelevance; multi-turn from the
      worlds' generator) or ``"official"`` (``BFCL_v4_<category>.json`` and
      ``possible_answer/`` from ``data_dir`` or ``$TOOLGYM_DATA``, the ``bfcl/`` folder).
    - ``split`` (built-in only): ``"train"`` or ``"test"``: instead of the six, generated tasks
      to train on (``toolgym.worlds.bfcl.single_turn``), ``tasks_per_category`` (default 1,000)
      of each of simple_python, multiple, parallel, parallel_multiple and irrelevance, over 272
      function families of toolgym's own, 32 written and 240 composed from a lexicon of
      parameter kinds (ints, floats, strings, enums, arrays, dicts, optional parameters with
      defaults; questions phrased several ways, names and places from Faker).
      ``test`` holds out every fourth family, so no test function is seen in training. Ids are
      ``<category>_<split>-<n>``. The split does not change the multi-turn and memory tasks.
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``world_seed``: seed of the built-in tasks.
    - ``memory_prereq``: ``"each"`` (default): every memory episode plays its prerequisite
      conversations, so episodes are independent; ``"once"``: BFCL's protocol, where the first
      episode of a scenario (per backend) plays them and every later episode of that scenario,
      in this env, starts at the question from the memory they left (323 prerequisite turns
      per backend instead of 11,320). Episodes then depend on the order they run in.

    ## Version History
    - v0: initial version.
    """

    env_id = "BFCL-v0"
    scorings = ("paper", "paper_compat")
    splits = {"built-in": ("train", "test"), "official": ()}
    table_columns = (Column("Accuracy", "mean", ("success",)),)
    #: The leaderboard's aggregate columns, as rows: (title, how, members); members are
    #: categories or earlier groups' titles.
    table_groups: ClassVar[Sequence[tuple[str, str, tuple[str, ...]]]] = (
        ("Simple AST (non-live)", "unweighted", ("simple_python", "simple_java", "simple_javascript")),
        ("Non-Live AST", "unweighted", ("Simple AST (non-live)", "multiple", "parallel", "parallel_multiple")),
        ("Live AST", "weighted", ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")),
        ("Multi-Turn", "unweighted", MULTI_TURN),
        ("Relevance", "unweighted", ("live_relevance",)),
        ("Irrelevance", "unweighted", ("irrelevance", "live_irrelevance")),
        ("Memory", "unweighted", MEMORY),
    )
    max_action_chars: ClassVar[int] = 100_000
    #: BFCL grades (and, in multi-turn, executes) all calls of one model response together: an
    #: LLM agent passes a completion's calls as one action, whatever its parser.
    calls_in_one_action: ClassVar[bool] = True

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 category: str | Sequence[str] = "simple_python", world_seed: int = 0,
                 memory_prereq: str = "each", tasks_per_category: int = 1000):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        self.categories = resolve_categories(category)
        if memory_prereq not in ("each", "once"):
            raise ValueError(f"BFCL-v0: memory_prereq must be 'each' or 'once', got {memory_prereq!r}")
        self.memory_prereq = memory_prereq
        # (category, prerequisite conversation ids) -> the memory they left ("once")
        self._prereq_memories: dict[tuple, dict] = {}
        self.world = None  # single-turn items have no state; a multi-turn episode holds its own worlds,
        # a memory episode's MemoryWorld is the env's world while it runs
        self._tasks: dict[str, Any] = {}
        self._prompts: dict[Any, tuple[dict, dict]] = {}  # see _docs_made
        self._questions: dict[str, tuple[list[dict], str, list[dict]]] = {}  # see _question
        self._prompt_chars = 0  # the characters of the system prompts kept there
        if tasks == "official":
            layout, = self.read_layouts()
            folder = layout.locate(self.env_id, data_dir)
            for name in self.categories:
                if name in MULTI_TURN:
                    loaded = _multi_turn().load_multi_turn_tasks(folder, name)
                elif name in MEMORY:
                    loaded = _memory().load_memory_tasks(folder, name)
                elif name == FORMAT_SENSITIVITY:
                    loaded = load_format_sensitivity(folder)
                else:
                    loaded = load_single_turn(folder, name)
                self._tasks.update((t.id, t) for t in loaded)
            layout.check_not_empty(self.env_id, folder, len(self._tasks))
        else:
            if tasks_per_category < 1:
                raise ValueError(f"BFCL-v0: tasks_per_category must be positive, got {tasks_per_category}")
            generated = builtin_single_turn(world_seed, tasks_per_category, split) if split else \
                builtin_single_turn(world_seed)
            single = [t for t in generated if t.category in self.categories]
            if FORMAT_SENSITIVITY in self.categories:
                single += format_sensitivity_copies([t for t in generated if t.category in FORMAT_SENSITIVITY_SOURCES])
            multi = ([t for t in _multi_turn().builtin_multi_turn_tasks(world_seed) if t.category in self.categories]
                     if any(c in MULTI_TURN for c in self.categories) else [])
            memory = (_memory().builtin_memory_tasks(world_seed, self.categories)
                      if any(c in MEMORY for c in self.categories) else [])
            self._tasks = {t.id: t for t in [*single, *multi, *memory]}
            if not self._tasks:
                raise ValueError(f"BFCL-v0: no built-in tasks in {', '.join(self.categories)}; "
                                 f"pass tasks='official' for these categories")
        self.task: Any = None
        self.episode: Any = None
        self._done = True
        self._last_observation = ""

    # -- tasks ------------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (official_layout(CATEGORIES),)}

    def read_layouts(self) -> tuple[OfficialLayout, ...]:
        return (official_layout(self.categories),)

    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def _has_task(self, task_id: str) -> bool:
        return task_id in self._tasks

    def task_records(self) -> dict:
        return self._tasks

    def task_split(self, task_id: str) -> str:
        return self._tasks[task_id].category

    # -- episode ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.world is not None:
            self.world.close()  # the last memory episode's database
            self.world = None
        task = self._tasks[self._choose_task(options)]
        self._release_episode()
        self.task = task
        self._judged: dict = {}
        self._turn_steps = 0
        if isinstance(self.task, SingleTurnTask):
            self.episode = None
            messages, _, copies = self._question()
            self._messages = list(messages)
            self._view = (self._messages, len(messages), list(copies))  # see _messages_view
        elif self.task.category in MEMORY:
            memory = _memory()
            key = self._prereq_key(self.task)
            answering = ([t for t in self._tasks.values() if t.category in MEMORY and self._prereq_key(t) == key]
                         if self.memory_prereq == "once" else None)
            self.episode = memory.MemoryEpisode(self.task, scoring=self.scoring, encoder=memory.minilm_encoder,
                                                memory=self._prereq_memories.get(key), answering=answering)
            self.world = self.episode.world
            self._messages = self.episode.messages()
        else:
            self.episode = _multi_turn().MultiTurnEpisode(self.task, scoring=self.scoring)
            self._messages = [dict(m) for m in self.episode.user_messages()]
        self._done = False
        self._last_observation = self._user_text()
        return self._last_observation, self._info()

    def _release_episode(self) -> None:
        """Hand the last multi-turn episode's worlds back for the next episodes to reuse."""
        if self.episode is not None and isinstance(self.episode, _multi_turn().MultiTurnEpisode):
            self.episode.close()
        self.episode = None

    def close(self) -> None:
        self._release_episode()
        self._done = True  # a step after close answers that the episode is over
        super().close()

    def _functions(self) -> list[dict]:
        return self.task.functions if self.episode is None else self.episode.functions()

    def _language(self) -> str:
        return self.task.language if isinstance(self.task, SingleTurnTask) else "python"

    def _user_text(self) -> str:
        """The text of the question (single-turn) or of the current user turn."""
        if self.episode is not None:
            return _users_text(self.episode.user_messages())
        return self._question()[1]

    def _question(self) -> tuple[list[dict], str, list[dict]]:
        """A single-turn task's question, made once per task: its messages (the task's own, never
        changed here), the user's text, and copies of the messages shared by its episodes' ``info``
        as the prompt parts are (read them, never change them)."""
        question = self._questions.get(self.task.id)
        if question is None:
            messages = [m for turn in self.task.question for m in turn]
            question = self._questions[self.task.id] = (messages, _users_text(messages), [dict(m) for m in messages])
        return question

    def _info(self) -> dict:
        info = self._docs_made()[0].copy()  # the base keys and the prompt parts, made once per task
        info["messages"] = self._messages_view()
        return info

    def _messages_view(self) -> list[dict]:
        """``info``'s messages: each message is copied once, when it is new (an episode's list only
        grows, or is replaced by a new one), and the copies are shared by the episode's ``info``s
        (a single-turn question's by every episode of its task: :meth:`_question`): copying a
        multi-turn conversation at every step cost more than its call's SQL."""
        messages = self._messages
        view = self.__dict__.get("_view")
        if view is None or view[0] is not messages:  # a new episode's (or memory step's) list
            view = (messages, 0, [])
        _, seen, copies = view
        if seen < len(messages):
            copies += [dict(m) for m in messages[seen:]]
            self._view = (messages, len(messages), copies)
        return list(copies)

    def _docs_made(self) -> tuple[dict, dict[str, str]]:
        """(``info`` but its messages, each call name the docs answer to -> the doc's name).

        ``info`` without ``messages`` (a placeholder keeps their place): the base keys and
        ``functions``, ``tools`` and ``system_prompt`` for the docs the episode offers now, made
        once per task and set of docs and shared by its episodes' ``info`` (read them, never
        change them), as building them at each reset and step cost ten times BFCL's checker.
        A call name is a doc's own name, or the name ``info["tools"]`` offers (dots as
        underscores) where no doc has that name."""
        if self.episode is None:
            functions, key = self.task.functions, self.task.id
        else:  # an episode's docs only grow, in its task's order of reveals: their count tells them
            functions = self.episode.functions()
            key = (self.task.id, len(functions))
        made = self._prompts.get(key)
        if made is None:
            variation = getattr(self.task, "variation", None)  # format_sensitivity's prompt configuration
            parts = {"functions": [dict(f) for f in functions], "tools": tools_of(functions, self._language()),
                     "system_prompt": system_prompt(with_language_hints(functions, self.task.category), variation)}
            if variation is not None:
                parts["prompt_variation"] = variation
            names = {openai_name(d["name"]): d["name"] for d in functions}
            names.update((d["name"], d["name"]) for d in functions)
            made = ({**self.base_info(self.task.id), "messages": None, **parts}, names)
            if self._prompt_chars + len(parts["system_prompt"]) <= MAX_PROMPT_CHARS:  # about 90 KB a multi-turn task
                self._prompt_chars += len(parts["system_prompt"])
                self._prompts[key] = made
        return made

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()

    def _decode(self, action: Any) -> list[tuple[str, Any]]:
        names = self._docs_made()[1]
        return [(names.get(name, name), args) for name, args in read_calls(action, self._language())]

    def _act(self, action: Any) -> Outcome:
        if self.task.category in MEMORY:
            return self._act_memory(action)
        if self.episode is not None:
            return self._act_multi_turn(action)
        text = answer_text(action)
        self._messages.append({"role": "assistant", "content": text})
        category = self.task.category
        try:
            calls = self._decode_variation(action) if self.task.variation else self._decode(action)
            error = None
        except (DecodeError, FormatDecodeError) as exc:
            calls, error = None, str(exc)
            if category != "irrelevance" and category != "live_irrelevance" and not _looks_like_text(action):
                self._note_invalid_action()
        if category in NO_GROUND_TRUTH:
            made_call = bool(calls)
            passed = made_call if category == "live_relevance" else not made_call
            error_type = "" if passed else ("relevance_error:decoder_failed" if category == "live_relevance"
                                            else "irrelevance_error:decoder_success")
            detail = "" if passed else (f"no call was decoded: {error or 'empty'}" if category == "live_relevance"
                                        else "a call was decoded where none is wanted")
        elif calls is None:
            passed, error_type, detail = False, "ast_decoder:decoder_failed", f"Failed to decode AST: {error}"
        # _decode's arguments are dicts (read_calls makes no other); a format's decoder may give others
        elif (not calls and not self.task.variation) or (self.task.variation and not all(
                isinstance(a, dict) for _, a in calls)):
            passed, error_type, detail = False, "ast_decoder:decoder_wrong_output_format", \
                "no call in the answer" if not calls else "Did not output in the specified format."
        else:
            # format_sensitivity grades each copy as its source's category (BFCL passes the source id)
            verdict = ast_check(self.task.functions, [{n: a} for n, a in calls], self.task.ground_truth,
                                source_id(self.task) if self.task.variation else category, self.task.language,
                                compat=self.scoring == "paper_compat")
            passed, error_type, detail = verdict["valid"], verdict["error_type"], verdict["error"]
        self._judged = {"success": int(passed), "check": check_name(error_type) if not passed else None,
                        "error_type": error_type or None}
        observation = "Correct." if passed else f"Incorrect ({error_type}): {detail}"
        self._last_observation = observation
        return Outcome(observation, terminated=True, progress=int(passed), info={"error": detail or None})

    def _decode_variation(self, action: Any) -> list[tuple[str, Any]]:
        """A format_sensitivity answer: text in the copy's return format (BFCL's prompting
        decoder under its configuration); native calls as in any category."""
        if not isinstance(action, str):
            return self._decode(action)
        names = self._docs_made()[1]
        decoded = [next(iter(call.items())) for call in formats.decode(action, self.task.variation,
                                                                       compat=self.scoring == "paper_compat")]
        return [(name if any(d["name"] == name for d in self._functions()) else names.get(name, name), args)
                for name, args in decoded]

    def _act_multi_turn(self, action: Any) -> Outcome:
        text = answer_text(action)
        try:
            calls = self._decode(action)
        except DecodeError:
            calls = []  # BFCL: an undecodable answer ends the turn, as a text answer does
        if not calls:
            self._messages.append({"role": "assistant", "content": text})
            self.episode.end_turn()
            self._turn_steps = 0
            if self.episode.done:
                return self._finish_multi_turn()
            self._messages += [dict(m) for m in self.episode.user_messages()]
            observation = self._user_text()
            self._last_observation = observation
            return Outcome(observation)
        self._messages.append({"role": "assistant", "content": text,
                               "tool_calls": [{"type": "function", "function": {"name": n, "arguments": json_text(a)}}
                                              for n, a in calls]})
        results = []
        self.episode.start_step()
        for name, arguments in calls:
            output = self.episode.execute(name, arguments)
            results.append(output)
            self._messages.append({"role": "tool", "name": name, "content": output})
        self._turn_steps += 1
        observation = "\n".join(results)
        self._last_observation = observation
        if self._turn_steps > MAXIMUM_STEP_LIMIT:
            return self._finish_multi_turn(forced=True)
        return Outcome(observation)

    def _act_memory(self, action: Any) -> Outcome:
        """A step of a memory entry: calls run on the memory; an answer without a call ends the
        turn (a prerequisite turn, or the question, which is then graded)."""
        episode = self.episode
        text = answer_text(action)
        try:
            calls = self._decode(action)
        except DecodeError:
            calls = []  # BFCL: an undecodable answer is the turn's text answer
        session = episode.session
        if calls:
            observation = "\n".join(episode.record_calls(text, calls))
        else:
            episode.record_answer(text)
            observation = self._user_text()
        if episode.session != session and not episode.done:
            observation = self._user_text()  # a new conversation starts: its first user turn
        self._messages = episode.messages()
        if self.memory_prereq == "once" and episode.prereq_memory is not None:
            self._prereq_memories.setdefault(self._prereq_key(self.task), episode.prereq_memory)
        if episode.done:
            self._judged = episode.metrics()
            passed = bool(self._judged["success"])
            observation = "Correct." if passed else f"Incorrect ({self._judged['error_type']}): " \
                                                    f"{self._judged['failing_detail']}"
            self._last_observation = observation
            return Outcome(observation, terminated=True, progress=int(passed))
        self._last_observation = observation
        return Outcome(observation)

    @staticmethod
    def _prereq_key(task: Any) -> tuple:
        return (task.category, tuple(c.id for c in task.prereq))

    def _finish_multi_turn(self, forced: bool = False) -> Outcome:
        metrics = dict(self.episode.metrics())
        if forced:
            metrics.update(success=0, failing_turn=self.episode.turn, failing_check="force_quit")
        metrics.setdefault("check", metrics.get("failing_check"))
        self._judged = metrics
        observation = (f"Forced to quit after {MAXIMUM_STEP_LIMIT} steps." if forced else "All turns ended.")
        self._last_observation = observation
        return Outcome(observation, terminated=True, progress=int(metrics["success"]))

    def _refuse(self, error: str) -> Outcome:
        self._judged = {"success": 0, "check": "decoder_failed", "error_type": "ast_decoder:decoder_failed"}
        self._last_observation = f"Not read: {error}"
        return Outcome(self._last_observation, terminated=True, progress=0)

    def _metrics(self) -> dict:
        return self._judged  # copied into info by the base

    # -- oracle -----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """Native tool calls of the ground truth (names as ``info["tools"]`` offers them);
        ``[]`` (no call) for irrelevance and, in multi-turn, to end a turn whose calls are made."""
        if self.task.category in MEMORY:
            return self.episode.oracle_action()
        if self.episode is None:
            if self.task.category == "live_relevance":
                doc = self.task.functions[0]
                required = doc.get("parameters", {}).get("required", [])
                return [{"name": openai_name(doc["name"]), "arguments": {k: "" for k in required}}]
            if self.task.variation:
                return formats.write_answer(oracle_calls(self.task), self.task.variation)
            return [{"name": openai_name(name), "arguments": args} for name, args in oracle_calls(self.task)]
        if self._turn_steps > 0:
            return []
        calls = self.episode.oracle_calls()
        return [{"name": openai_name(n), "arguments": a} for n, a in calls] if calls else []

    def render(self) -> str | None:
        return self._last_observation if self.render_mode == "ansi" else None


def _official_file(category: str) -> str:
    """The question file of a category: the three memory categories share ``BFCL_v4_memory.json``."""
    return "BFCL_v4_memory.json" if category in MEMORY else f"BFCL_v4_{category}.json"


def _users_text(messages: list[dict]) -> str:
    """The user turns' texts of ``messages``, a line each."""
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")


def _looks_like_text(action: Any) -> bool:
    """A plain-text answer (no bracket or parenthesis, or an assistant message without calls): a
    refusal, not a malformed call."""
    if is_message(action):
        return not action.get("tool_calls")
    return isinstance(action, str) and not any(ch in action for ch in "([{")
