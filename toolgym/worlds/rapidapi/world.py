"""The RapidAPI world of ToolLLM: a catalogue of tools and APIs, and the entities behind them.

Every API call is answered from the database: a generated tool's APIs read and write the
entity rows of that tool (a search finds the ids that a details call then describes, a POST
creates a row that later calls see), an official API with no world of its own answers with a
response built from its ``template_response`` and the arguments, or with a recorded response
when the official data holds one for the same request. Responses are pure functions of the
world seed, the state and the canonicalised arguments.

Errors have the shapes ToolBench's server gives (``{"error": ..., "response": ""}``):

- ``No such function name: X`` (status 1): the function is not offered;
- ``Tool input parse error...\\n`` (status 2): the arguments are not a JSON object;
- ``Function executing from my_tools.<Category>.<tool>.api import <api> error...\\n<reason>``
  (status 12 in toolgym; ToolBench's client reports 0): a missing or unexpected parameter, as
  Python words it (``f() missing 1 required positional argument: 'q'``), or a value of the
  wrong type;
- ``Timeout error...`` (status 5) and ``Rate limit per minute error...`` (status 10): only with
  ``fault_rate`` > 0, drawn from the world's seeded ``faults`` stream.

A failed call changes nothing. Observations hold the response as text, cut at 1,024
characters as ToolBench's server does.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field as dataclass_field
from typing import Any
from collections.abc import Iterable, Mapping

from sqlalchemy import insert, select

from toolgym.worlds.base import Snapshot, World, _copy_state
from toolgym.worlds.rapidapi.catalogue import SIZES, CatalogueSize, entity_key, generated_rows, official_rows
from toolgym.worlds.rapidapi.domains import KINDS, SYLLABLES
from toolgym.worlds.rapidapi.models import Api, Base, Category, Collection, Entity, Tool
from toolgym.worlds.rapidapi.naming import api_schema, function_name, standardize
from toolgym.worlds.tools import argument_problem

MAX_OBSERVATION = 1024
MAX_LIMIT = 50
STATUS_OK, STATUS_NO_FUNCTION, STATUS_PARSE, STATUS_TIMEOUT, STATUS_RATE_LIMIT, STATUS_ARGUMENTS = 0, 1, 2, 5, 10, 12
TIMEOUT_ERROR = ("Timeout error...HTTPConnectionPool(host='rapidapi.toolgym.invalid', port=443): "
                 "Read timed out. (read timeout=30)")
RATE_LIMIT_ERROR = "Rate limit per minute error..."
PARSE_ERROR = "Tool input parse error...\n"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class ApiInfo:
    """What a call needs to know about one API (read once from the catalogue)."""

    id: int
    name: str
    tool_id: int
    tool_name: str
    category: str
    kind: str
    field: str | None
    method: str
    required: list[dict]
    optional: list[dict]
    template: Any
    entity_kind: str | None
    description: str

    function: str = ""
    python_name: str = ""
    params: dict = dataclass_field(default_factory=dict)

    def __post_init__(self):
        self.function = function_name(self.name, self.tool_name)
        self.python_name = standardize(self.name) or "api"
        self.params = {p["arg"]: p for p in self.required + self.optional}

    def schema(self) -> dict:
        return api_schema(self.name, self.tool_name, self.description, self.required, self.optional)


@dataclass
class CallResult:
    """One API call: the canonical arguments, the response (a JSON value) or an error, and ToolBench's status."""

    function: str
    arguments: dict
    response: Any = ""
    error: str = ""
    status: int = STATUS_OK
    api_id: int | None = None
    wrote: bool = False

    @property
    def ok(self) -> bool:
        return not self.error

    def observation(self) -> str:
        """``{"error": ..., "response": ...}`` with the response as text cut at 1,024 characters."""
        text = self.response if isinstance(self.response, str) else json.dumps(self.response, ensure_ascii=False)
        return json.dumps({"error": self.error, "response": text[:MAX_OBSERVATION]}, ensure_ascii=False)


