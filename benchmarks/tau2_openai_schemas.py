"""Write τ²-bench's own tool schemas (``Tool.openai_schema`` of every toolkit) to a JSON fixture.

Run it with τ²'s source on the path, in a throwaway venv that has τ²'s dependencies and the same
pydantic as toolgym's (the schema text depends on pydantic's version); toolgym never imports τ²::

    python3.11 -m venv /tmp/tau2venv && /tmp/tau2venv/bin/pip install pydantic==<toolgym's> ...
    git --git-dir=<tau2-bench mirror> archive HEAD src/tau2 | tar -x -C /tmp/tau2src
    PYTHONPATH=/tmp/tau2src/src /tmp/tau2venv/bin/python benchmarks/tau2_openai_schemas.py OUT.json

``tests/data/tau2/openai_schemas.json`` was written so from tau2-bench a2c0247 with pydantic 2.14.4:
domain -> ``{"assistant": [schema, ...], "user": [...]}`` in each toolkit's order.
"""

from __future__ import annotations

import json
import sys

import pydantic
from tau2.domains.airline.tools import AirlineTools
from tau2.domains.mock.tools import MockTools
from tau2.domains.mock.user_tools import MockUserTools
from tau2.domains.retail.tools import RetailTools
from tau2.domains.telecom.tools import TelecomTools
from tau2.domains.telecom.user_tools import TelecomUserTools

TOOLKITS = {"airline": {"assistant": AirlineTools}, "retail": {"assistant": RetailTools},
            "telecom": {"assistant": TelecomTools, "user": TelecomUserTools},
            "mock": {"assistant": MockTools, "user": MockUserTools}}


def main(path: str) -> None:
    schemas = {domain: {side: [tool.openai_schema for tool in toolkit(None).get_tools().values()]
                        for side, toolkit in sides.items()} for domain, sides in TOOLKITS.items()}
    schemas["pydantic"] = pydantic.VERSION
    with open(path, "w", encoding="utf-8") as out:
        json.dump(schemas, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
