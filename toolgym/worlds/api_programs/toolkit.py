"""The base of the toolkits whose tools are the functions of ``API`` in a program."""

from __future__ import annotations

import inspect
from typing import Any

from toolgym.worlds.api_programs.interpreter import ProgramError, bind_call
from toolgym.worlds.tools import ToolError, Toolkit


class ProgramToolkit(Toolkit):
    """Tools called from programs: arguments reach them exactly as written.

    The paper stores values as given and compares them with ``==`` (``3 == 3.0`` but
    ``"3" != 3``), so :meth:`invoke` passes arguments through without schema coercion;
    the type hints document the API and give the schemas. The search criteria set so far
    live in ``world.aux["criteria"]``, so world snapshots cover them.
    """

    helper_docs: tuple[str, ...] = ()

    @property
    def criteria(self) -> dict[str, Any]:
        return self.world.aux["criteria"]

    def invoke(self, name: str, args: list, kwargs: dict) -> Any:
        """Call ``API.<name>(*args, **kwargs)``; a failure is a :class:`ProgramError`."""
        spec = self.specs.get(name)
        if spec is None:
            raise ProgramError(f"API has no function {name!r}")
        method = getattr(self, spec.method_name)
        bound = bind_call(method, f"API.{name}", args, kwargs)
        try:
            return method(*bound.args, **bound.kwargs)
        except ToolError as exc:
            raise ProgramError(f"API.{name}(): {exc}") from None

    @classmethod
    def api_docs(cls) -> str:
        """The API documentation as the prompt shows it: one signature and description per function."""
        lines = []
        for method in vars(cls).values():
            if not hasattr(method, "__tool_meta__"):
                continue
            spec = cls.specs[method.__tool_meta__["name"]]
            signature = inspect.signature(method, eval_str=True)
            params = ", ".join(f"{name}: {_type_name(p.annotation)}" for name, p in signature.parameters.items()
                               if name != "self")
            lines.append(f"API.{spec.name}({params})\n    {spec.description}")
        lines += list(cls.helper_docs)
        return "\n".join(lines) + "\n"


def _type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)
