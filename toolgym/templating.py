"""The pages toolgym writes: Jinja2 templates under ``toolgym/assets/templates/``, autoescaped.

One environment for every page (the WebShop env's ``html`` observation, the served WebShop
site, the viewer): every value a template prints is text, escaped (``<``, ``>``, ``&``, quotes);
markup of toolgym's own is passed as :class:`markupsafe.Markup`. Data for a script is written
with the ``tojson`` filter, which also writes ``<``, ``>``, ``&`` and ``'`` as ``\\u003c``...
inside strings, so no value can end or comment out a script element (and NaN, which a browser's
JSON refuses, is an error here). Lines of block tags leave nothing behind (``trim_blocks``,
``lstrip_blocks``): a template's text is what the page holds.

Filters added: ``path_part`` (a value as one segment of a URL path: ``/`` quoted too) and
``path`` (a value in a URL path, ``/`` kept).
"""

from __future__ import annotations

from urllib.parse import quote

from jinja2 import Environment, PackageLoader

TEMPLATES = Environment(loader=PackageLoader("toolgym", "assets/templates"), autoescape=True, trim_blocks=True,
                        lstrip_blocks=True, keep_trailing_newline=True)
TEMPLATES.filters["path_part"] = lambda text: quote(str(text), safe="")
TEMPLATES.filters["path"] = lambda text: quote(str(text))
TEMPLATES.policies["json.dumps_kwargs"] = {"allow_nan": False}


def render(name: str, **context) -> str:
    """Template ``name`` (a path under ``toolgym/assets/templates/``) filled with ``context``."""
    return TEMPLATES.get_template(name).render(context)
