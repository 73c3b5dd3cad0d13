"""The native physics engine: ``physics.simulate_run``'s loop in C++ over the same Box2D, same results, no Python.

A stability run spends a third of its time in pybox2d calling back into Python: the binding's contact listener calls
Python's ``PreSolve`` and ``PostSolve`` for every touching contact at every step, though podium needs only
``BeginContact``. ``box2d_run.cpp`` runs the whole loop (world, blocks, damage, deaths, removals, the early stop)
in C++ instead; ``scripts/build_pcg_physics.py`` compiles it against the Box2D 2.3 sources of pybox2d into
``libpcgbox2d.so`` beside this file. Where that library is missing (no C++ compiler when podium was installed, or a
worker on another machine), ``physics.py`` runs the same loop through pybox2d, with the same floats
(``tests/tracks/pcg/rules/test_native.py``).

``PODIUM_PCG_PHYSICS`` chooses: ``auto`` (the default: native when built), ``native`` (fail without it) or
``pybox2d``. ``PODIUM_PCG_PHYSICS_LIB`` names another library file. A library that was not built from this podium's
sources (``recipe.py``: a pull or an edit since the last build) is refused, with the fix, under ``auto`` as under
``native``: it could compute other results, and quietly falling back to pybox2d would hide a build to redo.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from podium.core.errors import ConfigError, DependencyError, PodiumError
from podium.tracks.pcg.rules.native.recipe import build_digest

if TYPE_CHECKING:  # physics.py imports this module
    from podium.tracks.pcg.rules.physics import PhysicsParameters

# Per block in creation order: (x, y, angle) and whether it left the level. A removed block's (x, y) is where it was
# when it left and its angle means nothing; the others' is their final pose. Both engines return this.
RunOutcome = tuple[list[tuple[float, float, float]], list[bool]]

LIBRARY_NAME = "libpcgbox2d.so"
ENGINE_VARIABLE = "PODIUM_PCG_PHYSICS"
LIBRARY_VARIABLE = "PODIUM_PCG_PHYSICS_LIB"


BUILD_COMMAND = "`python scripts/build_pcg_physics.py` in a podium checkout (needs g++; `make install` runs it)"
WITHOUT = f"or set {ENGINE_VARIABLE}=pybox2d (the same results, slower)"


class NativePhysicsError(DependencyError):
    """The native engine cannot be used: missing where it was asked for, or built from other sources."""


class _Parameters(ctypes.Structure):
    """``PcgRunParameters`` of ``box2d_run.cpp``, field for field."""

    _fields_ = [
        ("gravity_y", ctypes.c_double),
        ("gravity_scale", ctypes.c_double),
        ("time_step", ctypes.c_double),
        ("linear_drag", ctypes.c_double),
        ("angular_drag", ctypes.c_double),
        ("polygon_radius", ctypes.c_double),
        ("density", ctypes.c_double),
        ("wood_friction", ctypes.c_double),
        ("wood_restitution", ctypes.c_double),
        ("ground_friction", ctypes.c_double),
        ("ground_top_y", ctypes.c_double),
        ("ground_half_width", ctypes.c_double),
        ("block_life", ctypes.c_double),
        ("ground_centres_x", ctypes.POINTER(ctypes.c_double)),
        ("ground_count", ctypes.c_int32),
        ("velocity_iterations", ctypes.c_int32),
        ("position_iterations", ctypes.c_int32),
        ("steps", ctypes.c_int32),
        ("removal_steps", ctypes.c_int32),
    ]


def library_path() -> Path:
    """Where the built engine is looked for: ``$PODIUM_PCG_PHYSICS_LIB``, else beside this module."""
    named = os.environ.get(LIBRARY_VARIABLE)
    return Path(named) if named else Path(__file__).with_name(LIBRARY_NAME)


def built_from(path: Path) -> str | None:
    """The recipe digest stamped in the library at ``path`` (``None`` for a library with no stamp)."""
    return _stamp(ctypes.CDLL(str(path)))


def _stamp(library: ctypes.CDLL) -> str | None:
    try:
        stamp = library.pcg_build_digest
    except AttributeError:
        return None
    stamp.restype = ctypes.c_char_p
    value: bytes = stamp()
    return value.decode()


@cache
def _library() -> ctypes.CDLL | None:
    path = library_path()
    if not path.is_file():
        return None
    library = ctypes.CDLL(str(path))
    if (stamp := _stamp(library)) != build_digest():
        raise NativePhysicsError(
            f"the native physics engine was built from other sources than this podium's (its stamp {stamp!r}, "
            f"this podium's {build_digest()!r}), so it may compute other results",
            fix=f"rebuild it with {BUILD_COMMAND}, delete it to run on pybox2d, {WITHOUT}",
            path=path,
        )
    library.pcg_simulate_run.restype = ctypes.c_int
    library.pcg_simulate_run.argtypes = [
        ctypes.POINTER(_Parameters),
        ctypes.POINTER(ctypes.c_double),
        ctypes.c_int32,
        ctypes.POINTER(ctypes.c_double),
        ctypes.POINTER(ctypes.c_int32),
    ]
    return library


def use_native() -> bool:
    """Whether runs go to the native engine, as ``PODIUM_PCG_PHYSICS`` says; raises if it must and cannot."""
    choice = os.environ.get(ENGINE_VARIABLE, "auto")
    if choice == "pybox2d":
        return False
    if choice not in ("auto", "native"):
        raise ConfigError(f"{ENGINE_VARIABLE}={choice!r} is not an engine", fix="use auto, native or pybox2d")
    available = _library() is not None
    if choice == "native" and not available:
        raise NativePhysicsError(
            f"{ENGINE_VARIABLE}=native but the native physics engine is not built",
            fix=f"build it with {BUILD_COMMAND}, {WITHOUT}",
            path=library_path(),
        )
    return available


@cache
def _parameters(params: PhysicsParameters) -> tuple[_Parameters, ctypes.Array[ctypes.c_double]]:
    centres = (ctypes.c_double * len(params.ground_centres_x_m))(*params.ground_centres_x_m)
    fields = _Parameters(
        gravity_y=params.gravity_y_m_s2,
        gravity_scale=params.gravity_scale,
        time_step=params.time_step_s,
        linear_drag=params.linear_drag_1_s,
        angular_drag=params.angular_drag_1_s,
        polygon_radius=params.polygon_radius_m,
        density=params.density_kg_m2,
        wood_friction=params.wood_friction,
        wood_restitution=params.wood_restitution,
        ground_friction=params.ground_friction,
        ground_top_y=params.ground_top_y_m,
        ground_half_width=params.ground_width_m / 2,
        block_life=params.block_life,
        ground_centres_x=centres,
        ground_count=len(centres),
        velocity_iterations=params.velocity_iterations,
        position_iterations=params.position_iterations,
        steps=params.steps,
        removal_steps=round(params.dead_block_removal_s / params.time_step_s),
    )
    return fields, centres  # the array is returned too, so that it lives as long as the pointer to it


def simulate(params: PhysicsParameters, blocks: Sequence[tuple[float, float, float, float, float]]) -> RunOutcome:
    """Run ``blocks`` (x, y, angle, half width, half height, in creation order) once.

    Returns, per block in creation order, (x, y, angle) and whether it left the level: a removed block's position
    when it left (its angle is meaningless), otherwise its final pose.
    """
    library = _library()
    assert library is not None, "use_native() said no"
    count = len(blocks)
    flat = (ctypes.c_double * (5 * count))(*[value for block in blocks for value in block])
    poses = (ctypes.c_double * (3 * count))()
    removed = (ctypes.c_int32 * count)()
    fields, _ = _parameters(params)
    if library.pcg_simulate_run(ctypes.byref(fields), flat, count, poses, removed) < 0:
        raise PodiumError(
            "the native physics engine failed inside Box2D", fix=f"set {ENGINE_VARIABLE}=pybox2d to compare"
        )
    return [(poses[3 * i], poses[3 * i + 1], poses[3 * i + 2]) for i in range(count)], [bool(r) for r in removed]
