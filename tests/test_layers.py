"""The layers of ``toolgym/`` import only downward, and no two modules import each other.

Every import of a toolgym module is read from the source with :mod:`ast` (those inside
functions too: a lazy import is still a dependency), each module is put in its layer, and the
test fails on an import from a lower layer to a higher one, or on a cycle of imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "toolgym"

# Lower first. A module's layer is that of its first package under toolgym/ (or its own name).
LAYERS = {
    # shared helpers that import no other toolgym module: HTTP limits, page templates
    "serving": 0, "templating": 0, "untrusted": 0,
    "worlds": 1,
    "llm": 2,          # model clients: used by the envs' users and judges, agents, the LLM server
    "envs": 3, "registry": 3,
    "agents": 4,
    "eval": 5, "serve": 5, "train": 5, "remote": 5,
}
# The package root registers the env ids (entry points as strings) and is imported by every
# layer; its one import upward is the ``toolgym.rollouts`` shortcut, resolved on first use.
ROOT_SHORTCUTS = {"toolgym.eval.rollouts"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str) -> set[str]:
    """The toolgym modules ``path`` imports (``from toolgym.x import y`` names ``toolgym.x.y``
    when that is a module, else ``toolgym.x``)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for guarded in [n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]:
        guarded.body = []  # imports for type annotations only are not run
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("toolgym")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("toolgym"):
                found |= {f"{base}.{a.name}" for a in node.names} | {base}
    return found


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges = {}
    for name, path in files.items():
        targets = {t if t in files else t.rpartition(".")[0] for t in imports(path, name)}
        edges[name] = {t for t in targets if t in files and t != name and not name.startswith(t + ".")}
    edges["toolgym"] -= ROOT_SHORTCUTS
    return edges


def layer(module: str) -> int | None:
    parts = module.split(".")
    return None if len(parts) == 1 else LAYERS[parts[1]]


def test_every_module_has_a_layer():
    unknown = {m.split(".")[1] for m in graph() if "." in m and m.split(".")[1] not in LAYERS}
    assert not unknown, f"modules in no layer: {sorted(unknown)}; add them to LAYERS"


def test_no_module_imports_from_a_higher_layer():
    upward = []
    for module, targets in graph().items():
        for target in targets:
            if layer(module) is not None and layer(target) is not None and layer(target) > layer(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports from a higher layer:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    edges = graph()
    # Tarjan's strongly connected components: a component of more than one module is a cycle.
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)
