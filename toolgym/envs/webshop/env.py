"""WebShop-v0: shopping on WebShop's pages over a generated (or the official) catalogue."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.actions import ToolCall, Unparseable, parse_action
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.official import OfficialLayout
from toolgym.worlds import cache
from toolgym.worlds.webshop.pages import PRODUCT_WINDOW
from toolgym.worlds.webshop.reward import get_reward
from toolgym.worlds.webshop.session import Judge, WebShopSession
from toolgym.worlds.webshop.tasks import GoalSet, builtin_goals
from toolgym.worlds.webshop.world import WebShopWorld

OBSERVATION_MODES = ("text", "text_rich", "html")
THOUGHT_ANSWER = "OK."  # what ReAct's WebShop loop answers a think[...] action
DEMO_VARIANTS = ("short", "long")
#: The shop's tools in the order models are shown them, each with the one argument it takes.
TOOL_ARGUMENTS = {name: next(iter(WebShopSession.specs[name].parameters)) for name in ("search", "click")}
SYSTEM_PROMPT = (
    "You are shopping on WebShop for the instruction shown on every page. Each turn, answer with one action:\n"
    "- search[keywords] on the search page;\n"
    "- click[button] with a button, product id or option shown on the page (Back to Search, Next >, < Prev, "
    "a product's id, an option value, Description, Features, Reviews, Buy Now).\n"
    "Choose the product and its options that fit the instruction, then click[Buy Now]. "
    "You have {max_steps} actions.")


def name_and_argument(action: str) -> tuple[str, str] | None:
    """WebShop's ``parse_action``: the groups of ``re.match(r"(.+)\\[(.+)\\]", action)``, found
    without backtracking.

    The pattern's greedy groups end at the last ``]`` of the first line and at the last ``[`` with
    at least one character between the two; Python's engine finds them by trying every ``[``
    against every ``]``, quadratic in a hostile action such as ``'a[' * 5000``.
    """
    line = action.split("\n", 1)[0]
    close = line.rfind("]")
    open_ = line.rfind("[", 1, close - 1) if close > 2 else -1
    if open_ < 1:
        return None
    return line[:open_], line[open_ + 1:close]


def _builtin_goal_set(world: WebShopWorld, seed: int, num_goals: int) -> GoalSet:
    """The built-in goals of ``world``: the catalogue is streamed once, and only the drawn goals' products are read in full."""
    seqs: list[int] = []

    def catalogue():
        for seq, options, instruction, attributes in world.sql().execute(
                "SELECT seq, options, instruction, instruction_attributes FROM products ORDER BY seq"):
            seqs.append(seq)
            yield {"options": json.loads(options), "instruction": instruction,
                   "instruction_attributes": json.loads(attributes) if attributes else None}

    def product(index: int) -> dict:
        a, n, q, c, pc, o, p, tn, i, ia = world.sql().execute(
            "SELECT asin, name, query, category, product_category, options, price, title_nouns, instruction, "
            "instruction_attributes FROM products WHERE seq = ?", (seqs[index],)).fetchone()
        return {"asin": a, "name": n, "query": q, "category": c, "product_category": pc, "options": json.loads(o),
                "price": p, "title_nouns": json.loads(tn), "instruction": i,
                "instruction_attributes": json.loads(ia) if ia else None}
    return builtin_goals(catalogue(), seed, num_goals, product=product)


