"""AppBench-v0: planning API calls across phone apps (Wang et al. 2024)."""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from typing import Any

from toolgym.envs.appbench.scoring import dependency_structure, score_paper, score_paper_compat
from toolgym.envs.common.actions import ToolCall, parse_action
from toolgym.envs.appbench.tasks import OFFICIAL_LAYOUT, load_official
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column
from toolgym.worlds.appbench.tasks import CATEGORIES, AppTask, builtin_task_set
from toolgym.worlds.appbench.plan import Call, ParsedPlan, Ref, parse_plan, parse_plan_json, render_plan
from toolgym.worlds.appbench.tools import APPS, KEYWORD_ARGUMENTS, REFERENCE_DATE, RETURNS, AppBenchTools
from toolgym.worlds.appbench.world import AppBenchWorld, Executed, resolve, returned_fields

PROMPTINGS = ("flat", "hierarchical")
_PUBLIC = {private: public for public, private in KEYWORD_ARGUMENTS.items()}
_SELECT = re.compile(r"^\s*select_apps\s*\[(?P<apps>.*)\]\s*$", re.S | re.I)
# Possessive blanks: with plain ``\s*`` the three runs of blanks that may meet after "finish"
# split a long run every possible way (cubic: "finish" and 2,000 spaces took 9 s).
_FINISH = re.compile(r"\s*+finish\s*+(?:\[\s*+\]|\(\s*+\))?\s*+\.?\s*+\Z", re.I)
MAX_OBSERVATION = 4000

PLAN_RULES = f"""Write one line per API call, in the order the calls must run:
App: [returned_field1, returned_field2, ... = api(#argument1='value1', #argument2=returned_field)]
- Use the app that owns the API; an API can only run through its own app.
- Quote values the user gave (#city='San Jose'). Dates are YYYY-MM-DD, times HH:MM; today is {REFERENCE_DATE}.
- A value that only an earlier API can provide is written unquoted as the name of the field that API returns
  (#restaurant_name=restaurant_name); it takes the value from the first result of the latest call returning it.
- Leave out optional arguments the user did not specify.
A JSON list of {{"app", "api", "arguments", "returns"}} objects is also accepted; there a reference is "#field"."""


def _describe_api(tool_name: str) -> str:
    spec = AppBenchTools.specs[tool_name]
    args = []
    for name, parameter in spec.parameters.items():
        public = _PUBLIC.get(name, name)
        doc = spec.param_docs.get(name, "").rstrip(".")
        args.append(f"{public} ({'required' if parameter.required else 'optional'}): {doc}")
    api = tool_name.split("_", 1)[1]
    return (f"  - {api}: {spec.description}\n      arguments: " + "; ".join(args) +
            f"\n      returns: {', '.join(RETURNS[tool_name])}")


def describe_apps(apps: list[str], with_apis: bool) -> str:
    return _describe_apps(tuple(apps), with_apis)


@functools.lru_cache(maxsize=64)
def _describe_apps(apps: tuple[str, ...], with_apis: bool) -> str:
    lines = []
    for app in apps:
        lines.append(f"{app}: {APPS[app]}")
        if with_apis:
            lines += [_describe_api(t) for t in AppBenchWorld.apis_of(app).values()]
    return "\n".join(lines)


def api_schemas(apps: list[str]) -> list[dict]:
    """OpenAI-style schemas of the apps' APIs, named ``<App>_<api>``, with the returned fields.

    Built once per app selection (they are in every step's info); the schema dicts are shared.
    """
    return list(_api_schemas(tuple(apps)))


@functools.lru_cache(maxsize=64)
def _api_schemas(apps: tuple[str, ...]) -> tuple[dict, ...]:
    schemas = []
    for app in apps:
        for tool_name in AppBenchWorld.apis_of(app).values():
            schema = AppBenchTools.specs[tool_name].schema()
            fn = schema["function"]
            params = fn["parameters"]
            params["properties"] = {_PUBLIC.get(k, k): v for k, v in params["properties"].items()}
            params["required"] = [_PUBLIC.get(k, k) for k in params["required"]]
            fn["description"] += f" Returns: {', '.join(RETURNS[tool_name])}."
            schemas.append(schema)
    return tuple(schemas)


