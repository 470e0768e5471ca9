"""A shopper's session on WebShop: the pages it moves through and the two tools that move it.

WebShop's server (``web_agent_site``'s ``SimServer.receive``) keeps, per session, the page
shown, the search keywords and the results page, the product open and the options chosen,
and, after Buy Now, the reward. :class:`WebShopSession` is that state machine over a
:class:`~toolgym.worlds.webshop.world.WebShopWorld`:

- the state lives in the world's ``aux["session"]``, so snapshots, the rollback of a failing
  call and state hashes cover it (the catalogue never changes);
- the page is built from the state with :mod:`toolgym.worlds.webshop.pages` (kept until the
  state changes);
- a shopper moves it with two tools, :meth:`~WebShopSession.search` and
  :meth:`~WebShopSession.click`, whose schemas :mod:`toolgym.worlds.tools` derives from their
  signatures and docstrings. Arguments are read lower-cased, as WebShop's text env reads its
  actions; a search or click the page does not offer is a :class:`ToolError` and changes nothing.

What a purchase earns is the task's, not the shop's: :meth:`~WebShopSession.start` takes the
goal's judge, which Buy Now calls (WebShop's server calls ``get_reward`` with the goal of the
session the same way).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from toolgym.worlds.tools import ACTION, ToolError, Toolkit, tool
from toolgym.worlds.webshop.pages import (BACK_TO_SEARCH, END_BUTTON, NEXT_PAGE, PREV_PAGE, PRODUCT_WINDOW,
                                          SUB_PAGES, Page, done_page, item_page, results_page, search_page, sub_page)
from toolgym.worlds.webshop.search import ProductSearch, catalogue_search
from toolgym.worlds.webshop.world import WebShopWorld, webshop_dict

#: A purchase's reward: ``(product in WebShop's dict form, price paid, options chosen) -> (reward, its parts)``.
Judge = Callable[[dict, float, dict], tuple[float, dict]]
#: How many products (in WebShop's dict form) a session keeps at hand.
PRODUCT_CACHE = 2000


class WebShopSession(Toolkit):
    """One shopper's session on the shop of ``world``.

    Args:
        world: The catalogue; the session's state is its ``aux["session"]``.
        search_anywhere: Whether ``search`` runs from any page, as the released text env
            lets it (WebShop's paper: only on the search page, the page with the search bar).
    """

    def __init__(self, world: WebShopWorld, search_anywhere: bool = False):
        super().__init__(world)
        self.search_anywhere = search_anywhere
        self.search_engine: ProductSearch = catalogue_search(world)
        self.instruction = ""
        self._judge: Judge | None = None
        # asin -> (WebShop dict, the price Buy Now pays), least recently used first
        self._products: OrderedDict[str, tuple[dict, float]] = OrderedDict()
        self._page: tuple[dict, Page] | None = None  # (the state it shows, the page)

    # -- the state --------------------------------------------------------------------------
    def start(self, instruction: str, judge: Judge) -> None:
        """Open the search page of a new session for ``instruction``; Buy Now asks ``judge`` for the reward."""
        self.instruction, self._judge = instruction, judge
        self.world.aux["session"] = {"page": "search", "keywords": None, "page_no": None, "asin": None,
                                     "options": {}, "asins": [], "sub": None, "reward": None}

    @property
    def state(self) -> dict:
        """``page`` (search, results, item, sub or done), ``keywords``, ``page_no``, ``asin``,
        ``options`` (name -> value chosen), ``asins`` (products opened), ``sub`` (the sub-page
        open), ``reward`` and, after Buy Now, ``details`` (the reward's parts)."""
        return self.world.aux["session"]

    @property
    def purchased(self) -> bool:
        return self.state["page"] == "done"

    def product(self, asin: str) -> dict | None:
        """The product in WebShop's dict form (kept at hand), or None."""
        entry = self._product_and_price(asin)
        return entry[0] if entry else None

    def _product_and_price(self, asin: str) -> tuple[dict, float] | None:
        entry = self._products.get(asin)
        if entry is not None:
            self._products.move_to_end(asin)
            return entry
        row = self.world.product(asin)
        if row is None:
            return None
        entry = self._products[asin] = (webshop_dict(row), row.price)
        if len(self._products) > PRODUCT_CACHE:
            self._products.popitem(last=False)
        return entry

    # -- the page ---------------------------------------------------------------------------
    @property
    def page(self) -> Page:
        """The page the state shows (built again only when the state has changed)."""
        state = self.state
        if self._page is None or self._page[0] is not state:  # a restored state is another dict
            self._page = (state, self._build_page(state))
        return self._page[1]

    def _build_page(self, state: dict) -> Page:
        kind = state["page"]
        if kind == "search":
            return search_page(self.instruction)
        if kind == "results":
            hits = self.search_engine.search(state["keywords"])
            start = (state["page_no"] - 1) * PRODUCT_WINDOW
            window = hits[start:start + PRODUCT_WINDOW] if start >= 0 else []
            products = [self.product(asin) for asin in window]
            return results_page(self.instruction, [p for p in products if p], state["page_no"], len(hits),
                                frozenset(state["asins"]))
        product = self.product(state["asin"])
        if kind == "item":
            return item_page(self.instruction, product, state["options"])
        if kind == "sub":
            return sub_page(self.instruction, product, state["sub"])
        return done_page(state["asin"], state["options"], state["reward"])

    def available_actions(self) -> dict:
        """WebShop's ``get_available_actions()``: ``has_search_bar`` and ``clickables``."""
        page = self.page
        return {"has_search_bar": page.has_search_bar, "clickables": page.clickables()}

    # -- the tools --------------------------------------------------------------------------
    @tool(kind=ACTION, app="WebShop")
    def search(self, query: str) -> str:
        """Search the shop (only on the search page); the same as search[query].

        Args:
            query: keywords
        """
        query = query.lower()
        if not query.strip():
            raise ToolError("search[...] needs keywords")
        if not (self.search_anywhere or self.page.has_search_bar):
            raise ToolError("there is no search bar on this page (click[back to search] first)")
        self._page = None
        self.state.update(page="results", keywords=query, page_no=1, asin=None, options={}, sub=None)
        return self.page.text()

    @tool(kind=ACTION, app="WebShop")
    def click(self, button: str) -> str:
        """Click a button, product or option on the page; the same as click[button].

        Args:
            button: one of info['available_actions']['clickables'], e.g. 'buy now', 'next >', an asin
        """
        button = button.lower()
        page = self.page
        if button == "search" or button not in page.clickables():  # the search bar's button is search's
            shown = button if len(button) <= 60 else button[:60] + "..."
            raise ToolError(f"{shown!r} is not a button on this page")
        state = self.state
        self._page = None
        if button == END_BUTTON.lower():
            asin = state["asin"]
            product, price = self._product_and_price(asin)
            reward, details = self._judge(product, price, state["options"])
            state.update(page="done", reward=reward, details=details)
        elif button == BACK_TO_SEARCH.lower():
            state.update(page="search", keywords=None, page_no=None, asin=None, options={}, asins=[], sub=None)
        elif button == NEXT_PAGE.lower() and page.kind == "results":
            state["page_no"] += 1
        elif button == PREV_PAGE.lower() and page.kind == "results":
            state["page_no"] -= 1
        elif button == PREV_PAGE.lower() and page.kind == "sub":
            state.update(page="item", sub=None)
        elif button == PREV_PAGE.lower() and page.kind == "item":
            state.update(page="results", asin=None, options={})
        elif button in [s.lower() for s in SUB_PAGES]:
            state.update(page="sub", sub=button.capitalize())
        elif page.kind == "results":  # a product link
            asin = button.upper()
            state.update(page="item", asin=asin)
            if asin not in state["asins"]:
                state["asins"].append(asin)
        elif page.kind == "item" and button in page.option_names:
            state["options"][page.option_names[button]] = button
        return self.page.text()