class WebShopEnv(ToolEnv):
    """
    ## Description
    WebShop (Yao et al. 2022, "WebShop: Towards Scalable Real-World Web Interaction with
    Grounded Language Agents"), as the SambaNova ToolBench uses it (appendix A.7). The agent
    reads a shopping instruction, searches the shop, browses result pages and item pages,
    chooses options and buys; the reward says how well the purchase fits the instruction.

    The shop is WebShop's, page for page: the search page, result pages (10 of the top 50
    BM25 hits each), item pages (options grouped by name, title, price, rating and the
    Description / Features / Reviews sub-pages) and the done page, with the original's action
    grammar and reward formula. WebShop's product dump, Lucene index and spaCy model cannot be
    had offline, so the built-in catalogue is generated (:mod:`toolgym.worlds.webshop`: a
    seeded catalogue in WebShop's product schema, ``num_products`` products in WebShop's five
    categories) and searched with ``bm25s``. The shop's session, its pages and its two tools
    (``search`` and ``click``) are the world's
    (:class:`~toolgym.worlds.webshop.session.WebShopSession`); this env reads actions into those
    tools, judges the purchase, and loads the tasks.

    ## Action Space
    A string, as in WebShop: ``search[keywords]`` or ``click[button]`` (the argument is
    lower-cased, as the original does), read with the original's pattern ``(.+)\\[(.+)\\]``.
    ``think[...]`` is answered ``OK.`` and changes nothing, as in ReAct's WebShop setup (it
    uses a step, as each of ReAct's turns does). ``click`` takes one of
    ``info["available_actions"]["clickables"]`` (``back to search``,
    ``next >``, ``< prev``, a product's asin, an option value, ``description``, ``features``,
    ``reviews``, ``buy now``). A call of the tools in ``info["tools"]``
    (``{"name": "click", "arguments": {"button": "buy now"}}``, as a dict, JSON text or
    ``click(button="buy now")``) is the same action. Anything else, a click on something not
    on the page, a search off the search page (``paper``), or an argument the tools refuse (a
    lone surrogate, as every world's tools do) changes nothing: the reward is 0, the observation
    says why and repeats the page, and the step counts.

    ## Observation Space
    A string: the page in ``observation_mode`` ``"text"`` (WebShop's "simple" mode, the
    ToolBench's: visible texts joined with ``" [SEP] "``), ``"text_rich"`` (``[button] ...
    [button_]`` markers) or ``"html"``. The instruction is on every page but the done page
    (as in WebShop). ``info["available_actions"]`` is WebShop's ``get_available_actions()``:
    ``has_search_bar`` and ``clickables``. ``info["messages"]`` holds a system prompt (the
    action grammar and, with ``k_shot`` > 0, oracle demonstrations) and the first page;
    ``info["demos"]`` the demonstrations in their ``short`` and ``long`` variants.

    ## Rewards
    Paper metric: **score** (the average reward, reported ×100) and **success rate** (the
    share of episodes with reward 1). The only non-zero reward comes with Buy Now and is
    WebShop's ``get_reward``::

        r = r_type * (attribute matches + option matches + [price <= upper]) / (|attributes| + |options| + 1)

    (:mod:`toolgym.worlds.webshop.reward`: attribute and option matching by ``thefuzz``'s
    token-set ratio above 85, or, for attributes, a substring of the title, bullet points or
    description; colour normalisation; ``r_type`` from the query match, at least 2 shared
    category levels and the title-noun score with thresholds 0.2 / 0.1 / 0). So the return is
    the score. ``info["metrics"]`` at the end: ``score``, ``success`` (score = 1), ``purchased``,
    ``toolbench_success`` (a purchase within the step limit, as the SambaNova evaluator
    counts), the components ``r_type``, ``r_att``, ``r_option`` (None for a goal without
    options), ``r_price``, ``query_match``, ``category_match``, ``title_score``, and ``steps``.

    Title nouns: built-in products know their names' nouns by construction. For official
    products the nouns come from spaCy (``en_core_web_lg``, else ``en_core_web_sm``) when it is
    installed, else from an offline fallback that takes every alphabetic word of the name that
    is not an English stop word or a number, adjectives included: desired-noun sets are larger,
    so title scores are lower than spaCy's when names share adjectives, and ``r_type`` can
    differ from the original on official goals.

    Scoring: ``"paper"`` (default) and ``"paper_compat"`` (the released ``web_agent_site``
    code) differ in:

    - sizes: ``paper`` matches a ``size`` option exactly; the released code matches it
      fuzzily, so "large" counts for "x-large" and "size 7" for "size 7.5";
    - synthetic goals' options: the released code passes the goal's option dict as
      ``(name, value)`` pairs to the colour normalisation and ``thefuzz`` (which read them as
      the text ``"('color', 'black')"``); ``paper`` compares the values;
    - search: ``paper`` allows ``search[...]`` on the search page only (the page with the search
      bar, as the paper describes); the released text env runs a search from any page.
    - text that is not ASCII: ``paper`` matches attributes and options fuzzily with every letter
      kept; the released code drops non-ASCII characters first (``thefuzz``'s ``force_ascii``),
      so a goal attribute with ``’`` (67 of WebShop's 12,087 human goals have such text) never
      matches a product's ``'``.

    Both scorings differ from the released code where it is not deterministic: WebShop draws
    price bounds and the price of a product with a price range from Python's unseeded global
    ``random``; here they come from generators seeded with the world seed and the asin.

    ## Starting State
    The search page of the task's goal. Goals (``tasks="built-in"``) are WebShop's synthetic
    goals over the catalogue (:mod:`toolgym.worlds.webshop.tasks`): ``num_goals`` of them,
    drawn in proportion to their weights after WebShop's seed-233 shuffle.

    ## Episode End
    Buy Now ends the episode (terminated) with the reward. After ``max_steps`` actions
    (15, WebShop's ReAct setting; the ToolBench uses 25) without a purchase the episode is
    truncated with score 0. The original env has no step limit of its own: ReAct's
    ``webshop_run`` stops its loop after 15 turns (``think`` turns included) and the ToolBench's
    evaluator after 25 actions, each counting an unfinished episode as reward 0, as here;
    ``toolbench_success`` counts a purchase within ``max_steps``.

    ## Arguments
    - ``tasks``: ``"built-in"`` or ``"official"`` (WebShop's ``items_shuffle*.json``,
      ``items_ins_v2*.json`` and ``items_human_ins.json`` under ``data_dir`` / ``$TOOLGYM_DATA``,
      human goals; see :mod:`toolgym.envs.webshop.official`).
    - ``split``: official only: ``test`` (goals 0-499 after the seed-233 shuffle, as WebShop's
      baselines), ``dev`` (500-1499), ``train`` (1500 on), ``toolbench`` (sessions 0-99).
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``observation_mode``: ``"text"``, ``"text_rich"`` or ``"html"``.
    - ``max_steps``: actions per episode (15).
    - ``num_products``: size of the generated catalogue (1,000; up to 1,000,000).
    - ``num_goals``: built-in goals (500).
    - ``world_seed``: seed of the catalogue and goals.
    - ``k_shot`` (2) and ``demo_variant`` (``"short"`` or ``"long"``): demonstrations in the prompt.
    - ``db_url``: the world database (in-memory SQLite, or a SQLite file built once).

    ## Version History
    - v0: initial version.
    """

    env_id = "WebShop-v0"
    splits = {"built-in": (), "official": ("test", "dev", "train", "toolbench")}
    scorings = ("paper", "paper_compat")
    table_columns = (
        Column("Score", "mean", ("score",)),
        Column("SR", "mean", ("success",)),
        Column("ToolBench success", "mean", ("toolbench_success",)),
    )
    max_action_chars: ClassVar[int] = 10_000
    action_hint = "search[keywords] or click[button] (e.g. click[buy now], click[next >], click[<asin>])"

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 observation_mode: str = "text", max_steps: int = 15, num_products: int = 1000,
                 num_goals: int = 500, world_seed: int = 0, k_shot: int = 2, demo_variant: str = "short",
                 db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"{self.env_id}: observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}")
        for name, value, low in (("max_steps", max_steps, 1), ("num_goals", num_goals, 1), ("k_shot", k_shot, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{self.env_id}: {name} must be an int of at least {low}, got {value!r}")
        if demo_variant not in DEMO_VARIANTS:
            raise ValueError(f"{self.env_id}: demo_variant must be one of {DEMO_VARIANTS}, got {demo_variant!r}")
        self.observation_mode = observation_mode
        self.max_steps = max_steps
        self.k_shot = k_shot
        self.demo_variant = demo_variant
        if tasks == "official":
            from toolgym.envs.webshop.official import load_official

            official = load_official(self.env_id, data_dir, split, world_seed)
            self.world = WebShopWorld(url=db_url, seed=world_seed, products=official.products, source=official.source)
            self.goal_set = GoalSet(official.goals, official.demos)
        else:
            self.world = WebShopWorld(url=db_url, seed=world_seed, num_products=num_products)
            # Drawing goals reads the whole catalogue: kept in the cache with the catalogue's fingerprint.
            self.goal_set = cache.cached_json(
                "webshop-goals", {"catalogue": self.world.fingerprint(), "num_goals": num_goals},
                ("toolgym.worlds.webshop.tasks",), lambda: _builtin_goal_set(self.world, world_seed, num_goals),
                lambda goals: {"goals": list(goals.goals.values()), "demos": list(goals.demos)},
                lambda stored: GoalSet({g["task_id"]: g for g in stored["goals"]}, tuple(stored["demos"])))
        # The shop: the session's pages and tools live in the world (paper: search on the search page only).
        self.shop = WebShopSession(self.world, search_anywhere=scoring == "paper_compat")
        self.task_id = None
        self.goal: dict | None = None
        self._done = True
        self._steps = 0
        self._observation = ""
        self._demos: dict[str, str] | None = None

    # -- setup ------------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        from toolgym.envs.webshop.official import LAYOUT  # with the official reader, on first use

        return {"": (LAYOUT,)}

    def task_ids(self) -> list[str]:
        return list(self.goal_set.goals)

    def task_records(self) -> Any:
        return self.goal_set

    def _judge(self, goal: dict) -> Judge:
        """The reward of a purchase for ``goal``: WebShop's ``get_reward`` in this env's scoring."""
        return lambda product, price, options: get_reward(product, goal, price, options, self.scoring)

    # -- episode ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        task_id = self._choose_task(options)
        self.goal = self.goal_set.goals[task_id]
        self.shop.start(self.goal["instruction_text"], self._judge(self.goal))
        self._done = False
        demos = self.demonstrations()
        self._observation = self._render()
        info = {**self.base_info(task_id), "tools": WebShopSession.schemas(TOOL_ARGUMENTS),
                "available_actions": self.shop.available_actions(), "instruction": self.goal["instruction_text"],
                "demos": dict(demos)}
        system = SYSTEM_PROMPT.format(max_steps=self.max_steps)
        if self.k_shot and demos[self.demo_variant]:
            system += "\n\nExamples:\n\n" + demos[self.demo_variant]
        info["messages"] = [{"role": "system", "content": system}, {"role": "user", "content": self._observation}]
        self._prompt = info["messages"]
        return self._observation, self._with_history(info)

    def _act(self, action: Any) -> Outcome:
        command, error = self._read(action)
        thought = error is None and command[0] == "think"
        if error is None and not thought:
            error = self._run(self.shop, *command)
        if error is not None:
            self._note_invalid_action()
        bought = error is None and self.shop.purchased
        self._observation = self._render()
        observation = THOUGHT_ANSWER if thought else self._observation if error is None else self._invalid(error)
        # The reward is the purchase's, at Buy Now: WebShop's only reward.
        return Outcome(observation, terminated=bought, progress=float(self.shop.state["reward"]) if bought else None,
                       info={} if error is None else {"error": error})

    @staticmethod
    def _run(shop: WebShopSession, name: str, argument: str) -> str | None:
        """Call the shop's tool ``name``; None, or why nothing changed."""
        return shop.call(name, {TOOL_ARGUMENTS[name]: argument}).error

    def _refuse(self, error: str) -> Outcome:
        return Outcome(self._invalid(error), info={"error": error})

    def _info(self) -> dict:
        """A step's info: the page's actions and the reset's tools and prompt (the history is added to it)."""
        return {**self.base_info(self.task_id), "tools": WebShopSession.schemas(TOOL_ARGUMENTS),
                "available_actions": self.shop.available_actions(), "instruction": self.goal["instruction_text"],
                "page": self.shop.state["page"], "messages": [dict(m) for m in self._prompt]}

    def _invalid(self, error: str) -> str:
        return f"Invalid action: {error}. Nothing changed; the page is still:\n{self._observation}"

    def _read(self, action: Any) -> tuple[tuple[str, str] | None, str | None]:
        """``(("search" | "click" | "think", argument), None)``, or ``(None, why not)``.

        Whether the page offers the search or the click is the shop's to say, when it is called.
        """
        if isinstance(action, str) and not action.lstrip().startswith("{"):
            groups = name_and_argument(action)
            if groups is None:
                call = parse_action(action)
                if isinstance(call, ToolCall):
                    return self._from_call(call)
                return None, "expected search[keywords] or click[button]"
            name, argument = groups
        else:
            call = parse_action(action)
            if isinstance(call, Unparseable):
                return None, call.error
            if not isinstance(call, ToolCall):
                return None, "expected search[keywords] or click[button]"
            return self._from_call(call)
        if name in TOOL_ARGUMENTS or name == "think":  # ReAct's WebShop loop answers a thought without the shop
            return (name, argument), None
        return None, f"unknown action {name[:30]!r}; the actions are search[keywords] and click[button]"

    @staticmethod
    def _from_call(call: ToolCall) -> tuple[tuple[str, str] | None, str | None]:
        key = TOOL_ARGUMENTS.get(call.name)
        if key is None:
            return None, f"unknown tool {str(call.name)[:50]!r}; the tools are search and click"
        argument = call.arguments.get(key) if isinstance(call.arguments, dict) else None
        if not isinstance(argument, str) or not argument:
            return None, f"{call.name} needs a non-empty string argument {key!r}"
        return (call.name, argument), None

    def _render(self) -> str:
        return self.shop.page.render(self.observation_mode, session=str(self.task_id))

    def _metrics(self) -> dict:
        state = self.shop.state
        purchased = self.shop.purchased
        details = state.get("details") or {}
        score = float(state["reward"]) if purchased else 0.0
        return {"score": score, "success": int(purchased and score == 1.0), "purchased": int(purchased),
                "toolbench_success": int(purchased and self._steps <= self.max_steps),
                "r_type": details.get("r_type"), "r_att": details.get("r_att"), "r_option": details.get("r_option"),
                "r_price": details.get("r_price"), "query_match": details.get("query_match"),
                "category_match": details.get("category_match"), "title_score": details.get("title_score"),
                "steps": self._steps}

    def render(self) -> str | None:
        return self._observation if self.render_mode == "ansi" else None

    # -- oracle -----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """Search with the goal's query (its title when the query misses it), open the target,
        choose the goal's options, buy."""
        return self._oracle(self.goal, self.shop)

    @staticmethod
    def _oracle(goal: dict, shop: WebShopSession) -> str:
        """The oracle's action for ``goal`` in ``shop``'s state."""
        state, page = shop.state, shop.page
        target = goal["asin"]
        if page.kind == "search":
            if target in shop.search_engine.search(goal["query"]):
                return f"search[{goal['query']}]"
            return f"search[{shop.product(target)['Title'].lower()}]"
        if page.kind == "results":
            if target.lower() in page.clickables():
                return f"click[{target.lower()}]"
            hits = shop.search_engine.search(state["keywords"])
            if target in hits[state["page_no"] * PRODUCT_WINDOW:]:
                return "click[next >]"
            return "click[back to search]"
        if page.kind == "sub" or (page.kind == "item" and state["asin"] != target):
            return "click[< prev]"
        for name, value in _wanted_options(goal, shop.product(target)["options"]):
            if state["options"].get(name) != value:
                return f"click[{value}]"
        return "click[buy now]"

    # -- demonstrations ---------------------------------------------------------------------
    def demonstrations(self) -> dict[str, str]:
        """The oracle over the demonstration goals as text, ``short`` and ``long`` (cached).

        ``long``: every page in full, then the action. ``short``: the instruction once, each
        page cut to its first 200 characters after the instruction. Both have at most
        ``k_shot`` examples. They are played in a session of their own on the world, whose
        state outside the catalogue is put back afterwards.
        """
        if self._demos is not None:
            return self._demos
        shop = WebShopSession(self.world, search_anywhere=self.shop.search_anywhere)
        saved = self.world.volatile_state()
        long, short = [], []
        try:
            for goal in self.goal_set.demos[:self.k_shot]:
                shop.start(goal["instruction_text"], self._judge(goal))
                lines_long = [f"Instruction: {goal['instruction_text']}"]
                lines_short = list(lines_long)
                for _ in range(self.max_steps):
                    observation = shop.page.text()
                    action = self._oracle(goal, shop)
                    lines_long += [f"Observation: {observation}", f"Action: {action}"]
                    cut = observation.replace(f"Instruction: [SEP] {goal['instruction_text']} [SEP] ", "")
                    lines_short += [f"Observation: {cut[:200]}{'...' if len(cut) > 200 else ''}", f"Action: {action}"]
                    command, error = self._read(action)
                    if error is not None or self._run(shop, *command) is not None or shop.purchased:
                        break
                long.append("\n".join(lines_long))
                short.append("\n".join(lines_short))
        finally:
            self.world.restore_volatile_state(saved)
        self._demos = {"short": "\n\n".join(short), "long": "\n\n".join(long)}
        return self._demos


def _wanted_options(goal: dict, options: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The (option name, value) pairs of the target's ``options`` the goal asks for."""
    wanted = goal["goal_options"]
    if isinstance(wanted, dict):
        return [(n, v) for n, v in wanted.items() if v in options.get(n, ())]
    pairs = []
    for value in wanted:
        for name, values in options.items():
            if value in values:
                pairs.append((name, value))
                break
    return pairs