class AppBenchEnv(ToolEnv):
    """
    ## Description
    AppBench (Wang et al. 2024, "AppBench: Planning of Multiple APIs from Various APPs for
    Complex User Instruction"): a meta-agent turns one complex user instruction into a plan of
    API calls across 13 phone apps (plus two distractor apps, Homes and Media): which app runs
    each call, in what order, with which arguments, where some arguments are values returned
    by earlier calls. Tasks come in four categories (splits): single app / single API (ss),
    single app / multiple APIs (sm), multiple apps / single API each (ms) and multiple apps /
    multiple APIs (mm). Unlike the original, every app has a real database (restaurants,
    cars, houses, trains, flights, buses, events, movies, songs, payments, weather, ...), so
    plans can be executed; an API runs only through the app that owns it.

    ## Action Space
    A string. ``mode="plan"`` (the paper's setting): the whole plan, one call per line,
    ``App: [ret1, ret2 = api(#k1='v1', #k2=ret)]`` (quoted = literal, bare name or ``#name`` =
    reference to an earlier call's returned field), or a JSON list of ``{"app", "api",
    "arguments", "returns"}`` with references written ``"#field"``. With
    ``prompting="hierarchical"`` the first action may be ``select_apps[App1, App2]``.
    ``mode="interactive"``: one call per step, in any of the forms its prompt shows: the plan
    line ``App: [api(#k='v')]`` (or its JSON object), the tool of ``info["tools"]`` called as
    ``<App>_<api>(k='v')`` (``#`` before keys and references optional, as in plan lines) or
    ``{"name": "<App>_<api>", "arguments": {...}}``; then ``finish`` (any text without a call
    also finishes).

    ## Observation Space
    A string. At reset: the instruction, the apps and (``prompting="flat"``) every API with
    its arguments and returned fields; with ``"hierarchical"`` only app descriptions until
    ``select_apps``. After a plan: how it was read, and every problem found (unreadable lines,
    unknown apps or APIs, permission errors, unknown or missing arguments, and, on built-in
    tasks, the execution results). In interactive mode: each call's result or error as JSON.
    ``info`` has ``messages`` (system + user prompt), ``tools`` (schemas of the visible APIs),
    ``apps``, ``instruction`` and ``dependency`` (the ground truth's sequential and parallel
    scale, section 5.1).

    ## Rewards
    Paper metric: **Succ** (Table 3), the episode return. ``info["metrics"]`` at the end has the
    per-episode counts ``app_hits, app_pred, app_gt, api_hits, api_pred, api_gt`` (a table
    micro-averages F1_app and F1_api over a category from them), ``em_app``, ``em_api``,
    ``succ`` and ``success`` (the same 0/1 value: the paper's name, and the one every toolgym
    env reports), the error analysis of Table 4 (``args_indep, args_dep, key_err_indep, key_err_dep,
    value_err_indep, value_err_dep, err_time, err_space``), ``sequential_scale``,
    ``parallel_scale`` and, on built-in tasks, ``exec_ok`` (every call ran) and ``db_match``
    (the database effects equal the ground-truth plan's). Interactive mode scores the plan it
    executed (the calls that ran without error; a copied returned value counts as the reference
    the ground truth has there) and rewards increments of Succ after each call.

    Scoring ``"paper"`` (default), the paper's definitions: hits are multiset intersections
    of app names and of API names; Succ needs every call matched one to one (same app, API and
    argument keys, values equal after case and quote normalisation, references naming the
    same field), no extra call and no unreadable line; EM is multiset equality.
    ``"paper_compat"`` reproduces the released script (ruleGreen/AppBench
    ``evaluation.py``) exactly: it reads only ``App: [...]`` lines, counts at most one hit per
    sample in F1 (so a perfect plan scores about 0.45 / 0.37 / 0.27 F1_app on SM / MS / MM),
    compares values by substring (an empty value matches anything), accepts the user's
    literal where the ground truth has a reference, keys calls by API name (a repeated API is
    checked once) and ignores extra arguments.

    ## Starting State
    The seeded world database (``world_seed``), restored at every reset; the clock at
    2019-03-01, the paper's reference date.

    ## Episode End
    Plan mode: terminated after the plan. Interactive mode: terminated by ``finish``,
    truncated after ``max_steps`` actions.

    ## Arguments
    - ``tasks``: ``"built-in"`` (default: ``tasks_per_category`` generated tasks per category)
      or ``"official"`` (``test_{ss,sm,ms,mm}.json`` from ``data_dir`` or ``$TOOLGYM_DATA``;
      task ids ``<split>-<index>``; plan mode only, since the official samples name businesses
      the world does not hold).
    - ``split``: ``"ss"``, ``"sm"``, ``"ms"``, ``"mm"`` or None for all.
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``mode``: ``"plan"`` (default) or ``"interactive"``.
    - ``prompting``: ``"flat"`` (all APIs shown) or ``"hierarchical"`` (apps first, section 5.2).
    - ``world_seed``, ``tasks_per_category``: the built-in world and task set.
    - ``max_steps``: interactive step limit. ``db_url``: the world database: in-memory SQLite by default, or
      ``sqlite:///path.db``, built once and then only read (see ``World``).

    ## Version History
    - v0: initial version.
    """

    env_id = "AppBench-v0"
    splits = {"built-in": CATEGORIES, "official": CATEGORIES}
    scorings = ("paper", "paper_compat")
    modes = ("plan", "interactive")
    table_columns = (
        Column("F1_app", "f1", ("app_hits", "app_pred", "app_gt")),
        Column("F1_api", "f1", ("api_hits", "api_pred", "api_gt")),
        Column("Succ", "mean", ("succ",)),
        Column("EM_app", "mean", ("em_app",)),
        Column("EM_api", "mean", ("em_api",)),
    )

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 prompting: str = "flat", world_seed: int = 0, tasks_per_category: int = 200, max_steps: int = 30,
                 db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if prompting not in PROMPTINGS:
            raise ValueError(f"{self.env_id}: prompting must be one of {PROMPTINGS}, got {prompting!r}")
        if tasks == "official" and self.mode == "interactive":
            raise ValueError(f"{self.env_id}: the official samples name businesses and places the world does not "
                             "hold, so they run in mode='plan' only")
        if tasks_per_category < 1 or max_steps < 1:
            raise ValueError(f"{self.env_id}: tasks_per_category and max_steps must be positive")
        self.prompting = prompting
        self.max_steps = max_steps
        if self.mode == "interactive":  # for toolgym's LLM agent: native tool calls, not a plan
            self.prompt_format, self.action_format = "chat", "tool_call"
        self.world = AppBenchWorld(url=db_url, seed=world_seed)
        self._initial = self.world.snapshot()
        if tasks == "official":
            task_list = load_official(self.env_id, data_dir, split)
        else:
            builtin = builtin_task_set(self.world, world_seed, tasks_per_category)
            task_list = [t for t in builtin.tasks if split is None or t.category == split]
            self._effects = builtin.effects
        self.tasks = {t.task_id: t for t in task_list}
        self._structures: dict[str, dict] = {}  # task id -> dependency_structure of its plan
        self.task: AppTask | None = None
        self._system: str | None = None
        self._done = True

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (OFFICIAL_LAYOUT,)}

    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def task_split(self, task_id: str) -> str:
        return self.tasks[task_id].category

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        self.task = self.tasks[self.task_id]
        self.world.restore(self._initial)
        # The rows the ground-truth plan writes, computed with the task set.
        self._expected_effects = self._effects[self.task_id] if self.task_set == "built-in" else None
        self._visible = list(APPS) if self.prompting == "flat" else []
        self._history: list[Executed] = []
        self._done = False
        if self._system is None:  # the same for every task of the env
            self._system = self._system_prompt()
        self._messages = [{"role": "system", "content": self._system},
                          {"role": "user", "content": self.task.instruction}]
        return self._messages[0]["content"] + "\n\nUser instruction: " + self.task.instruction, self._info()

    def _system_prompt(self) -> str:
        if self.prompting == "hierarchical":
            head = ("You plan API calls on a phone to fulfil the user's instruction. First choose the apps you need "
                    "by answering select_apps[App1, App2, ...]; you will then see their APIs.\n\nApps:\n")
            return head + describe_apps(list(APPS), with_apis=False)
        return self._apis_prompt(list(APPS))

    def _apis_prompt(self, apps: list[str]) -> str:
        if self.mode == "interactive":
            task = ("You fulfil the user's instruction by calling phone APIs, one call per step, written as "
                    "App: [api(#argument='value', ...)], as the tool <App>_<api>(argument='value', ...) or as "
                    "{\"name\": \"<App>_<api>\", \"arguments\": {...}}; you see each result. An "
                    "argument written #field takes the value of that field from the first result of the latest "
                    f"call returning it. Dates are YYYY-MM-DD, times HH:MM; today is {REFERENCE_DATE}. Answer "
                    "finish when done.")
        else:
            task = "You plan the API calls on a phone that fulfil the user's instruction.\n" + PLAN_RULES
        return f"{task}\n\nApps and APIs:\n{describe_apps(apps, with_apis=True)}"

    def _act(self, action: Any) -> Outcome:
        content = action if isinstance(action, str) else json.dumps(action, default=str)
        self._messages.append({"role": "assistant", "content": content})
        selection = _SELECT.match(action) if isinstance(action, str) else None
        if selection is not None:
            observation = self._select_apps(selection["apps"])
        elif self.mode == "plan":
            return self._finish_plan(action)
        elif isinstance(action, str) and (_FINISH.match(action) or not re.search(r"[({]", action)):
            # like a text reply in a conversation, text without any call ends the episode
            return self._end(self._executed_calls(), [], "Finished.", terminated=True)
        else:
            observation = self._interactive_call(action)
        return self._going_on(observation, progress=self._succ() if self.mode == "interactive" else None)

    def _refuse(self, error: str) -> Outcome:
        # Plan mode: a plan that could not be read. Interactive mode: a call that could not be read.
        self._messages.append({"role": "assistant", "content": "(action not shown)"})
        if self.mode == "plan":
            return self._end([], [error], f"Plan not read: {error}", terminated=True, plan_text="")
        return self._going_on(json.dumps({"response": None, "exception": error}), progress=None)

    def _going_on(self, observation: str, progress: float | None) -> Outcome:
        """A step that did not end the episode by itself; the step limit may end it."""
        self._messages.append({"role": "user", "content": observation})
        if self._steps >= self.max_steps and self.mode == "interactive":
            return self._end(self._executed_calls(), [], observation + f"\n[stopped after {self.max_steps} steps]",
                             terminated=False)
        if self._steps >= self.max_steps:
            return self._finish_plan("")
        return Outcome(observation, truncated=False, progress=progress)

    def _select_apps(self, text: str) -> str:
        names = [n.strip().strip("'\"") for n in text.split(",") if n.strip()]
        known = {a.lower(): a for a in APPS}
        chosen = [known[n.lower()] for n in names if n.lower() in known]
        unknown = [n for n in names if n.lower() not in known]
        for app in chosen:
            if app not in self._visible:
                self._visible.append(app)
        note = f"Unknown app(s): {', '.join(unknown)}. " if unknown else ""
        if not chosen:
            return note + "No app selected; answer select_apps[App1, ...] with names from the app list."
        return note + self._apis_prompt(chosen)

    # -- plan mode -------------------------------------------------------------------------
    def _finish_plan(self, action: Any):
        if isinstance(action, dict) and ("name" in action or "function" in action):
            call, error = _read_one_call(action)  # a single native tool call is a one-call plan
            parsed = ParsedPlan([call] if call else [], [error] if error else [])
        else:
            parsed = parse_plan(action)
        if parsed.errors:
            self._note_invalid_action()
        static = _static_problems(parsed.calls)
        problems = list(parsed.errors) + [p for ps in static.values() for p in ps]
        lines = [f"Plan read: {len(parsed.calls)} call(s)."]
        if self.task_set == "built-in":
            history = self.world.execute_plan(parsed.calls)
            for i, done in enumerate(history, 1):
                if done.result.ok:
                    lines.append(f"call {i} {done.call.app}.{done.call.api}: ok")
                elif i not in static:  # a call with a problem found above fails for that reason
                    problems.append(f"call {i} {done.call.app}.{done.call.api}: {done.result.error}")
            self._history = history
        text = "\n".join(lines + problems) if problems or parsed.calls else "Empty plan: no API call was read."
        return self._end(parsed.calls, parsed.errors, text, terminated=True, plan_text=action)

    # -- interactive mode ------------------------------------------------------------------
    def _interactive_call(self, action: Any) -> str:
        call, error = _read_one_call(action)
        if call is None:
            self._note_invalid_action()
            return json.dumps({"response": None, "exception": error})
        done = self.world.execute(call, [h for h in self._history if h.result.ok])
        self._history.append(done)
        text = json.dumps({"app": call.app, "api": call.api, "response": done.result.response,
                           "exception": done.result.error}, default=str)
        return text if len(text) <= MAX_OBSERVATION else text[:MAX_OBSERVATION] + " ...(truncated)"

    def _executed_calls(self) -> list[Call]:
        """The calls that ran without error. An agent that sees results may copy a returned
        value instead of writing ``#field``: a literal equal to what the ground truth's
        reference resolves to at that point of the agent's own run counts as that reference."""
        truth: dict[tuple[str, str], list[Call]] = {}
        for call in self.task.calls:
            truth.setdefault((call.app.lower(), call.api.lower()), []).append(call)
        seen: Counter = Counter()
        calls, ran = [], []
        for done in self._history:
            if not done.result.ok:
                continue
            key = (done.call.app.lower(), done.call.api.lower())
            arguments = dict(done.call.arguments)
            matches = truth.get(key, [])
            if seen[key] < len(matches):
                for name, expected in matches[seen[key]].arguments.items():
                    given = arguments.get(name)
                    if isinstance(expected, Ref) and isinstance(given, str):
                        value = resolve(expected, ran)
                        if value is not None and _same_value(value, given):
                            arguments[name] = expected
            seen[key] += 1
            ran.append(done)
            calls.append(Call(done.call.app, done.call.api, arguments, returned_fields(done.call)))
        return calls

    def _succ(self) -> float:
        """Interactive mode: the success rate of the calls that ran so far (the reward's metric)."""
        calls = self._executed_calls()
        return self._score(calls, [], render_plan(calls))["succ"]

    # -- scoring ---------------------------------------------------------------------------
    def _score(self, calls: list[Call], errors: list[str], plan_text: Any) -> dict:
        task = self.task
        strict = score_paper(calls, errors, task.calls, task.apps)
        if self.scoring == "paper":
            return strict
        text = plan_text if isinstance(plan_text, str) else ""
        if isinstance(plan_text, (list, dict)) or text.strip().startswith(("[{", "{")):
            text = render_plan(calls)  # the script reads text only; a JSON plan is written out first
        compat = score_paper_compat(text, task.plan_lines, task.apps, task.user_values)
        analysis = {k: v for k, v in strict.items() if k not in compat}
        return {**analysis, **compat}

    def _end(self, calls: list[Call], errors: list[str], observation: str, terminated: bool,
             plan_text: Any = None) -> Outcome:
        if plan_text is None:
            plan_text = render_plan(calls)
        metrics = self._score(calls, errors, plan_text)
        structure = self._structure()
        metrics.update(sequential_scale=structure["sequential_scale"], parallel_scale=structure["parallel_scale"])
        if self.task_set == "built-in":
            metrics["exec_ok"] = float(bool(self._history) and all(h.result.ok for h in self._history))
            metrics["db_match"] = float(self.world.effects() == self._expected_effects)
        self._final_metrics = metrics
        self._messages.append({"role": "user", "content": observation})
        return Outcome(observation, terminated=terminated, truncated=not terminated, progress=metrics["succ"],
                       info={"plan": render_plan(calls)})

    def _metrics(self) -> dict:
        return self._final_metrics

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()  # the env keeps the conversation

    def _info(self) -> dict:
        info = self.base_info(self.task_id)
        info.update(instruction=self.task.instruction, apps=list(APPS), prompting=self.prompting,
                    tools=api_schemas(self._visible), messages=[dict(m) for m in self._messages],
                    dependency={**self._structure(), "component_sizes": list(self._structure()["component_sizes"])})
        return info

    def _structure(self) -> dict:
        """The dependency structure of the task's ground-truth plan (computed once per task)."""
        if self.task_id not in self._structures:
            self._structures[self.task_id] = dependency_structure(self.task.calls)
        return self._structures[self.task_id]

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        task = self.task
        if self.prompting == "hierarchical" and not self._visible:
            return f"select_apps[{', '.join(dict.fromkeys(c.app for c in task.calls))}]"
        if self.mode == "plan":
            return "\n".join(f"{c.app}: [{line}]" for c, line in zip(task.calls, task.plan_lines))
        done = len(self._executed_calls())
        return task.calls[done].render() if done < len(task.calls) else "finish"

    def render(self):
        if self.render_mode == "ansi":
            return "\n\n".join(f"{m['role']}: {m['content']}" for m in self._messages)
        return None


