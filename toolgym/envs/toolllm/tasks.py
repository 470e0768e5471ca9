"""StableToolBench's solvable test queries (ToolLLM's six test groups), in their original format.

Each group is ``solvable_queries/test_instruction/<group>.json``: a list of queries with
``query_id``, ``query``, ``api_list`` (ToolBench API documents, inline) and ``relevant APIs``
(``[tool name, API name]`` pairs). Their answers are not published, so no toolgym metric can
say whether an official query was solved; that needs the ToolEval judge.

Recorded responses are read from the answer trees that the data holds (``**/answer/**/*.json``,
ToolBench's ``answer_generation.train_messages``): every function call there that succeeded is
replayed for the same request.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json, read_json_list, require_key
from toolgym.worlds.rapidapi.tasks import GROUPS

LAYOUT = OfficialLayout(
    name="StableToolBench", benchmark="stabletoolbench",
    split_expected={g: (f"**/solvable_queries/test_instruction/{g}.json",) for g in GROUPS},
    also_reads=("**/answer/**/*.json",),
    source="THUNLP-MT/StableToolBench on GitHub (Apache-2.0): solvable_queries/test_instruction/; answer trees "
           "from OpenBMB/ToolBench's data release")


@dataclass(frozen=True)
class OfficialQuery:
    query_id: str
    group: str
    query: str
    api_list: tuple[dict, ...]
    relevant: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class OfficialData:
    folder: Path
    queries: tuple[OfficialQuery, ...]
    documents: tuple[dict, ...]  # every API document of every group found (the catalogue)
    recordings: tuple[tuple[str, str, str], ...]  # (function, arguments JSON, response JSON)


def load_official(env_id: str, data_dir, split: str | None) -> OfficialData:
    """The official queries of ``split`` (every group when None) and the catalogue of all groups.

    Raises:
        ValueError, FileNotFoundError: No data folder (see :class:`OfficialLayout`).
        OfficialDataError: A file is not JSON or a query lacks a key.
    """
    folder = LAYOUT.locate(env_id, data_dir, split)
    files = []
    for group in GROUPS:
        found = sorted(folder.glob(f"**/solvable_queries/test_instruction/{group}.json"))
        if found:
            files.append((group, found[0], found[0].stat().st_mtime_ns))
    data = _load(env_id, str(folder), tuple(files))
    queries = tuple(q for q in data.queries if split is None or q.group == split)
    LAYOUT.check_not_empty(env_id, folder, len(queries), split)
    return OfficialData(folder, queries, data.documents, data.recordings)


@functools.lru_cache(maxsize=4)
def _load(env_id: str, folder: str, files: tuple) -> OfficialData:
    queries, documents = [], []
    for group, path, _ in files:
        records = read_json_list(path, "queries")
        for index, record in enumerate(records):
            where = f"{path}: query {index}"
            api_list = require_key(record, "api_list", where)
            relevant = require_key(record, "relevant APIs", where)
            if not isinstance(api_list, list) or not all(isinstance(a, dict) for a in api_list):
                raise OfficialDataError(f"{where}: 'api_list' must be a list of API documents")
            for a, doc in enumerate(api_list):
                for key in ("category_name", "tool_name", "api_name"):
                    require_key(doc, key, f"{where}, api_list[{a}]")
            queries.append(OfficialQuery(
                query_id=str(require_key(record, "query_id", where)), group=group,
                query=str(require_key(record, "query", where)), api_list=tuple(api_list),
                relevant=tuple((str(r[0]), str(r[1])) for r in relevant if isinstance(r, list) and len(r) >= 2)))
            documents += api_list
    return OfficialData(Path(folder), tuple(queries), tuple(documents), tuple(_recordings(Path(folder))))


def _recordings(folder: Path) -> list[tuple[str, str, str]]:
    """Successful calls of the answer trees under ``folder``: (function, arguments, response) as JSON."""
    found = []
    for path in sorted(folder.glob("**/answer/**/*.json")):
        try:
            record = read_json(path)
        except OfficialDataError:
            continue  # an example file toolgym does not need; the queries are what must be sound
        generation = record.get("answer_generation") if isinstance(record, dict) else None
        chains = generation.get("train_messages") if isinstance(generation, dict) else None
        for chain in chains if isinstance(chains, list) else []:
            for message, reply in zip(chain, chain[1:]):
                call = message.get("function_call") if isinstance(message, dict) else None
                if not isinstance(call, dict) or not isinstance(reply, dict) or reply.get("role") != "function":
                    continue
                try:
                    content = json.loads(reply.get("content") or "")
                except (ValueError, TypeError, RecursionError):
                    continue
                if isinstance(content, dict) and not content.get("error") and "response" in content:
                    found.append((str(call.get("name")), str(call.get("arguments") or "{}"),
                                  json.dumps(content["response"])))
    return found
