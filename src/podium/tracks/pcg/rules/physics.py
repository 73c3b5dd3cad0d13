"""Science Birds physics without Unity: Box2D 2.3 (the engine Unity 2019.4 wraps) set up like the evaluator.

Every number comes from the evaluator's scenes and prefabs (``docs/rules/pcg.md`` §5), kept in ``PhysicsParameters``.
Choices that are ours, measured against the 150 Unity levels (``docs/design/physics.md``):
- damage from the contact point: at BeginContact each block loses ``|v_B(p) - v_A(p)|`` (p = mean manifold
  point), the ground takes none; a block whose life reaches 0 stops, loses its collider, falls, and leaves the
  level 0.5 s later;
- the start position of a block is its XML pose (as float32, like Unity's parser);
- rotation never counts as movement.

A run's loop is written twice with the same floats: here over pybox2d, and in C++ in ``native/``, which runs it
without the binding's Python callbacks and is used when it was built (``docs/design/physics.md``, "Two engines,
one result").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
from Box2D import b2ContactListener, b2PolygonShape, b2Vec2, b2World

from podium.tracks.pcg.official.levelxml import LevelFile
from podium.tracks.pcg.rules import native


@dataclass(frozen=True, slots=True)
class BlockGeometry:
    """The collider of one Science Birds block prefab (full sizes, Unity units)."""

    width: float
    height: float


@dataclass(frozen=True, slots=True)
class PhysicsParameters:
    """Everything the evaluator's physics depends on, with units in the names."""

    gravity_y_m_s2: float = -9.81
    gravity_scale: float = 0.5
    time_step_s: float = 0.02
    velocity_iterations: int = 100
    position_iterations: int = 100
    duration_s: float = 10.0
    wood_friction: float = 4.0
    wood_restitution: float = 0.0
    ground_friction: float = 0.4  # the ground has no physics material: Unity's default
    density_kg_m2: float = 1.0
    linear_drag_1_s: float = 1.0
    angular_drag_1_s: float = 0.05
    polygon_radius_m: float = 0.01  # Box2D's skin; 0.005 or 0.02 cost 1-4 points of image IoU
    ground_top_y_m: float = -3.4999998
    ground_centres_x_m: tuple[float, ...] = (-13.125, 4.365, 21.855)  # three Landscape prefabs (level width 3)
    ground_width_m: float = 17.49
    block_life: float = 5.0  # wood
    dead_block_removal_s: float = 0.5  # a dead block is destroyed this long after it died
    movement_threshold_m: float = 0.1
    runs: int = 3  # best of up to this many runs; stop at the first that scores 1
    run_seed: int = 20230323  # seeds the creation order of runs 2.. (run 1 keeps the XML order)

    @property
    def steps(self) -> int:
        """Fixed steps in one run."""
        return round(self.duration_s / self.time_step_s)


BLOCK_GEOMETRY: dict[str, BlockGeometry] = {
    "SquareTiny": BlockGeometry(0.22, 0.21),
    "RectSmall": BlockGeometry(0.70, 0.22),
}
OCR_SPRITE_PAD_M = 0.01  # the black OCR sprites are 0.01 larger than the collider on every side


class UnsupportedLevel(ValueError):
    """A level with an object the evaluator's block physics does not model; the message names it."""


@dataclass(frozen=True, slots=True)
class BlockPose:
    """Where a block is: centre (m), rotation (rad) and its collider."""

    x: float
    y: float
    angle_rad: float
    geometry: BlockGeometry


@dataclass(frozen=True, slots=True)
class RunResult:
    """One simulated run: how many blocks moved, and the poses of the blocks still in the level at the end."""

    starting: int
    moving: int
    final_poses: tuple[BlockPose, ...]

    @property
    def score(self) -> float:
        """``1 - moving/starting`` as Unity stores it (a float32); NaN for a level without blocks."""
        if self.starting == 0:
            return math.nan
        return float(np.float32(1.0 - self.moving / self.starting))