def _same_value(a: str, b: str) -> bool:
    return a.strip().strip("'\"").lower() == b.strip().strip("'\"").lower()


def _static_problems(calls: list[Call]) -> dict[int, list[str]]:
    """What is wrong with a plan's calls without running them (routing, argument names), by call number."""
    problems: dict[int, list[str]] = {}
    for i, call in enumerate(calls, 1):
        tool_name, error = AppBenchWorld.route(call.app, call.api)
        if tool_name is None:
            problems[i] = [f"call {i}: {error}"]
            continue
        parameters = AppBenchTools.specs[tool_name].parameters
        known = {_PUBLIC.get(k, k) for k in parameters}
        required = {_PUBLIC.get(k, k) for k, p in parameters.items() if p.required}
        unknown = sorted(set(call.arguments) - known)
        missing = sorted(required - set(call.arguments))
        if unknown:
            problems.setdefault(i, []).append(f"call {i} {call.app}.{call.api}: unknown argument(s) {', '.join(unknown)}")
        if missing:
            problems.setdefault(i, []).append(
                f"call {i} {call.app}.{call.api}: missing required argument(s) {', '.join(missing)}")
    return problems


def _split_tool_name(call: Call) -> Call:
    """A call written with the tool name, ``Restaurants_findrestaurants(...)``, as the plan call
    ``Restaurants: [findrestaurants(...)]``; other calls as they are."""
    app, _, api = call.api.partition("_")
    if call.app or not api or app.lower() not in {a.lower() for a in APPS}:
        return call
    return Call(app, api, call.arguments, call.returns)


