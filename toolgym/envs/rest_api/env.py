"""OpenWeather-v0 and CatAPI-v0: the SambaNova ToolBench REST tasks over simulated services."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

from toolgym.envs.common.actions import ToolCall, Unparseable, extract_curl, extract_program, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column, f1
from toolgym.envs.rest_api.docs import CATAPI_DOCS, OPENWEATHER_DOCS
from toolgym.envs.common.official import OfficialLayout, toolbench_layout
from toolgym.envs.rest_api.tasks import load_official
from toolgym.envs.common.toolbench_prompt import prompt_info
from toolgym.worlds.base import World
from toolgym.worlds.catapi import CatWorld, cat_service
from toolgym.worlds.catapi.tasks import builtin_catapi
from toolgym.worlds.openweather import OpenWeatherWorld, openweather_service
from toolgym.worlds.openweather.tasks import builtin_openweather
from toolgym.worlds.rest import CurlError, HttpResponse, RestService, parse_curl
from toolgym.worlds.rest.tasks import RestTask, TaskSet

GOAL = ("Your goal is to call {service} to complete the user's task. Answer with one curl "
        "command on a single line after \"Action:\". {key}")


def key_f1(predicted: Any, truth: Any) -> float:
    """The original evaluator's partial score: F1 over top-level keys whose values are equal.

    A list is keyed by position, as the original does; any other body is one value.
    """
    pred, label = _keyed(predicted), _keyed(truth)
    if not pred and not label:
        return 1.0
    hits = sum(1 for k, v in pred.items() if k in label and label[k] == v)
    return f1(hits, len(pred), len(label))


def _keyed(body: Any) -> dict:
    if isinstance(body, dict):
        return body
    if isinstance(body, list):
        return dict(enumerate(body))
    return {0: body}


def same_command(predicted: Any, truth: str) -> bool:
    """The original's verbatim check: runs of spaces and tabs count as one space."""
    def norm(text: str) -> str:
        return re.sub(r"[ \t]+", " ", text).strip()
    return isinstance(predicted, str) and norm(predicted) == norm(truth)