def _f32(value: float) -> float:
    return float(np.float32(value))


def level_blocks(level: LevelFile) -> list[tuple[float, float, float, BlockGeometry]]:
    """The blocks of ``level`` as (x, y, angle rad, geometry), in file order, at Unity's float32 precision."""
    blocks = []
    for obj in level.objects:
        geometry = BLOCK_GEOMETRY.get(obj.type) if obj.kind == "Block" else None
        if geometry is None:
            raise UnsupportedLevel(f"unsupported object <{obj.kind} type={obj.type!r}> (only SquareTiny and RectSmall)")
        angle = math.radians(_f32(float(obj.rotation_deg)))
        blocks.append((_f32(float(obj.x)), _f32(float(obj.y)), angle, geometry))
    return blocks


class _DamageListener(b2ContactListener):  # type: ignore[misc]
    """Collects impact speeds at BeginContact; bodies are changed only after the step (Box2D forbids it inside).

    A block's ``userData`` is its place in creation order, which indexes ``life``; the ground's is None. (Keys must
    come from the body itself: the binding hands the callback a new Python proxy for each body on every call.)
    ``dying`` collects the blocks whose life fell to 0 or below during the step, so that the loop after the step
    looks at those alone (in creation order) instead of at every block.
    """

    def __init__(self) -> None:
        super().__init__()
        self.life: list[float] = []
        self.dying: list[int] = []

    def BeginContact(self, contact: object) -> None:  # noqa: N802 - Box2D's callback name
        body_a = contact.fixtureA.body  # type: ignore[attr-defined]
        body_b = contact.fixtureB.body  # type: ignore[attr-defined]
        count = contact.manifold.pointCount  # type: ignore[attr-defined]
        if count == 0:
            return
        points = contact.worldManifold.points[:count]  # type: ignore[attr-defined]
        px = sum(p[0] for p in points) / count
        py = sum(p[1] for p in points) / count
        va = body_a.GetLinearVelocityFromWorldPoint((px, py))
        vb = body_b.GetLinearVelocityFromWorldPoint((px, py))
        dx, dy = vb[0] - va[0], vb[1] - va[1]
        speed = math.sqrt(dx * dx + dy * dy)  # written out, so that the native engine computes the same double
        for body in (body_a, body_b):
            position = body.userData
            if position is not None:  # blocks only: the ground takes no damage
                life = self.life[position]
                self.life[position] = life - speed
                if life > 0 >= life - speed:
                    self.dying.append(position)


def simulate_run(
    blocks: list[tuple[float, float, float, BlockGeometry]], params: PhysicsParameters, order: list[int]
) -> RunResult:
    """Simulate one run with the blocks created in ``order`` and measure which moved.

    The native engine (``native/``) and pybox2d run the same loop and give the same floats; the native one skips the
    binding's Python callbacks.
    """
    created = [blocks[index] for index in order]
    if native.use_native():
        boxes = [(x, y, angle, geometry.width / 2, geometry.height / 2) for x, y, angle, geometry in created]
        poses, removed = native.simulate(params, boxes)
    else:
        poses, removed = _pybox2d_run(created, params)
    moving = 0
    final = []
    for (x0, y0, _, geometry), index, (x1, y1, angle), gone in zip(created, order, poses, removed, strict=True):
        if not gone:
            final.append((index, BlockPose(x1, y1, angle, geometry)))
        if math.hypot(x1 - x0, y1 - y0) >= params.movement_threshold_m:
            moving += 1
    final.sort(key=lambda item: item[0])
    return RunResult(len(created), moving, tuple(pose for _, pose in final))