class _ArgumentError(Exception):
    pass


# Entity rows changed since the base image, kept by SQLite itself: the first row an id had
# (``existed`` 0 for one inserted since) and the ids changed since the last snapshot. Temporary
# objects are outside the image (serialize copies ``main``), survive a deserialize, and a
# rolled-back call takes its entries back with its rows.
ENTITY_TRACKING = """
CREATE TEMP TABLE IF NOT EXISTS entity_base (id INTEGER PRIMARY KEY, existed INTEGER NOT NULL, tool_id, key, name, data);
CREATE TEMP TABLE IF NOT EXISTS entity_dirty (id INTEGER PRIMARY KEY);
CREATE TEMP TRIGGER IF NOT EXISTS entity_inserted AFTER INSERT ON main.entities BEGIN
    INSERT OR IGNORE INTO entity_base (id, existed) VALUES (NEW.id, 0);
    INSERT OR IGNORE INTO entity_dirty VALUES (NEW.id);
END;
CREATE TEMP TRIGGER IF NOT EXISTS entity_updated AFTER UPDATE ON main.entities BEGIN
    INSERT OR IGNORE INTO entity_base VALUES (OLD.id, 1, OLD.tool_id, OLD.key, OLD.name, OLD.data);
    INSERT OR IGNORE INTO entity_dirty VALUES (OLD.id);
    INSERT OR IGNORE INTO entity_dirty VALUES (NEW.id);
END;
CREATE TEMP TRIGGER IF NOT EXISTS entity_deleted AFTER DELETE ON main.entities BEGIN
    INSERT OR IGNORE INTO entity_base VALUES (OLD.id, 1, OLD.tool_id, OLD.key, OLD.name, OLD.data);
    INSERT OR IGNORE INTO entity_dirty VALUES (OLD.id);
END;
"""
ENTITY_COLUMNS = "id, tool_id, key, name, data"


@dataclass(frozen=True)
class JournalSnapshot(Snapshot):
    """A snapshot as the entity rows that differ from a base image.

    ``database`` is the image the world was built or fully restored with (the same bytes
    object in every snapshot, never copied) and ``entities`` maps the id of each entity row
    changed since to the row (``(id, tool_id, key, name, data)``), or None when it is gone.
    Only entities change after the build: the catalogue is read-only.
    """

    entities: dict = dataclass_field(default_factory=dict)


