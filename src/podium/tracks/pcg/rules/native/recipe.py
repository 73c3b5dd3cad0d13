"""What the native engine is built from, and the digest that stamps a library built from exactly that.

``scripts/build_pcg_physics.py`` builds from this recipe and compiles its digest into the library
(``pcg_build_digest``); ``native._library`` refuses a library whose stamp differs. A library left from before an
edit of ``box2d_run.cpp`` or of the flags (a ``git pull`` with no rebuild, a rebuild that failed) would otherwise
judge with code that is no longer podium's, and nothing would show it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

NATIVE = Path(__file__).parent  # the engine's sources, in the installed package
ENGINE_SOURCE = NATIVE / "box2d_run.cpp"
PROFILE_CLOCK = NATIVE / "profile_clock.cpp"  # replaces Box2D's b2Timer.cpp
SOURCE_ARCHIVE = "Box2D-2.3.2.tar.gz"
SOURCE_REQUIREMENT = "box2d==2.3.2"
SOURCE_SHA256 = "d1557dffdf9c1d6c796ec5df53e3d93227bb026c14b8411d22c295edaa2fb225"
SOURCE_FOLDERS = ("Collision", "Common", "Dynamics")  # of the archive's Box2D/; Rope and the testbed are not needed
REPLACED = ("Common/b2Timer.cpp",)  # Box2D's files that podium's own stand in for
# -flto lets the linker inline across Box2D's files (about 3 % of a run); it changes no floating-point operation
FLAGS = ("-O3", "-DNDEBUG", "-fwrapv", "-fPIC", "-ffp-contract=off", "-flto", "-std=c++11", "-w")


@cache
def build_digest() -> str:
    """SHA-256 over everything above that decides what the library computes: podium's sources, Box2D's, the flags."""
    digest = hashlib.sha256()
    for part in (SOURCE_SHA256, repr(SOURCE_FOLDERS), repr(REPLACED), repr(FLAGS)):
        digest.update(part.encode() + b"\0")
    for source in (ENGINE_SOURCE, PROFILE_CLOCK):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()