def _pybox2d_run(
    created: list[tuple[float, float, float, BlockGeometry]], params: PhysicsParameters
) -> native.RunOutcome:
    """One run through pybox2d, the blocks created in the order given (``box2d_run.cpp`` is this, call for call)."""
    listener = _DamageListener()
    world = b2World(gravity=(0.0, params.gravity_y_m_s2), doSleep=True, contactListener=listener)
    world.continuousPhysics = True
    half_width = params.ground_width_m / 2
    for centre_x in params.ground_centres_x_m:
        ground = world.CreateStaticBody(position=(centre_x, params.ground_top_y_m - 0.5))
        shape = b2PolygonShape(box=(half_width, 0.5))
        ground.CreateFixture(shape=shape, friction=params.ground_friction, restitution=0.0)

    bodies: list[Any] = []  # in creation order
    for x, y, angle, geometry in created:
        body = world.CreateDynamicBody(
            position=(x, y),
            angle=angle,
            gravityScale=params.gravity_scale,
            linearDamping=params.linear_drag_1_s,
            angularDamping=params.angular_drag_1_s,
            userData=len(bodies),
        )
        shape = b2PolygonShape(box=(geometry.width / 2, geometry.height / 2))
        shape.radius = params.polygon_radius_m
        body.CreateFixture(
            shape=shape,
            density=params.density_kg_m2,
            friction=params.wood_friction,
            restitution=params.wood_restitution,
        )
        listener.life.append(params.block_life)
        if params.block_life <= 0:
            listener.dying.append(len(bodies))  # dead from the start: it dies after the first step
        bodies.append(body)

    removal_steps = round(params.dead_block_removal_s / params.time_step_s)
    poses: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)] * len(bodies)
    removed = [False] * len(bodies)
    died_at: dict[int, int] = {}  # creation place → step
    dead: list[int] = []  # died, not yet removed, in the order they died
    for step in range(1, params.steps + 1):
        world.Step(params.time_step_s, params.velocity_iterations, params.position_iterations)
        for place in [place for place in dead if step - died_at[place] >= removal_steps]:
            position = bodies[place].position
            poses[place] = (position[0], position[1], 0.0)
            removed[place] = True
            dead.remove(place)
        if listener.dying:
            # in creation order, as a walk over every block would meet them: the order of changes to the world
            # decides the order of its contacts, and so the next steps
            for place in sorted(listener.dying):
                body = bodies[place]
                died_at[place] = step
                dead.append(place)
                body.linearVelocity = b2Vec2(0, 0)
                body.angularVelocity = 0.0
                for fixture in list(body.fixtures):
                    body.DestroyFixture(fixture)
                body.awake = True
            listener.dying.clear()
        # Sleeping bodies only wake through contacts, so once every body sleeps nothing can change any more.
        if step % 10 == 0 and not dead and not any(bodies[i].awake for i, gone in enumerate(removed) if not gone):
            break
    for place, body in enumerate(bodies):
        if not removed[place]:
            position = body.position
            poses[place] = (position[0], position[1], body.angle)
    return poses, removed


@dataclass(frozen=True, slots=True)
class StabilityResult:
    """Unity's stability record of a level: the best score of up to ``runs`` runs, counts of the LAST run."""

    score: float
    starting: int
    moving: int
    runs: int
    image_poses: tuple[BlockPose, ...]  # final poses of the first run (XML creation order), for the image


def evaluate_stability(level: LevelFile, params: PhysicsParameters) -> StabilityResult:
    """Run the level up to ``params.runs`` times (run 1 in file order, later ones in seeded shuffled orders)."""
    blocks = level_blocks(level)
    order = list(range(len(blocks)))
    best = -math.inf
    first: RunResult | None = None
    run = RunResult(0, 0, ())
    runs = 0
    shuffler = random.Random(params.run_seed)
    for runs in range(1, params.runs + 1):
        if runs > 1:
            order = order[:]
            shuffler.shuffle(order)
        run = simulate_run(blocks, params, order)
        first = first or run
        if not math.isnan(run.score):
            best = max(best, run.score)
        if run.score == 1.0 or not blocks:
            break
    score = best if best != -math.inf else math.nan
    assert first is not None
    return StabilityResult(score, run.starting, run.moving, runs, first.final_poses)
