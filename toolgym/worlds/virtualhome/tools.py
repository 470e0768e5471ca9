"""The home's actions as tools: one per action of the vocabulary, its objects as arguments.

The 40 actions are a table (:data:`~toolgym.worlds.virtualhome.vocabulary.ACTIONS`), so their
tools are declared from it (:func:`~toolgym.worlds.tools.declared_tool`) rather than written as
40 methods, and one method, :meth:`HomeTools.perform`, runs them all on the world.
"""

from __future__ import annotations

from toolgym.worlds.interpreter import ProgramError
from toolgym.worlds.tools import ACTION, ToolError, Toolkit, declared_tool
from toolgym.worlds.virtualhome.vocabulary import ACTIONS, argument_names
from toolgym.worlds.virtualhome.world import PreconditionFailed

APP = "VirtualHome"
OBJECT_ARGUMENT = "an object name, e.g. remote_control"


class HomeTools(Toolkit):
    """The actions of the agent in a :class:`~toolgym.worlds.virtualhome.world.VirtualHomeWorld`."""

    declared_tools = tuple(
        declared_tool(spec.name, spec.doc, {name: (str, OBJECT_ARGUMENT) for name in argument_names(spec.arity)},
                      kind=ACTION, app=APP, method_name="perform", closed=True)
        for spec in ACTIONS.values())

    def perform(self, action: str, **objects: str) -> str:
        """Run ``action`` on the objects (``object``, or ``object1``, ``object2``); what it changed.

        Raises:
            ToolError: The action's precondition failed, or the action or an object is unknown
                (:meth:`~toolgym.worlds.virtualhome.world.VirtualHomeWorld.act`); the world is unchanged.
        """
        try:
            return self.world.act(action, [objects[name] for name in sorted(objects)])
        except PreconditionFailed as exc:
            raise ToolError(str(exc)) from None

    def agent(self, action: str, args: list, kwargs: dict) -> str:
        """The ``Agent`` namespace of a program: ``Agent.<action>(*args)`` run on the world."""
        if kwargs:
            raise ProgramError(f"Agent.{action} takes object names, not keywords")
        return self.world.act(action, list(args))