class RestApiEnv(ToolEnv):
    """Shared machinery of the ToolBench REST tasks (see :class:`OpenWeatherEnv`)."""

    scorings = ("paper", "paper_compat")
    table_columns = (
        Column("Executable", "mean", ("executable",)),
        Column("Success", "mean", ("success",)),
        Column("Key F1", "mean", ("key_f1",)),
    )
    service_name: ClassVar[str] = ""
    key_hint: ClassVar[str] = ""  # where the API key goes, for the prompt's goal
    official_subdir: ClassVar[str] = ""
    api_docs: ClassVar[str] = ""
    default_headers: ClassVar[dict[str, str]] = {}
    key_query: ClassVar[dict[str, str]] = {}  # query parameters a tool call's request carries (the key)
    max_action_chars: ClassVar[int] = 20_000  # one curl command

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 k_shot: int = 3, world_seed: int = 0):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if k_shot < 0:
            raise ValueError(f"{self.env_id}: k_shot must be 0 or more")
        self.k_shot = k_shot
        self.world = self.make_world(world_seed)
        self.service = self.make_service(self.world)
        self._tools = self.service.tool_schemas()
        builtin = self.builtin_tasks(world_seed)
        if tasks == "official":
            official = load_official(self.env_id, data_dir, self.official_subdir)
            # The released data has no demonstration pool of its own (the doc sheets' examples
            # overlap the test set), so official tasks use the built-in pool too.
            self.task_data = TaskSet({t.task_id: t for t in official}, builtin.demos)
        else:
            self.task_data = builtin
        self._base = self.world.snapshot()
        self._placeholders = {"API_KEY": self.world.aux["api_key"]}
        self._truths: dict[str, HttpResponse] = {}
        self.goal = GOAL.format(service=self.service_name, key=self.key_hint)
        self.task: RestTask | None = None
        self._done = True
        self._last_observation = ""

    # -- per-service hooks ------------------------------------------------------------------
    def make_world(self, seed: int) -> World:
        raise NotImplementedError

    def make_service(self, world: World) -> RestService:
        raise NotImplementedError

    def builtin_tasks(self, seed: int) -> TaskSet:
        """The built-in tasks and demo pool, generated over ``self.world``."""
        raise NotImplementedError

    def apply_setup(self, task: RestTask) -> None:
        """Put into the world what the task presupposes (``task.setup``)."""

    def compat_not_executable(self, command: str, response: HttpResponse) -> str | None:
        """Why the original evaluator would count an answered request as a crash (paper_compat)."""
        return None

    # -- tasks ------------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (toolbench_layout(cls.official_subdir),)} if cls.official_subdir else {}

    def task_ids(self) -> list[str]:
        return list(self.task_data.tasks)

    def task_records(self) -> dict:
        return {"tasks": self.task_data.tasks, "demos": self.task_data.demos}

    # -- episode ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        task_id = self._choose_task(options)
        self.task = self.task_data.tasks[task_id]
        self._start_state()
        self._done = False
        self._last_observation = self.task.query
        info = self.base_info(task_id)
        prompt = prompt_info(self.goal, self.api_docs, self.task_data.demos, self.task.query, self.k_shot,
                             gold=(self.task.action,))
        info["messages"] = prompt.pop("messages")
        info["prompt"] = prompt
        info["tools"] = [dict(t) for t in self._tools]
        return self.task.query, info

    def _start_state(self) -> None:
        """The task's initial state; its ground-truth response is computed once, on a copy."""
        self.world.restore(self._base)
        self.apply_setup(self.task)
        if self.task.task_id not in self._truths:
            initial = self.world.snapshot()
            self._truths[self.task.task_id] = self.service.handle(self._request(self.task.action))
            self.world.restore(initial)

    def _act(self, action: Any) -> Outcome:
        command, error = self._command(action)
        truth = self._truths[self.task.task_id]
        response = None
        if error is None:
            try:
                response = self.service.handle(self._request(command))
            except CurlError as exc:
                error = str(exc)
        if response is None:  # no request was read from the action
            self._note_invalid_action()
        if response is not None and not response.ok:
            error = f"HTTP {response.status}: {response.text()[:500]}"
        if error is None and self.scoring == "paper_compat":
            error = self.compat_not_executable(command, response)
        executable = error is None
        if self.task.compare_string_only:
            success = same_command(command, self.task.action)
            if self.scoring == "paper_compat":
                executable = success  # the original counts every mismatch as a crash
            partial = float(success)
        else:
            success = executable and response.body == truth.body
            partial = key_f1(response.body, truth.body) if executable else 0.0
        self._judged = {"executable": int(executable), "success": int(success), "key_f1": partial}
        if response is not None and response.status:
            observation = f"HTTP {response.status}\n{response.text()}"
        else:
            observation = f"Not executable: {error}"
        self._last_observation = observation
        return Outcome(observation, terminated=True, progress=int(success),
                       info={"ground_truth": self.task.action, "command": command})

    def _refuse(self, error: str) -> Outcome:
        # A command that could not be read: not executable, the episode's one attempt used.
        self._judged = {"executable": 0, "success": 0, "key_f1": 0.0}
        self._last_observation = f"Not executable: {error}"
        return Outcome(self._last_observation, terminated=True,
                       info={"ground_truth": self.task.action, "command": None})

    def _metrics(self) -> dict:
        return dict(self._judged)

    def _step_info(self, turn: Any, observation: str) -> dict:
        # One request per episode: the step's info is the task's, with the judgement.
        return self.base_info(self.task.task_id)

    def api_call_sequences(self) -> dict[str, list[list[str]]]:
        """The API call of every test task's ground truth and of every demonstration."""
        def calls(command: str) -> list[str]:
            try:
                signature = self.service.call_signature(self._request(command))
            except CurlError:
                return []
            return [signature] if signature else []

        return {"tests": [calls(t.action) for t in self.task_data.tasks.values()],
                "demos": [calls(d.action) for d in self.task_data.demos]}

    def oracle_action(self) -> str:
        if self.task is None:
            raise RuntimeError(f"{self.env_id}: call reset() before oracle_action()")
        return self.task.action

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_observation
        return None

    # -- helpers ----------------------------------------------------------------------------
    def _command(self, action: Any) -> tuple[Any, str | None]:
        """The command to judge, or None and the reason there is none.

        A string is read as a model's completion: its action is extracted
        (:func:`~toolgym.envs.common.actions.extract_program`: up to the next ``Task:``, a code block's
        body, the text after ``Action:``), which is the command (paper), or of which the first
        curl line is kept (paper_compat, :func:`~toolgym.envs.common.actions.extract_curl`). A tool call
        of ``info["tools"]`` (JSON or ``Name(k=v)``) stands for the curl command of its request.
        """
        if isinstance(action, str):
            text = extract_curl(action) if self.scoring == "paper_compat" else extract_program(action)
            if text.startswith("curl"):
                return text, None
            parsed = parse_action(text)
        elif isinstance(action, dict):
            text, parsed = None, parse_action(action)
        else:
            return action, None  # the curl reader says what is wrong with it
        if isinstance(parsed, Unparseable):
            return None, parsed.error
        if isinstance(parsed, ToolCall):
            try:
                return self.service.curl_for_call(parsed.name, parsed.arguments, self.key_query), None
            except CurlError as exc:
                return None, str(exc)
        return text, None  # other text: judged as a command, which says why it is not one

    def _request(self, command: Any):
        request = parse_curl(command, self._placeholders)
        if self.default_headers:
            defaults = {k: v.format(**self._placeholders) for k, v in self.default_headers.items()}
            request = dataclasses.replace(request, headers={**defaults, **request.headers})
        return request


