"""The PyBullet tabletop: a UR5e with a Robotiq 2F-85 gripper, a table, blocks and bowls.

The robot moves kinematically: each waypoint is solved with inverse kinematics and set with
``resetJointState``; the gripper (a separate body) follows the arm's ``tool0`` frame and its
mimic joints are set together. Robot and gripper take no part in the physics (their
collision masks are empty) and are only queried for contact with ``getClosestPoints``. A
held object follows the gripper rigidly; after release the objects settle under simulated
physics. That keeps a pick-and-place fast (a few dozen IK solves and ~100 physics steps) and
exactly repeatable: every ``build`` reloads the setup's objects into a world whose only other
bodies (table, robot) take no part in contacts, so a setup plays out the same after any history.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from dataclasses import dataclass
from collections.abc import Sequence

from toolgym.worlds.tabletop.assets import ASSET_DIR, BLOCK_SIZE
from toolgym.worlds.tabletop.layout import COLORS

TIME_STEP = 1.0 / 240.0
SETTLE_STEPS = 100
# PyBullet's removeBody keeps what loadURDF made for the body (a bowl's 17 collision shapes and
# the URDF bookkeeping: about 15 KB a bowl, 1 KB a block) until resetSimulation; the world is
# reset and the table and robot reloaded after this many object loads (about 75 resets).
OBJECT_LOADS_PER_WORLD = 400
HOVER_HEIGHT = 0.1           # above the highest object on the table
IK_TOLERANCE = 0.003         # a pose the arm misses by more is out of reach
GRASP_DEPTH = 0.02           # pads' center below the top of the object
CONTACT_GAP = 0.002          # a held object is released this far above what it lands on
PAD_TCP = 0.142              # pads' center along the gripper's z axis (measured on the URDF)
FINGER_OPEN, FINGER_CLOSED = 0.0, 0.8
# Where the arm waits between moves: near its base, above the top edge of the camera's view.
PARK_TCP = (0.0, -0.15, 0.4)
# Mimic multipliers of the Robotiq 2F-85's joints, driven by ``finger_joint``.
GRIPPER_MIMIC = {"finger_joint": 1.0, "left_inner_finger_joint": -1.0, "left_inner_knuckle_joint": 1.0,
                 "right_outer_knuckle_joint": 1.0, "right_inner_finger_joint": -1.0,
                 "right_inner_knuckle_joint": 1.0}
PAD_LINKS = ("left_inner_finger_pad", "right_inner_finger_pad")
ARM_JOINTS = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint",
              "wrist_3_joint")
ARM_REST = (-math.pi / 2, -math.pi / 2, math.pi / 2, -math.pi / 2, -math.pi / 2, 0.0)


@contextlib.contextmanager
def _quiet():
    """Silence pybullet's C-level prints (its build time, URDF import warnings)."""
    sys.stdout.flush()
    sys.stderr.flush()
    libc = ctypes.CDLL(None)
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        libc.fflush(None)  # C's stdout buffer still holds the prints when it is a pipe
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def _pybullet():
    try:
        with _quiet():
            import pybullet
        import airo_models
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("Tabletop-v0 needs pybullet and airo-models: pip install 'toolgym[tabletop]'") from exc
    return pybullet, airo_models


@dataclass(frozen=True)
class ObjectSpec:
    """One object of a setup: ``kind`` is "block" or "bowl"; ``xy`` its initial position."""

    color: str
    kind: str
    xy: tuple[float, float]

    @property
    def name(self) -> str:
        return f"{self.color} {self.kind}"


@dataclass
class PickPlaceResult:
    grasped: bool
    message: str


