"""Build the native physics engine: ``box2d_run.cpp`` and pybox2d's Box2D 2.3 sources into ``libpcgbox2d.so``.

    python scripts/build_pcg_physics.py [--output FILE] [--work DIR]

What is built, and with which flags, is ``podium/tracks/pcg/rules/native/recipe.py``. The Box2D sources come from
pybox2d's source archive on PyPI (``Box2D-2.3.2.tar.gz``, checked against the recipe's SHA-256), whose C++ is the
Box2D that the ``box2d`` wheels podium runs on are built from; nothing of it is kept in this repository. The
compiler flags are the wheel's (``-O3 -DNDEBUG -fwrapv``) plus ``-ffp-contract=off`` and ``-flto``, and never a
``-march`` or fast-math: every float operation must happen as written, or the two engines would part
(``tests/tracks/pcg/rules/test_native.py`` compares them). Box2D's profiling timer is replaced by
``profile_clock.cpp``, which reads no clock. The library is stamped with the recipe's digest, and podium refuses a
library whose stamp is not that of its own sources. Needs ``g++`` (``CXX`` names another) and pip's access to
PyPI. ``make install`` (so ``make demo``) runs this and goes on without it when it fails; ``make test`` needs it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from podium.tracks.pcg.rules.native import library_path
from podium.tracks.pcg.rules.native.recipe import (
    ENGINE_SOURCE,
    FLAGS,
    PROFILE_CLOCK,
    REPLACED,
    SOURCE_ARCHIVE,
    SOURCE_FOLDERS,
    SOURCE_REQUIREMENT,
    SOURCE_SHA256,
    build_digest,
)

DEFAULT_WORK = Path(__file__).resolve().parents[1] / "build" / "pcg-box2d"  # ignored by git


class BuildError(RuntimeError):
    """The engine could not be built; the message says what is missing and what to do."""


def fetch_sources(work: Path) -> Path:
    """The archive's ``Box2D/`` folder, unpacked under ``work`` (downloaded once, then reused)."""
    archive = work / SOURCE_ARCHIVE
    if not archive.is_file():
        work.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "-d", str(work)]
        done = subprocess.run([*command, SOURCE_REQUIREMENT], capture_output=True, text=True, check=False)
        if done.returncode != 0 or not archive.is_file():
            raise BuildError(f"could not download {SOURCE_REQUIREMENT}'s sources with pip:\n{done.stderr.strip()}")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        raise BuildError(f"{archive} has SHA-256 {digest}, not {SOURCE_SHA256}: delete it and build again")
    unpacked = work / "src"
    if not (unpacked / "Box2D" / "Box2D.h").is_file():
        shutil.rmtree(unpacked, ignore_errors=True)
        with tarfile.open(archive) as tar:
            prefix = f"{SOURCE_ARCHIVE.removesuffix('.tar.gz')}/"
            members = [m for m in tar.getmembers() if m.name.startswith(f"{prefix}Box2D/") and m.isfile()]
            for member in members:
                member.name = member.name.removeprefix(prefix)
            tar.extractall(unpacked, members=members, filter="data")
    return unpacked


# pybox2d's b2Settings.h turns a failed b2Assert into a Python AssertionError and a C++ exception, and includes
# Python.h for it. The engine has no Python: this stand-in keeps every check (so the code run is the wheel's) and
# only the exception, which box2d_run.cpp catches and reports.
PYTHON_STAND_IN = """// written by podium's scripts/build_pcg_physics.py: b2Assert's Python half, without Python
#pragma once
static inline void PyErr_SetString(const void*, const char*) {}
#define PyExc_AssertionError nullptr
"""


def compile_library(sources: Path, output: Path, compiler: str) -> None:
    """Compile the engine and Box2D's sources in parallel, then link ``output`` (written whole or not at all)."""
    box2d = sources / "Box2D"
    found = [path for folder in SOURCE_FOLDERS for path in (box2d / folder).rglob("*.cpp")]
    kept = [path for path in found if path.relative_to(box2d).as_posix() not in REPLACED]
    units = [ENGINE_SOURCE, PROFILE_CLOCK, *sorted(kept)]
    with tempfile.TemporaryDirectory(prefix="pcg-box2d-") as scratch:
        objects = [Path(scratch) / f"{index}.o" for index in range(len(units))]
        (Path(scratch) / "Python.h").write_text(PYTHON_STAND_IN)

        def compile_one(unit: Path, target: Path) -> subprocess.CompletedProcess[str]:
            command = [compiler, *FLAGS, f"-I{sources}", f"-I{scratch}", "-c", str(unit), "-o", str(target)]
            if unit == ENGINE_SOURCE:
                command.append(f'-DPCG_BUILD_DIGEST="{build_digest()}"')  # the stamp native._library checks
            return subprocess.run(command, capture_output=True, text=True, check=False)

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(compile_one, units, objects))
        failed = [(unit, done.stderr) for unit, done in zip(units, results, strict=True) if done.returncode != 0]
        if failed:
            unit, message = failed[0]
            raise BuildError(f"{compiler} failed on {unit} ({len(failed)} of {len(units)} files):\n{message.strip()}")
        partial = output.with_name(f".{output.name}.partial")
        link = [compiler, "-shared", *FLAGS, "-o", str(partial), *map(str, objects)]
        done = subprocess.run(link, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BuildError(f"{compiler} could not link {output}:\n{done.stderr.strip()}")
        partial.replace(output)


def build(output: Path, work: Path) -> None:
    """Fetch the sources and build the library at ``output``."""
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        raise BuildError(f"no C++ compiler {compiler!r} on PATH: install g++ (Debian: apt install g++) or set CXX")
    compile_library(fetch_sources(work), output, compiler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=library_path(), help="the library to write")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="where the sources are downloaded")
    args = parser.parse_args()
    try:
        build(args.output.resolve(), args.work.resolve())
    except BuildError as error:
        sys.exit(f"podium: the native physics engine was not built: {error}")
    print(f"podium: built the native physics engine, {args.output}")


if __name__ == "__main__":
    main()