class OpenWeatherEnv(RestApiEnv):
    """
    ## Description
    OpenWeather, a task of the SambaNova ToolBench (Xu et al. 2023, "On the Tool Manipulation
    Capability of Open-source Large Language Models", appendix A.1). The agent turns a
    weather question into one ``curl`` command for the OpenWeather REST API. The API is
    simulated: the command is parsed with ``shlex`` (never run in a shell) and routed to the
    nine call types of the paper (current weather and 5-day forecast by city name, zip code
    or latitude/longitude; current and forecast air pollution; direct geocoding), answered
    from a seeded database of cities and zip codes and a deterministic weather model, with
    the real API's JSON shapes and errors (``cod`` 400 / 401 / 404).

    ## Action Space
    A string: one curl command on one line, e.g.
    ``curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=reno&appid={API_KEY}&units=metric'``.
    ``{API_KEY}`` stands for the key. The string may be a model's raw completion of the
    prompt: the action is read from it with :func:`toolgym.envs.common.actions.extract_program`
    (cut at the next line starting with ``Task:`` or ``-----``, a code block's body, else the
    text after an ``Action:`` cue). Other text, a second command, pipes, redirections and
    unsupported curl options are not executable.

    A call of one of the functions in ``info["tools"]`` (one per endpoint: ``current_weather``
    and ``forecast`` by city ``q``, ``zip`` or ``lat`` / ``lon``; ``air_pollution``,
    ``air_pollution_forecast``, ``geocode_direct``), as a dict or JSON text
    ``{"name": "current_weather", "arguments": {"q": "reno", "units": "metric"}}`` or as
    ``current_weather(q="reno", units="metric")``, is also an action: it stands for the curl
    command that makes its request (arguments in the query string, ``appid={API_KEY}`` last),
    which is judged exactly as if the agent had sent it; ``info["command"]`` shows the
    command judged. Unknown functions or arguments are not executable. The paper's action is
    the curl command.

    ## Observation Space
    A string: first the user's query; after the step, ``HTTP <status>`` and the response
    body, or ``Not executable: <reason>``. ``info["prompt"]`` holds the paper's prompt
    material (``system_prompt`` of Figure 5, the ``api_docs``, the ``k_shot`` BM25-retrieved
    ``demos``), ``info["messages"]`` the system prompt and the task turn.

    ## Rewards
    Paper metric: **success rate** (appendix A.1). The episode return is ``success``: 1 when
    the command is executable and its response equals the response to the ground-truth
    request executed on the same initial state. ``info["metrics"]`` holds ``executable``
    (parsed and answered with a success status), ``success`` and ``key_f1`` (the released
    evaluator's F1 over the response's top-level keys with equal values, for analysis).

    Scoring: ``"paper"`` (default) judges the whole extracted action as one command.
    ``"paper_compat"`` follows the released evaluator: of the extracted action it keeps the
    first line that starts with ``curl`` (:func:`toolgym.envs.common.actions.extract_curl`), and it
    counts a command that does not end with ``'`` and any XML response as not executable.
    Under both scorings toolgym reads a completion more leniently than the released code,
    whose generator stops the model at ``Task:`` or ``------`` and which judges the rest as it
    is: toolgym also drops code fences and an ``Action:`` cue and joins lines continued with
    a backslash (paper_compat), which the released evaluator would count as crashes.

    ## Starting State
    The seeded world (cities, zip codes, clock at 2023-09-11 09:00 UTC) and the task's query.

    ## Episode End
    Terminated after the one step.

    ## Arguments
    - ``tasks``: ``"built-in"`` (default: 108 generated tasks, 12 per call type) or
      ``"official"`` (the paper's 100 tasks, ``open_weather/test.jsonl`` from ``data_dir`` or
      ``$TOOLGYM_DATA``; ids are line numbers "0" ... "99").
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``k_shot``: number of retrieved demonstrations in the prompt (3, as the paper).
    - ``world_seed``: seed of the world and the built-in tasks.

    ## Version History
    - v0: initial version.
    """

    env_id = "OpenWeather-v0"
    service_name = "the OpenWeather API"
    key_hint = "Write {API_KEY} where the API key goes."
    official_subdir = "open_weather"
    api_docs = OPENWEATHER_DOCS
    key_query = {"appid": "{API_KEY}"}

    def make_world(self, seed: int) -> OpenWeatherWorld:
        return OpenWeatherWorld(seed=seed)

    def make_service(self, world: OpenWeatherWorld) -> RestService:
        return openweather_service(world)

    def builtin_tasks(self, seed: int) -> TaskSet:
        return builtin_openweather(seed)

    def compat_not_executable(self, command: str, response: HttpResponse) -> str | None:
        if not command.strip("\n").endswith("'"):
            return "the released evaluator needs the command to end with '"
        if isinstance(response.body, str):
            return "the released evaluator cannot read an XML response"
        return None