class TabletopSim:
    """One PyBullet client in DIRECT mode holding the robot, the table and a setup's objects."""

    def __init__(self):
        p, airo_models = _pybullet()
        self.p = p
        self._airo = airo_models
        with _quiet():
            self.client = p.connect(p.DIRECT)
        self._kw = {"physicsClientId": self.client}
        self.robot = self.gripper = self.table = -1
        self.objects: dict[str, int] = {}
        self.object_loads = 0
        self.pick_place_count = 0

    def close(self) -> None:
        if self.client >= 0 and self.p.isConnected(self.client):
            self.p.disconnect(self.client)
        self.client = -1

    # -- building --------------------------------------------------------------------------
    def build(self, objects: Sequence[ObjectSpec]) -> None:
        """Reset the simulation to the setup: robot parked, objects placed and settled.

        The table and the robot stay loaded (loading the meshes is the slow part); the objects
        of the previous setup are removed and the new ones loaded, which leaves the physics
        exactly as after a fresh load (the tests compare runs in both orders). Every
        ``OBJECT_LOADS_PER_WORLD`` object loads the whole world is reset and reloaded instead,
        since only ``resetSimulation`` frees what the removed objects leave behind. That reuses
        the client (its cached mesh files and its memory): a new client instead fragments the
        heap, whose resident size then wanders by several MB.
        """
        p, kw = self.p, self._kw
        if self.robot < 0 or self.object_loads + len(objects) > OBJECT_LOADS_PER_WORLD:
            self._load_static()
        for body in self.objects.values():
            p.removeBody(body, **kw)
        self.objects = {}
        self.object_loads += len(objects)
        for spec in objects:
            urdf = ASSET_DIR / f"{spec.kind}.urdf"
            z = BLOCK_SIZE / 2 if spec.kind == "block" else 0.0
            body = p.loadURDF(str(urdf), [spec.xy[0], spec.xy[1], z], **kw)
            p.changeVisualShape(body, -1, rgbaColor=(*COLORS[spec.color], 1), **kw)
            self.objects[spec.name] = body
        self._held: tuple[int, tuple, tuple] | None = None
        self._finger = FINGER_OPEN
        self._set_arm(self._park)
        self.pick_place_count = 0
        self._settle(SETTLE_STEPS)

    def _load_static(self) -> None:
        p, kw = self.p, self._kw
        p.resetSimulation(**kw)  # every body and shape goes, the objects of the last setup too
        self.objects = {}
        self.object_loads = 0
        p.setGravity(0, 0, -9.8, **kw)
        p.setTimeStep(TIME_STEP, **kw)
        p.setPhysicsEngineParameter(numSolverIterations=50, deterministicOverlappingPairs=1, **kw)
        flags = p.URDF_ENABLE_CACHED_GRAPHICS_SHAPES
        self.table = p.loadURDF(str(ASSET_DIR / "table.urdf"), [0, -0.5, 0], useFixedBase=True, **kw)
        p.changeVisualShape(self.table, -1, rgbaColor=(0.85, 0.8, 0.72, 1), **kw)
        with _quiet():
            self.robot = p.loadURDF(self._airo.get_urdf_path("ur5e"), [0, 0, 0], useFixedBase=True, flags=flags,
                                    **kw)
            self.gripper = p.loadURDF(self._airo.get_urdf_path("robotiq_2f_85"), [0, 0, 0.5], useFixedBase=True,
                                      flags=flags, **kw)
        for body in (self.robot, self.gripper):
            for link in range(-1, p.getNumJoints(body, **kw)):
                p.setCollisionFilterGroupMask(body, link, 0, 0, **kw)
        self._arm_joints = self._joint_indices(self.robot, ARM_JOINTS)
        self._tool_link = self._link_index(self.robot, "tool0")
        self._mimic = [(index, GRIPPER_MIMIC[name]) for name, index in
                       zip(GRIPPER_MIMIC, self._joint_indices(self.gripper, tuple(GRIPPER_MIMIC)))]
        self._pads = [self._link_index(self.gripper, name) for name in PAD_LINKS]
        self._held = None
        self._finger = FINGER_OPEN
        self._set_arm(ARM_REST)
        self.move_tcp(PARK_TCP, 0.0)
        self._park = self._arm

    def _joint_indices(self, body: int, names: Sequence[str]) -> list[int]:
        by_name = {self.p.getJointInfo(body, j, **self._kw)[1].decode(): j
                   for j in range(self.p.getNumJoints(body, **self._kw))}
        return [by_name[name] for name in names]

    def _link_index(self, body: int, name: str) -> int:
        for j in range(self.p.getNumJoints(body, **self._kw)):
            if self.p.getJointInfo(body, j, **self._kw)[12].decode() == name:
                return j
        raise KeyError(name)

    # -- state -----------------------------------------------------------------------------
    def positions(self) -> dict[str, tuple[float, float, float]]:
        """World positions of the objects (their base frames: a block's center, a bowl's floor)."""
        return {name: tuple(self.p.getBasePositionAndOrientation(body, **self._kw)[0])
                for name, body in self.objects.items()}

    def yaw(self, name: str) -> float:
        orientation = self.p.getBasePositionAndOrientation(self.objects[name], **self._kw)[1]
        return self.p.getEulerFromQuaternion(orientation)[2]

    def tcp_position(self) -> tuple[float, float, float]:
        pads = [self.p.getLinkState(self.gripper, link, **self._kw)[4] for link in self._pads]
        return tuple((a + b) / 2 for a, b in zip(*pads))

    @contextlib.contextmanager
    def undone_on_error(self):
        """Run the block; if it raises, put the simulation back as it was before it, exactly.

        PyBullet's in-memory ``saveState`` holds every body's pose and velocity, the joints
        and the contact cache; the arm's Python-side bookkeeping is saved beside it. The saved
        state is removed either way, so memory stays bounded however many blocks fail.
        """
        state = self.p.saveState(**self._kw)
        kinematics = (self._arm, self._finger, self._held, self.pick_place_count)
        try:
            yield
        except BaseException:
            self.p.restoreState(stateId=state, **self._kw)
            self._arm, self._finger, self._held, self.pick_place_count = kinematics
            raise
        finally:
            self.p.removeState(state, **self._kw)

    # -- kinematics ------------------------------------------------------------------------
    def _set_arm(self, joints: Sequence[float]) -> None:
        for index, value in zip(self._arm_joints, joints):
            self.p.resetJointState(self.robot, index, value, **self._kw)
        self._arm = tuple(joints)
        self._follow_tool()

    def _follow_tool(self) -> None:
        state = self.p.getLinkState(self.robot, self._tool_link, computeForwardKinematics=True, **self._kw)
        self.p.resetBasePositionAndOrientation(self.gripper, state[4], state[5], **self._kw)
        self._set_fingers(self._finger)  # resetting joints refreshes the links' collision transforms
        if self._held is not None:
            body, rel_pos, rel_orn = self._held
            pos, orn = self.p.multiplyTransforms(state[4], state[5], rel_pos, rel_orn)
            self.p.resetBasePositionAndOrientation(body, pos, orn, **self._kw)
            self.p.resetBaseVelocity(body, (0, 0, 0), (0, 0, 0), **self._kw)

    def _set_fingers(self, value: float) -> None:
        for index, multiplier in self._mimic:
            self.p.resetJointState(self.gripper, index, multiplier * value, **self._kw)
        self._finger = value

    def move_tcp(self, xyz: Sequence[float], yaw: float) -> float:
        """Put the pads' center at ``xyz``, pointing down with ``yaw``; returns the residual error.

        IK starts from the current joints; when that ends far off (a local minimum after an
        awkward pose) it starts again from the rest pose.
        """
        error = self._solve_ik(xyz, yaw)
        if error > IK_TOLERANCE:
            before = self._arm
            self._set_arm(ARM_REST)
            if self._solve_ik(xyz, yaw) > error:
                self._set_arm(before)
                self._solve_ik(xyz, yaw)
            error = self._residual(xyz)
        return error

    def _solve_ik(self, xyz: Sequence[float], yaw: float) -> float:
        p = self.p
        orientation = p.getQuaternionFromEuler((math.pi, 0.0, yaw))
        tool = (xyz[0], xyz[1], xyz[2] + PAD_TCP)
        error = math.inf
        for _ in range(4):
            joints = p.calculateInverseKinematics(self.robot, self._tool_link, tool, orientation,
                                                  maxNumIterations=100, residualThreshold=1e-6, **self._kw)
            self._set_arm(joints[:len(self._arm_joints)])
            error = self._residual(xyz)
            if error < 2e-4:
                break
        return error

    def _residual(self, xyz: Sequence[float]) -> float:
        reached = self.p.getLinkState(self.robot, self._tool_link, **self._kw)[4]
        return math.dist(reached, (xyz[0], xyz[1], xyz[2] + PAD_TCP))

    def unreachable(self, xy: Sequence[float]) -> bool:
        """Whether the top-down gripper cannot reach ``xy`` at the travel height (the arm is put back)."""
        before = self._arm
        error = self.move_tcp((xy[0], xy[1], self._travel_height(self.surface_height(xy)[0])), 0.0)
        self._set_arm(before)
        return error > IK_TOLERANCE

    def _travel_height(self, top: float) -> float:
        return max(top, self._highest_top()) + HOVER_HEIGHT

    # -- queries ---------------------------------------------------------------------------
    def _touching(self, body_a: int, body_b: int, link_a: int | None = None, gap: float = 0.0) -> bool:
        """Whether ``body_a`` (only its link ``link_a`` if given) is within ``gap`` of ``body_b``."""
        link = {} if link_a is None else {"linkIndexA": link_a}
        return bool(self.p.getClosestPoints(body_a, body_b, gap, **link, **self._kw))

    def surface_height(self, xy: Sequence[float]) -> tuple[float, int]:
        """Height of the topmost surface at ``xy`` and the body it belongs to."""
        p = self.p
        skip = {self.robot, self.gripper}
        start, end = (xy[0], xy[1], 1.0), (xy[0], xy[1], -0.1)
        hits = p.rayTestBatch([start], [end], **self._kw)[0]
        body, z = hits[0], hits[3][2]
        while body in skip and body >= 0:
            start = (xy[0], xy[1], z - 1e-4)
            hits = p.rayTestBatch([start], [end], **self._kw)[0]
            body, z = hits[0], hits[3][2]
        return (z if body >= 0 else 0.0), body

    # -- the primitive ---------------------------------------------------------------------
    def pick_place(self, pick_xy: Sequence[float], place_xy: Sequence[float]) -> PickPlaceResult:
        """Pick what lies at ``pick_xy`` top-down and put it at ``place_xy``.

        Hover, descend, close the gripper until the pads touch, lift, move, descend until the
        held object touches what is below it, open, retreat, and let the objects settle.
        """
        self.pick_place_count += 1
        top, body = self.surface_height(pick_xy)
        target = next((name for name, b in self.objects.items() if b == body), None)
        yaw = self._grasp_yaw(target)
        travel = self._travel_height(top)
        self.move_tcp((pick_xy[0], pick_xy[1], travel), yaw)
        self.move_tcp((pick_xy[0], pick_xy[1], self._descend_open(pick_xy, top - GRASP_DEPTH, travel, yaw)), yaw)
        grasped = target is not None and self._close_on(body)
        if not grasped:
            self._set_fingers(FINGER_OPEN)
            self.move_tcp((pick_xy[0], pick_xy[1], travel), yaw)
            self._set_arm(self._park)
            what = "nothing to grasp there" if target is None else f"the grasp of the {target} did not hold"
            return PickPlaceResult(False, f"pick at ({pick_xy[0]:.3f}, {pick_xy[1]:.3f}) failed: {what}")
        state = self.p.getLinkState(self.robot, self._tool_link, **self._kw)
        obj_pos, obj_orn = self.p.getBasePositionAndOrientation(body, **self._kw)
        inv_pos, inv_orn = self.p.invertTransform(state[4], state[5])
        self._held = (body, *self.p.multiplyTransforms(inv_pos, inv_orn, obj_pos, obj_orn))
        self.move_tcp((pick_xy[0], pick_xy[1], travel), yaw)
        self.move_tcp((place_xy[0], place_xy[1], travel), yaw)
        self._lower_until_contact(body, place_xy, yaw)
        self._held = None
        self._set_fingers(FINGER_OPEN)
        tcp = self.tcp_position()
        self.move_tcp((place_xy[0], place_xy[1], tcp[2] + HOVER_HEIGHT), yaw)
        self._set_arm(self._park)
        self._settle(SETTLE_STEPS)
        return PickPlaceResult(True, f"placed the {target} at ({place_xy[0]:.3f}, {place_xy[1]:.3f})")

    def _grasp_yaw(self, target: str | None) -> float:
        """The gripper's yaw: square to the object's faces, the turn nearest to zero."""
        if target is None:
            return 0.0
        yaw = self.yaw(target) % (math.pi / 2)
        return yaw - math.pi / 2 if yaw > math.pi / 4 else yaw

    def _highest_top(self) -> float:
        tops = [self.p.getAABB(body, **self._kw)[1][2] for body in self.objects.values()]
        return max(tops, default=0.0)

    def _gripper_at(self, xyz: Sequence[float], yaw: float) -> None:
        """Put the gripper alone (not the arm) with its pads' center at ``xyz``: for contact queries."""
        orientation = self.p.getQuaternionFromEuler((math.pi, 0.0, yaw))
        self.p.resetBasePositionAndOrientation(self.gripper, (xyz[0], xyz[1], xyz[2] + PAD_TCP), orientation,
                                               **self._kw)
        self._set_fingers(self._finger)  # resetting joints refreshes the links' collision transforms

    def _descend_open(self, xy: Sequence[float], target_z: float, travel: float, yaw: float) -> float:
        """The lowest height down to ``target_z`` the open gripper reaches without touching anything."""
        bodies = (*self.objects.values(), self.table)

        def blocked(z: float) -> bool:
            self._gripper_at((xy[0], xy[1], z), yaw)
            return any(self._touching(self.gripper, body) for body in bodies)

        if not blocked(target_z):
            return target_z
        free, hit = travel, target_z
        for _ in range(12):
            middle = (free + hit) / 2
            if blocked(middle):
                hit = middle
            else:
                free = middle
        return free

    def _close_on(self, body: int) -> bool:
        """Close the fingers until a pad touches ``body``; the grasp holds if both pads then
        touch it from the side (a pad resting on top of or under a surface holds nothing)."""
        low, high = FINGER_OPEN, FINGER_CLOSED
        self._set_fingers(high)
        if not any(self._touching(self.gripper, body, pad) for pad in self._pads):
            return False
        for _ in range(12):
            middle = (low + high) / 2
            self._set_fingers(middle)
            if any(self._touching(self.gripper, body, pad) for pad in self._pads):
                high = middle
            else:
                low = middle
        self._set_fingers(high)
        return all(self._side_contact(pad, body) for pad in self._pads)

    def _side_contact(self, pad: int, body: int) -> bool:
        points = self.p.getClosestPoints(self.gripper, body, 0.003, linkIndexA=pad, **self._kw)
        return any(abs(point[7][2]) < 0.5 for point in points)

    def _lower_until_contact(self, body: int, place_xy: Sequence[float], yaw: float) -> None:
        """Lower the held object until it is within CONTACT_GAP of another body (steps, then bisection)."""
        others = [b for b in (*self.objects.values(), self.table) if b != body]
        tcp_z = self.tcp_position()[2]
        obj_z = self.p.getBasePositionAndOrientation(body, **self._kw)[0][2]
        grip_offset = tcp_z - obj_z

        def touches(z: float) -> bool:
            pos, orn = self.p.getBasePositionAndOrientation(body, **self._kw)
            self.p.resetBasePositionAndOrientation(body, (pos[0], pos[1], z), orn, **self._kw)
            return any(self._touching(body, other, gap=CONTACT_GAP) for other in others)

        high, low = obj_z, BLOCK_SIZE / 2 - 0.005
        step = 0.02
        z = high
        while z - step > low and not touches(z - step):
            z -= step
        high, low = z, z - step
        for _ in range(10):
            middle = (high + low) / 2
            if touches(middle):
                low = middle
            else:
                high = middle
        self.move_tcp((place_xy[0], place_xy[1], high + grip_offset), yaw)

    def _settle(self, steps: int) -> None:
        for _ in range(steps):
            self.p.stepSimulation(**self._kw)
        # The robot is kinematic: undo whatever the joint dynamics did during the steps.
        self._set_arm(self._arm)
        self._set_fingers(self._finger)

    # -- rendering -------------------------------------------------------------------------
    def render(self, width: int = 320, height: int = 320):
        """A top-down RGB image of the table (numpy uint8, height x width x 3)."""
        import numpy as np

        p = self.p
        view = p.computeViewMatrix(cameraEyePosition=(0, -0.5, 1.3), cameraTargetPosition=(0, -0.5, 0),
                                   cameraUpVector=(0, 1, 0), **self._kw)
        projection = p.computeProjectionMatrixFOV(fov=34, aspect=width / height, nearVal=0.1, farVal=2.0,
                                                  **self._kw)
        image = p.getCameraImage(width, height, view, projection, renderer=p.ER_TINY_RENDERER, **self._kw)[2]
        return np.asarray(image, dtype=np.uint8).reshape(height, width, 4)[:, :, :3].copy()