class RapidAPIWorld(World):
    """The catalogue (categories, collections, tools, APIs) and the entities of generated tools.

    Args:
        url: The world database (see :class:`~toolgym.worlds.base.World`).
        seed: Seed of the generated catalogue and of the responses of official APIs.
        catalogue_size: ``"small"`` (default: 14 categories, 112 tools, about 540 APIs),
            ``"medium"``, ``"full"`` (49 categories, 3,451 tools, about 16,800 APIs) or a
            :class:`CatalogueSize`. Ignored when ``documents`` is given.
        documents: ToolBench API documents (``api_list`` entries); when given the catalogue is
            these APIs (the official world) instead of a generated one.
        recorded: Recorded responses of official APIs: ``request_key(function, arguments)`` ->
            response, replayed for the same request.
        fault_rate: Probability that a valid call fails with a timeout or a rate limit (half each).

    Raises:
        ValueError: ``catalogue_size`` is unknown or ``fault_rate`` is outside [0, 1].
    """

    Base = Base
    generator_modules = ("toolgym.worlds.rapidapi.catalogue", "toolgym.worlds.rapidapi.domains",
                         "toolgym.worlds.rapidapi.naming")

    def __init__(self, url: str = "sqlite://", seed: int = 0, catalogue_size: str | CatalogueSize = "small",
                 documents: Iterable[Mapping] | None = None, recorded: Mapping[str, Any] | None = None,
                 fault_rate: float = 0.0):
        if isinstance(catalogue_size, str):
            if catalogue_size not in SIZES:
                raise ValueError(f"RapidAPIWorld: catalogue_size must be one of {tuple(SIZES)}, got {catalogue_size!r}")
            catalogue_size = SIZES[catalogue_size]
        if not isinstance(fault_rate, (int, float)) or not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"RapidAPIWorld: fault_rate must be a number in [0, 1], got {fault_rate!r}")
        self.size = catalogue_size
        self.documents = list(documents) if documents is not None else None
        self._documents_digest = (hashlib.sha256(json.dumps(self.documents, sort_keys=True, default=str).encode())
                                  .hexdigest() if self.documents is not None else None)
        self.recorded = dict(recorded or {})
        self.fault_rate = float(fault_rate)
        self._apis: dict[int, ApiInfo] = {}
        self._api_ids: dict[tuple[str, str, str], int] | None = None
        self._functions: dict[str, list[int]] | None = None
        #: Successful writes so far (never restored: it tells a holder whether the rows may have changed).
        self.writes = 0
        self._base_image: bytes | None = None
        self._entity_rows: dict[int, tuple | None] = {}  # id -> row, for the rows changed since the base image
        super().__init__(url=url, seed=seed)

    # -- generation -------------------------------------------------------------------------
    def generator_parameters(self) -> dict:
        if self.documents is not None:
            return {"source": "official", "documents": self._documents_digest}
        return {"source": "generated", "size": self.size.__dict__}

    def populate(self) -> None:
        rows = (official_rows(self.documents) if self.documents is not None
                else generated_rows(self.size, self.seed))
        for model, table in ((Category, "categories"), (Collection, "collections"), (Tool, "tools"),
                             (Api, "apis"), (Entity, "entities")):
            if rows[table]:
                self.session.execute(insert(model), rows[table])
        self.session.commit()

    @property
    def official(self) -> bool:
        return self.documents is not None

    # -- the catalogue ----------------------------------------------------------------------
    def api(self, api_id: int) -> ApiInfo:
        """The API with this id (the catalogue never changes: it is read once, with plain SQL).

        Raises:
            KeyError: No API has this id.
        """
        self._load_apis()
        return self._apis[api_id]

    def _load_apis(self) -> None:
        if not self._apis:
            rows = self.sql().execute(
                "SELECT a.id, a.name, a.tool_id, t.name, c.name, a.kind, a.field, a.method, a.required_parameters, "
                "a.optional_parameters, a.template_response, t.entity_kind, a.description FROM apis a "
                "JOIN tools t ON a.tool_id = t.id JOIN categories c ON t.category_id = c.id").fetchall()
            for (id_, name, tool_id, tool, category, kind, field_, method, required, optional, template, entity_kind,
                 description) in rows:
                self._apis[id_] = ApiInfo(
                    id=id_, name=name, tool_id=tool_id, tool_name=tool, category=category, kind=kind, field=field_,
                    method=method, required=[{**p, "required": True} for p in json.loads(required)],
                    optional=[{**p, "required": False} for p in json.loads(optional)],
                    template=json.loads(template) if template is not None else None, entity_kind=entity_kind,
                    description=description)

    def api_id(self, category: str | None, tool: str, api: str) -> int | None:
        """The id of an API by (category, tool name, API name); None if the catalogue lacks it.

        ``category`` None matches a tool of any category (the first one).
        """
        if self._api_ids is None:
            self._api_ids = {}
            for api_id, api_name, tool_name, category_name in self.session.execute(
                    select(Api.id, Api.name, Tool.name, Category.name).join(Tool, Api.tool_id == Tool.id)
                    .join(Category, Tool.category_id == Category.id).order_by(Api.id)):
                self._api_ids.setdefault((category_name, tool_name, api_name), api_id)
                self._api_ids.setdefault(("", tool_name, api_name), api_id)
        return self._api_ids.get((category or "", tool, api))

    def function_ids(self) -> dict[str, list[int]]:
        """Function name -> ids of the APIs offered under it (a name can be shared across tools)."""
        self._load_apis()
        names: dict[str, list[int]] = {}
        for info in self._apis.values():
            names.setdefault(info.function, []).append(info.id)
        return names

    def canonical(self, api_id: int, arguments: dict) -> dict | None:
        """The canonical form of arguments for an API (parameter names, coerced values), or None if invalid."""
        try:
            return self._canonical(self.api(api_id), arguments)
        except _ArgumentError:
            return None

    def record(self, function: str, arguments: Any, response: Any) -> bool:
        """Remember a recorded response of an official API, replayed for the same request.

        Args:
            function: The function name the recording used.
            arguments: Its arguments (schema names), a dict or JSON text.
            response: The recorded response.

        Returns:
            Whether the request was valid for an API of that name (else nothing is kept).
        """
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments, strict=False) if arguments.strip() else {}
            except ValueError:
                return False
        if not isinstance(arguments, dict):
            return False
        if self._functions is None:
            self._functions = self.function_ids()
        for api_id in self._functions.get(function, ()):
            canonical = self.canonical(api_id, arguments)
            if canonical is not None:
                self.recorded.setdefault(request_key(function, canonical), response)
                return True
        return False

    def tool_api_ids(self, tool_id: int) -> list[int]:
        return list(self.session.scalars(select(Api.id).where(Api.tool_id == tool_id).order_by(Api.id)))

    # -- calls ------------------------------------------------------------------------------
    def call(self, api_id: int, arguments: Any) -> CallResult:
        """Call an API with the arguments the model wrote (keys: the function schema's names).

        Never raises for any ``arguments``; a call that fails leaves the world unchanged.
        """
        api = self.api(api_id)
        name = api.function
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments, strict=False) if arguments.strip() else {}
            except (ValueError, RecursionError):
                return CallResult(name, {}, error=PARSE_ERROR, status=STATUS_PARSE, api_id=api_id)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return CallResult(name, {}, error=PARSE_ERROR, status=STATUS_PARSE, api_id=api_id)
        try:
            problem = argument_problem(arguments)
            if problem is not None:
                raise _ArgumentError(f"{api.python_name}() {problem}")
            canonical = self._canonical(api, arguments)
        except _ArgumentError as exc:
            return CallResult(name, _shown(arguments), error=self._executing_error(api, str(exc)),
                              status=STATUS_ARGUMENTS, api_id=api_id)
        if self.fault_rate > 0:
            draw = self.rng("faults").random()
            if draw < self.fault_rate:
                timeout = draw < self.fault_rate / 2
                return CallResult(name, canonical, error=TIMEOUT_ERROR if timeout else RATE_LIMIT_ERROR,
                                  status=STATUS_TIMEOUT if timeout else STATUS_RATE_LIMIT, api_id=api_id)
        try:
            with self.atomic():
                if api.kind == "official":
                    response, wrote = self._official_response(api, canonical), False
                else:
                    response, wrote = self._generated_response(api, canonical)
        except _ArgumentError as exc:
            return CallResult(name, canonical, error=self._executing_error(api, str(exc)),
                              status=STATUS_ARGUMENTS, api_id=api_id)
        except Exception as exc:  # noqa: BLE001 - a data error is the call's error, never the caller's
            lines = str(exc).strip().splitlines()
            return CallResult(name, canonical, error=self._executing_error(
                api, f"{type(exc).__name__}: {lines[0][:300] if lines else 'failed'}"), status=STATUS_ARGUMENTS,
                api_id=api_id)
        if wrote:
            self.writes += 1
        return CallResult(name, canonical, response=response, api_id=api_id, wrote=wrote)

    # -- snapshots: the entity rows changed since the base image --------------------------------
    def snapshot(self) -> Snapshot:
        """The world's state. The first one is a full image, which becomes the base of the later
        ones: those hold only the entity rows changed since (a :class:`JournalSnapshot`), so a
        snapshot costs what changed, not what the catalogue holds."""
        if self._base_image is None:
            snap = super().snapshot()
            self._start_journal(snap.database)
            return snap
        self.commit()
        self._read_changes()
        return JournalSnapshot(database=self._base_image, aux=_copy_state(self.aux), rng_states=self._share_rngs(),
                               now=self.clock.now(), world=self.identity, entities=dict(self._entity_rows))

    def restore(self, snap) -> None:
        """Return to a snapshot of this world; another world's (other seed, catalogue size or
        official documents) is refused before anything changes: its rows would be mixed with
        this world's catalogue, which is kept in memory (ValueError).

        A :class:`JournalSnapshot` over this world's base image rewrites only the entity rows
        that differ between now and then; any other snapshot replaces the whole image."""
        self.check_snapshot(snap)
        if isinstance(snap, JournalSnapshot) and snap.database is self._base_image:
            self.rollback()
            self.session.expunge_all()
            self._read_changes()
            self._write_entities(snap.entities)
            self.aux = _copy_state(snap.aux)
            self._rngs, self._shared_rngs = dict(snap.rng_states), set(snap.rng_states)
            self.clock.set(snap.now)
        else:
            super().restore(snap)
            self._start_journal(snap.database)
            if isinstance(snap, JournalSnapshot):
                self._write_entities(snap.entities)
        self.writes += 1  # the rows may differ from before the restore

    def _start_journal(self, image: bytes) -> None:
        """``image`` (what the database holds now) becomes the base that snapshots are told against."""
        raw = self.sql()
        raw.executescript(ENTITY_TRACKING)
        raw.execute("DELETE FROM temp.entity_base")
        raw.execute("DELETE FROM temp.entity_dirty")
        raw.commit()
        self._base_image, self._entity_rows = image, {}

    def _read_changes(self) -> None:
        """Bring ``_entity_rows`` up to date with the rows changed since the last look."""
        raw = self.sql()
        dirty = [row[0] for row in raw.execute("SELECT id FROM temp.entity_dirty")]
        if not dirty:
            return
        for id_ in dirty:
            self._entity_rows[id_] = raw.execute(f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id = ?",
                                                 (id_,)).fetchone()
        raw.execute("DELETE FROM temp.entity_dirty")
        raw.commit()

    def _base_row(self, id_: int) -> tuple | None:
        raw = self.sql()
        base = raw.execute("SELECT existed, tool_id, key, name, data FROM temp.entity_base WHERE id = ?",
                           (id_,)).fetchone()
        if base is None:  # never changed here: the row now is the base image's
            return raw.execute(f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id = ?", (id_,)).fetchone()
        return (id_, *base[1:]) if base[0] else None

    def _write_entities(self, target: dict[int, tuple | None]) -> None:
        """Make the entity rows those of ``target`` (the rows changed since the base image)."""
        current = self._entity_rows
        wanted = {}
        for id_ in current.keys() | target.keys():
            want = target[id_] if id_ in target else self._base_row(id_)
            have = current[id_] if id_ in current else self._base_row(id_)
            if want != have:
                wanted[id_] = want
        raw = self.sql()
        # Every differing row goes first, then the wanted ones come in: a key moves between ids.
        raw.executemany("DELETE FROM entities WHERE id = ?", [(id_,) for id_ in wanted])
        raw.executemany(f"INSERT INTO entities ({ENTITY_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                        [row for row in wanted.values() if row is not None])
        raw.execute("DELETE FROM temp.entity_dirty")
        raw.commit()
        self._entity_rows = dict(target)

    @staticmethod
    def _executing_error(api: ApiInfo, reason: str) -> str:
        return (f"Function executing from my_tools.{api.category}.{standardize(api.tool_name)}.api import "
                f"{api.python_name} error...\n{reason}")

    def _canonical(self, api: ApiInfo, arguments: dict) -> dict:
        """The arguments under the parameters' own names, coerced to their types, in a fixed order."""
        params = api.params
        for key in arguments:
            if key not in params:
                raise _ArgumentError(f"{api.python_name}() got an unexpected keyword argument {_short(key)}")
        missing = [p["arg"] for p in api.required if p["arg"] not in arguments or arguments[p["arg"]] is None]
        if missing:
            quoted = [f"'{m}'" for m in missing]
            listed = quoted[0] if len(quoted) == 1 else (
                " and ".join(quoted) if len(quoted) == 2 else ", ".join(quoted[:-1]) + ", and " + quoted[-1])
            plural = "s" if len(missing) > 1 else ""
            raise _ArgumentError(f"{api.python_name}() missing {len(missing)} required positional argument{plural}: "
                                 f"{listed}")
        canonical = {}
        for arg, param in params.items():
            if arg in arguments and arguments[arg] is not None:
                canonical[param["name"]] = _coerce(api, param, arguments[arg])
        return canonical

    # -- generated tools ----------------------------------------------------------------------
    # Entity rows are read and written with plain SQL on the world's connection: a call costs
    # tens of microseconds instead of an ORM round trip, and no ORM object outlives a restore.
    def _rows(self, tool_id: int) -> list[tuple[str, str, dict]]:
        rows = self.sql().execute(
            "SELECT key, name, data FROM entities WHERE tool_id = ? ORDER BY name, key", (tool_id,)).fetchall()
        return [(k, n, json.loads(d)) for k, n, d in rows]

    def _entity(self, api: ApiInfo, key: Any) -> tuple[str, str, dict] | None:
        row = self.sql().execute("SELECT key, name, data FROM entities WHERE tool_id = ? AND key = ?",
                                 (api.tool_id, str(key))).fetchone()
        return (row[0], row[1], json.loads(row[2])) if row else None

    def _generated_response(self, api: ApiInfo, args: dict) -> tuple[Any, bool]:
        kind, field_name, raw = api.entity_kind, api.field, self.sql()
        id_arg = f"{kind}_id"
        if api.kind == "search":
            query = str(args["query"]).strip().lower()
            limit = _limit(args.get("limit"), 10)
            found = [{"id": k, "name": n} for k, n, _ in self._rows(api.tool_id) if query in n.lower()]
            return {"results": found[:limit], "count": len(found)}, False
        if api.kind == "list_by":
            value = args[field_name]
            found = [{"id": k, "name": n, field_name: d.get(field_name)} for k, n, d in self._rows(api.tool_id)
                     if d.get(field_name) == value]
            return {"results": found, "count": len(found)}, False
        if api.kind == "top_by":
            limit = _limit(args.get("limit"), 5)
            rows = sorted(self._rows(api.tool_id), key=lambda r: (-_number(r[2].get(field_name)), r[1], r[0]))
            return {"results": [{"id": k, "name": n, field_name: d.get(field_name)} for k, n, d in rows[:limit]]}, False
        if api.kind == "create":
            plural, fields = KINDS[kind]
            count = raw.execute("SELECT count(*) FROM entities WHERE tool_id = ?", (api.tool_id,)).fetchone()[0]
            salt = 0
            while True:
                token = hashlib.sha256(f"{self.seed}|{api.tool_id}|{count}|{args['name']}|{salt}".encode()).hexdigest()
                key = entity_key(kind, token[:6])
                if self._entity(api, key) is None:
                    break
                salt += 1
            data = {f[0]: None for f in fields}
            data.update({k: v for k, v in args.items() if k in data})
            raw.execute("INSERT INTO entities (tool_id, key, name, data) VALUES (?, ?, ?, ?)",
                        (api.tool_id, key, str(args["name"]), json.dumps(data)))
            return {"id": key, "name": str(args["name"]), "status": "created"}, True
        entity = self._entity(api, args.get(id_arg))
        if entity is None:
            return {"message": f"No {kind} with id '{str(args.get(id_arg))[:100]}' was found."}, False
        key, name, data = entity
        if api.kind == "details":
            return {"id": key, "name": name, **data}, False
        if api.kind == "field":
            return {"id": key, field_name: data.get(field_name)}, False
        if api.kind == "update":
            data[field_name] = args[field_name]
            raw.execute("UPDATE entities SET data = ? WHERE tool_id = ? AND key = ?",
                        (json.dumps(data), api.tool_id, key))
            return {"id": key, field_name: args[field_name], "status": "updated"}, True
        if api.kind == "delete":
            raw.execute("DELETE FROM entities WHERE tool_id = ? AND key = ?", (api.tool_id, key))
            return {"id": key, "status": "deleted"}, True
        raise _ArgumentError(f"{api.python_name}() is not implemented")

    # -- official APIs ------------------------------------------------------------------------
    def _official_response(self, api: ApiInfo, args: dict) -> Any:
        key = request_key(api.function, args)
        if key in self.recorded:
            return self.recorded[key]
        by_arg = {standardize(k): v for k, v in args.items()}
        digest = hashlib.sha256(f"{self.seed}|{api.category}|{api.tool_name}|{api.name}|{key}".encode()).digest()
        template = api.template
        if not isinstance(template, (dict, list)):
            template = {"result": "str"}
        return fill_template(template, digest, by_arg)

    # -- reading the world (for tasks and tests) ---------------------------------------------
    def entities(self, tool_id: int) -> list[Entity]:
        """The tool's entities in id order (detached copies)."""
        rows = self.sql().execute("SELECT id, key, name, data FROM entities WHERE tool_id = ? ORDER BY id",
                                  (tool_id,)).fetchall()
        return [Entity(id=i, tool_id=tool_id, key=k, name=n, data=json.loads(d)) for i, k, n, d in rows]


def example_arguments(api: ApiInfo, optional: bool = False) -> dict:
    """Valid arguments for an API: each required parameter's example (``default``) where it is one of the
    parameter's type, else a plain value of that type; with ``optional``, the optional ones too."""
    arguments = {}
    for param in api.required + (api.optional if optional else []):
        example = param.get("default")
        try:
            _coerce(api, param, example)
            if example is None or example == "":
                raise _ArgumentError("no example")
        except _ArgumentError:
            type_ = param.get("type", "STRING")
            example = (1 if type_ == "NUMBER" else True if type_ == "BOOLEAN" else "2023-09-11"
                       if type_.startswith("DATE") else (param.get("enum") or ["example"])[0])
        arguments[param["arg"]] = example
    return arguments


def matches_template(value: Any, template: Any) -> bool:
    """Whether a response has the shape of a ToolBench ``template_response`` (see :func:`fill_template`)."""
    if isinstance(template, dict):
        keys = {k for k in template if k != "_list_length"}
        return (isinstance(value, dict) and set(value) == keys
                and all(matches_template(value[k], template[k]) for k in keys))
    if isinstance(template, list):
        if not isinstance(value, list):
            return False
        if not template:
            return value == []
        item = template[0]
        if isinstance(item, str) and _LIST_OF.match(item):
            item = _LIST_OF.match(item).group(1)
        return all(matches_template(v, item) for v in value)
    expected = {"str": str, "int": int, "float": (int, float), "bool": bool, "NoneType": type(None),
                "empty list": list}.get(template)
    if expected is None:
        return True  # a type ToolBench's templates do not name: any value
    if template == "int" and isinstance(value, bool):
        return False
    return isinstance(value, expected)


def request_key(function: str, arguments: Mapping) -> str:
    """The key of a request for recorded responses: function name and canonical JSON arguments."""
    return function + " " + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def _shown(arguments: dict) -> dict:
    """Arguments for a result of a refused call: bounded, JSON-safe (hostile values shortened)."""
    return {_short(k, 40): _short(v, 80) for k, v in list(arguments.items())[:20]}


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _limit(value: Any, default: int) -> int:
    return default if value is None else max(1, min(MAX_LIMIT, int(value)))


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else -math.inf


def _coerce(api: ApiInfo, param: dict, value: Any) -> Any:
    """A value of the parameter's type, or an :class:`_ArgumentError` naming the parameter."""
    type_, arg = param.get("type", "STRING"), param["arg"]

    def wrong(expected: str) -> _ArgumentError:
        return _ArgumentError(f"{api.python_name}() argument '{arg}' must be {expected}, got {_short(value)}")

    if type_ == "NUMBER":
        if isinstance(value, bool):
            raise wrong("a number")
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise wrong("a number") from None
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            raise wrong("a number")
        return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)
    if type_ == "BOOLEAN":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise wrong("a boolean")
    if isinstance(value, bool):
        value = "true" if value else "false"
    if isinstance(value, (int, float)):
        value = str(value)
    if type_ in ("ARRAY", "OBJECT") and isinstance(value, (list, dict)):
        return value
    if not isinstance(value, str):
        raise wrong("a string")
    if type_ == "ENUM" and param.get("enum"):
        for choice in param["enum"]:
            if value.strip().lower() == str(choice).lower():
                return choice
        raise wrong(f"one of {param['enum']}")
    if type_.startswith("DATE") and not _DATE.match(value.strip()):
        raise wrong("a date YYYY-MM-DD")
    if len(value) > 10_000:
        raise wrong("at most 10000 characters")
    return value


# -- responses from templates ---------------------------------------------------------------------
_LIST_OF = re.compile(r"^list of (\w+) with length (\d+)$")


def fill_template(template: Any, digest: bytes, arguments: Mapping[str, Any], path: str = "",
                  max_items: int = 10) -> Any:
    """A JSON value of the shape of a ToolBench ``template_response``, derived from a digest.

    Scalars ``"str"``, ``"int"``, ``"float"``, ``"bool"``, ``"NoneType"``; ``"list of str with
    length 8"``; dicts; lists whose one element is the item template, with ``_list_length``
    items (at most ``max_items``). A string field named like an argument repeats the
    argument's value.
    """
    def seeded(where: str) -> int:
        return int.from_bytes(hashlib.blake2b(digest + where.encode(), digest_size=8).digest(), "big")

    if isinstance(template, dict):
        return {k: fill_template(v, digest, arguments, f"{path}.{k}", max_items)
                for k, v in template.items() if k != "_list_length"}
    if isinstance(template, list):
        if not template:
            return []
        item = template[0]
        length = item.get("_list_length", 1) if isinstance(item, dict) else 1
        if isinstance(item, str) and _LIST_OF.match(item):
            scalar, length = _LIST_OF.match(item).groups()
            item = scalar
        count = max(0, min(int(length) if str(length).isdigit() else 1, max_items))
        return [fill_template(item, digest, arguments, f"{path}[{i}]", max_items) for i in range(count)]
    name = standardize(path.rsplit(".", 1)[-1].split("[")[0]) if path else ""
    value = seeded(path)
    if template == "int":
        return value % 1000
    if template == "float":
        return round((value % 100000) / 100, 2)
    if template == "bool":
        return bool(value & 1)
    if template in ("NoneType", "null"):
        return None
    if template == "empty list":
        return []
    if name and name in arguments and not isinstance(arguments[name], (dict, list)):
        return str(arguments[name])
    if "url" in name or "link" in name or "image" in name:
        return f"https://example.invalid/{name or 'item'}/{value % 10**8:08d}"
    if "date" in name or "time" in name:
        return f"20{value % 24:02d}-{value % 12 + 1:02d}-{value % 28 + 1:02d}"
    if name.endswith("id") or name == "slug":
        return f"{value:016x}"[:12]
    word = "".join(SYLLABLES[(value >> (5 * i)) % len(SYLLABLES)] for i in range(3)).capitalize()
    return f"{word} {name.replace('_', ' ')}".strip() if name else word
