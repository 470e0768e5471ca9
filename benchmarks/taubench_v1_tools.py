"""Writes ``toolgym/assets/taubench/v1_tools.json``: τ-bench v1's tool schemas per domain as its
agent sends them (each tool class's ``get_info()``, in the domain's ``ALL_TOOLS`` order).

Run it in a throwaway venv with τ-bench (commit 59a200c) importable, never beside toolgym:

    PYTHONPATH=/path/to/tau-bench /path/to/venv/bin/python benchmarks/taubench_v1_tools.py \
        toolgym/assets/taubench/v1_tools.json
"""

from __future__ import annotations

import json
import sys

from tau_bench.envs.airline.tools import ALL_TOOLS as AIRLINE
from tau_bench.envs.retail.tools import ALL_TOOLS as RETAIL

if __name__ == "__main__":
    schemas = {"airline": [tool.get_info() for tool in AIRLINE], "retail": [tool.get_info() for tool in RETAIL]}
    with open(sys.argv[1], "w", encoding="utf-8") as sink:
        json.dump(schemas, sink, indent=1, ensure_ascii=False)
        sink.write("\n")
