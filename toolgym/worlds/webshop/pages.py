"""WebShop's pages: what its templates show, in its three observation modes.

A page is the list of the text nodes a browser (BeautifulSoup, in WebShop's text env) finds
in the rendered template, each with its role: plain ``text``, a ``button``, an option
``label`` or a ``link`` (a product's asin). The modes are computed from it exactly as
``WebAgentTextEnv.convert_html_to_text`` does from the HTML:

- ``text`` (WebShop's "simple" mode, the ToolBench's): the stripped texts joined with ``" [SEP] "``;
- ``text_rich``: one node a line, buttons as ``[button] ... [button_]``, chosen options and
  visited products as ``[clicked button] ... [clicked button_]``, with ``You have clicked X.``
  lines in front for chosen options;
- ``html``: the page in the templates' structure (instruction, forms and buttons, radio
  inputs for options, product links), whose buttons post to this module's URL scheme
  (``/<session>/click/<button>``, ``/<session>/search``) rather than to WebShop's Flask routes;
  drawn by the Jinja2 template ``toolgym/assets/templates/webshop/observation.html``, autoescaped.

Whitespace-only nodes of the templates (indentation) are not nodes here: BeautifulSoup turns
each into ``"\\n"``, which the original filters out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from jinja2.utils import htmlsafe_json_dumps

from toolgym.templating import render

BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE, END_BUTTON = "Back to Search", "Next >", "< Prev", "Buy Now"
SUB_PAGES = ("Description", "Features", "Reviews")
PRODUCT_WINDOW = 10


@dataclass
class Page:
    """The nodes of one page and what can be done on it."""

    kind: str  # "search", "results", "item", "sub", "done"
    nodes: list[tuple[str, str]] = field(default_factory=list)  # (role, raw text)
    options_json: str = ""  # json.dumps of the chosen options: what WebShop's item URL holds
    visited: frozenset = frozenset()  # asins opened in this session
    option_names: dict[str, str] = field(default_factory=dict)  # option value -> option name

    def __post_init__(self):
        # An empty or blank text is no node for BeautifulSoup (blank ones become "\n", filtered out).
        self.nodes = [(role, text) for role, text in self.nodes if text.strip()]

    @property
    def has_search_bar(self) -> bool:
        return self.kind == "search"

    def clickables(self) -> list[str]:
        """``get_available_actions()["clickables"]``: buttons and links lower-cased, then option values."""
        keys = [text.lower() for role, text in self.nodes if role in ("button", "search", "link")]
        keys += [text for role, text in self.nodes if role == "label"]
        return list(dict.fromkeys(keys))

    def text(self) -> str:
        return " [SEP] ".join(text.strip() for _, text in self.nodes)

    def text_rich(self) -> str:
        observation = ""
        for role, text in self.nodes:
            if role in ("button", "search"):
                processed = f"[button] {text} [button_]"
            elif role == "label":
                if f'"{text}"' in self.options_json:
                    processed = f"  [clicked button] {text} [clicked button_]"
                    observation = f"You have clicked {text}.\n" + observation
                else:
                    processed = f"  [button] {text} [button_]"
            elif role == "link":
                clicked = text in self.visited
                processed = f"\n[clicked button] {text} [clicked button_]" if clicked else f"\n[button] {text} [button_]"
            else:
                processed = text
            observation += processed + "\n"
        return observation

    def render(self, mode: str, session: str = "session") -> str:
        if mode == "text":
            return self.text()
        if mode == "text_rich":
            return self.text_rich()
        return self.html(session)

    def html(self, session: str = "session") -> str:
        """The page as HTML in the templates' structure (see the module docstring)."""
        chosen = json.loads(self.options_json) if self.options_json else {}
        return render("webshop/observation.html", nodes=self.nodes, session=session, chosen=chosen,
                      option_names=self.option_names)


def _instruction(instruction: str, search_page: bool = False) -> list[tuple[str, str]]:
    # search_page.html writes "Instruction: <br>", the other templates "Instruction:<br>".
    return [("text", "Instruction: " if search_page else "Instruction:"), ("text", instruction)]


def search_page(instruction: str) -> Page:
    nodes = [("text", "WebShop"), *_instruction(instruction, search_page=True)]
    return Page("search", [*nodes, ("search", "Search")])  # the search bar's button


def results_page(instruction: str, products: list[dict], page: int, total: int, visited: frozenset) -> Page:
    """``products``: the page's products (asin, Title, Price), already cut to the window."""
    nodes = [*_instruction(instruction), ("button", BACK_TO_SEARCH), ("text", f"Page {page} (Total results: {total})")]
    if page > 1:
        nodes.append(("button", PREV_PAGE))
    nodes.append(("button", NEXT_PAGE))
    for product in products:
        nodes += [("link", product["asin"]), ("text", product["Title"]), ("text", product["Price"])]
    return Page("results", nodes, visited=visited)


def item_page(instruction: str, product: dict, options: dict[str, str]) -> Page:
    nodes = [*_instruction(instruction), ("button", BACK_TO_SEARCH), ("button", PREV_PAGE)]
    names = {}
    for name, values in product["options"].items():
        nodes.append(("heading", name))
        for value in values:
            nodes.append(("label", value))
            names[value] = name
    nodes += [("text", product["Title"]), ("text", f"Price: {product['Price']}"), ("text", f"Rating: {product['Rating']}")]
    nodes += [("button", sub) for sub in SUB_PAGES]
    nodes.append(("button", END_BUTTON))
    return Page("item", nodes, options_json=json.dumps(options), option_names=names)


def sub_page(instruction: str, product: dict, sub: str) -> Page:
    nodes = [*_instruction(instruction), ("button", BACK_TO_SEARCH), ("button", PREV_PAGE)]
    if sub == "Description":
        nodes.append(("text", product["Description"]))
    elif sub == "Features":
        nodes += [("text", f" {bullet}") for bullet in product["BulletPoints"]]
    else:
        for review in product["Reviews"]:
            nodes += [("text", f'"{review["title"]}"'), ("text", str(review["score"])), ("text", review["body"])]
    return Page("sub", nodes)


def tojson(value) -> str:
    """Flask's ``tojson`` filter (Jinja2's): sorted keys, ASCII, HTML-sensitive characters escaped."""
    return str(htmlsafe_json_dumps(value, sort_keys=True))


def done_page(asin: str, options: dict[str, str], reward: float) -> Page:
    """done_page.html as WebShop's text env renders it (no MTurk code, goal or reward details)."""
    texts = ["Thank you for shopping with us!", "Your code: ", "None", " (Paste it in your MTurk interface.)",
             "Purchased", "asin", asin, "options", tojson(options), "attrs", "None", "category", "None",
             "query", "None", "product category", "None", "Target", "asin", "options", "attrs", "price upper",
             "instuction text", "category", "product category", "query", "Goal ", "None", "Reward",
             "Your score (min 0.0, max 1.0)", str(reward), "Reward Details ", "None"]
    return Page("done", [("text", t) for t in texts])
