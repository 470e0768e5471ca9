"""A small lending library: the example world of docs/adding-an-env.md."""

from toolgym.worlds.example.tasks import LibraryTask, builtin_tasks
from toolgym.worlds.example.tools import LibraryTools
from toolgym.worlds.example.world import LibraryWorld

__all__ = ["LibraryTask", "LibraryTools", "LibraryWorld", "builtin_tasks"]