def _read_one_call(action: Any) -> tuple[Call | None, str | None]:
    """An interactive action as one call, or the reason it is not one."""
    if isinstance(action, str) and action.strip().startswith("{"):
        try:
            action = json.loads(action)
        except (json.JSONDecodeError, RecursionError) as exc:
            return None, f"malformed JSON call: {exc}"
    if isinstance(action, dict):
        if isinstance(action.get("function"), dict):
            action = action["function"]
        if "name" in action and "api" not in action:
            call = parse_action(action)  # the shared reading of a call by name (arguments as JSON text too)
            if isinstance(call, ToolCall) and isinstance(call.arguments, str):
                return None, "the arguments of a call must be a JSON object"
            if not isinstance(call, ToolCall) or "_" not in call.name:
                return None, "a call by name needs a tool name <App>_<api> from info['tools']"
            app, api = call.name.split("_", 1)
            action = {"app": app, "api": api, "arguments": call.arguments}
        parsed: ParsedPlan = parse_plan_json([action])
    elif isinstance(action, str):
        parsed = parse_plan(action)
        parsed.calls = [_split_tool_name(call) for call in parsed.calls]
    else:
        return None, f"an action is a string or a JSON object, not {type(action).__name__}"
    if parsed.errors:
        return None, "; ".join(parsed.errors)
    if len(parsed.calls) != 1:
        return None, ("write exactly one API call per step, as App: [api(#argument='value')], or answer finish"
                      if not parsed.calls else "only one API call per step; send the others in later steps")
    return parsed.calls[0], None
