"""``json.dumps`` at a lower cost per call, for texts written at every step (actions in the
conversation, BFCL's results and stored values).

``json.dumps`` makes a new C encoder at every call, which costs as much as writing a short
value. :func:`dumps` makes it once, without json's check for circular values: a circular (or too
deep) value exhausts the recursion limit, and is then written by ``json.dumps`` itself, which
raises its own error. The texts are ``json.dumps``'s, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def dumps(default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """A function that writes ``json.dumps(value, default=default)`` (json's other defaults)."""
    encoder = json.JSONEncoder(default=default) if default is not None else json.JSONEncoder()
    make = json.encoder.c_make_encoder
    if make is None:  # json without its C speedups
        return encoder.encode
    fast = make(None, encoder.default, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)

    def write(value: Any) -> str:
        try:
            return "".join(fast(value, 0))
        except RecursionError:
            return encoder.encode(value)  # circular or too deep: json's own answer (its error)

    return write
