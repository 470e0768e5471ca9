"""The Code-as-Policies tabletop (PyBullet UR5e + Robotiq 2F-85); pybullet loads on first use."""

from toolgym.worlds.tabletop.tasks import TASK_TYPE_NAMES, TabletopTask, builtin_tasks, make_task

__all__ = ["TASK_TYPE_NAMES", "TabletopTask", "builtin_tasks", "make_task"]