class CatAPIEnv(RestApiEnv):
    """
    ## Description
    The Cat API, a task of the SambaNova ToolBench (Xu et al. 2023, appendix A.2). The agent
    turns a request about cat images into one ``curl`` command for The Cat API. The API is
    simulated over stateful tables of breeds, images, favourites and votes: the six call
    types of the paper are image search (``size``, ``mime_types``, ``order`` ASC / DESC /
    RANDOM from a seeded stream, ``limit``, ``page``, ``breeds``), list favourites, add a
    favourite (POST JSON ``image_id``), delete a favourite, vote up and vote down (POST
    ``image_id`` and ``value`` 1 or -1), with the real API's response shapes
    (``{"message": "SUCCESS", "id": ...}``) and plain-text errors. The API key header is
    added for the agent, as the released evaluator does.

    ## Action Space
    A string: one curl command on one line, e.g.
    ``curl -X POST 'https://api.thecatapi.com/v1/votes' --data '{"image_id":"alp", "value":1}'``,
    read from a raw completion as in OpenWeather-v0. Other text, a second command, pipes,
    redirections and unsupported options are not executable.

    As in OpenWeather-v0, a call of one of the functions in ``info["tools"]``
    (``search_images``, ``list_favourites``, ``add_favourite``, ``delete_favourite``, ``vote``;
    JSON or ``vote(image_id="alp", value=1)``) stands for the curl command of its request
    (a path parameter in the path, the arguments of a POST as its JSON body, the others in the
    query string) and is judged exactly as that command, also by the verbatim comparison of
    DELETE tasks; ``info["command"]`` shows it.

    ## Observation Space
    As OpenWeather-v0: the query, then ``HTTP <status>`` and the body, or the reason the
    command is not executable; ``info["prompt"]`` and ``info["messages"]`` hold the paper's
    prompt material.

    ## Rewards
    Paper metric: **success rate** (appendix A.2). Return = ``success``: the response equals
    the ground-truth request's response on a separate copy of the same initial state; DELETE
    tasks (``compare_string_only``) compare the command with the ground truth verbatim (runs
    of blanks count as one), as the paper does. ``info["metrics"]``: ``executable``,
    ``success``, ``key_f1`` (the released evaluator's top-level-key F1).

    Scoring: ``"paper"`` (default): the whole extracted action is the command; a DELETE
    command is executable when the simulated call succeeds. ``"paper_compat"``: as the
    released evaluator, a DELETE command that differs from the ground truth counts as not
    executable, and only the first ``curl`` line of the extracted action is judged. Both read
    a completion more leniently than the released code (see OpenWeather-v0).

    ## Starting State
    The seeded world (about 1,100 images, 8 favourites, 5 votes), plus what the task
    presupposes: the image a DELETE task removes is a favourite, the image an add task adds
    is not yet one, and the images the official tasks name exist.

    ## Episode End
    Terminated after the one step.

    ## Arguments
    - ``tasks``: ``"built-in"`` (default: 102 generated tasks, 17 per call type) or
      ``"official"`` (the paper's 100 tasks, ``the_cat_api/test.jsonl``; ids "0" ... "99").
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``k_shot``: number of retrieved demonstrations in the prompt (3, as the paper).
    - ``world_seed``: seed of the world and the built-in tasks.

    ## Version History
    - v0: initial version.
    """

    env_id = "CatAPI-v0"
    service_name = "The Cat API"
    key_hint = "The API key header is added for you."
    official_subdir = "the_cat_api"
    api_docs = CATAPI_DOCS
    default_headers = {"content-type": "application/json", "x-api-key": "{API_KEY}"}

    def make_world(self, seed: int) -> CatWorld:
        return CatWorld(seed=seed)

    def make_service(self, world: CatWorld) -> RestService:
        return cat_service(world)

    def builtin_tasks(self, seed: int) -> TaskSet:
        return builtin_catapi(self.world, seed)

    def apply_setup(self, task: RestTask) -> None:
        for operation, image_id in task.setup:
            if operation == "image":
                self.world.ensure_image(image_id)
            else:
                self.world.ensure_favourite(image_id, present=operation == "favourite")
