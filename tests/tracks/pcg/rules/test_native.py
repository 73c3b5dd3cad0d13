"""The native physics engine gives pybox2d's floats on every kind of level, and is chosen as PODIUM_PCG_PHYSICS says."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.core.errors import ConfigError, DependencyError
from podium.tracks.pcg.official.levelxml import LevelFile, level_xml_text, parse_level
from podium.tracks.pcg.rules import native
from podium.tracks.pcg.rules.build import GridLevel, drop_blocks
from podium.tracks.pcg.rules.native import recipe
from podium.tracks.pcg.rules.physics import PhysicsParameters, StabilityResult, evaluate_stability

BUILT = native.library_path().is_file()
requires_engine = pytest.mark.skipif(
    not BUILT and os.environ.get("PODIUM_REQUIRE_NATIVE_PHYSICS") != "1",
    reason="no native engine: python scripts/build_pcg_physics.py",
)


@pytest.fixture(autouse=True)
def fresh_library_lookup() -> Iterator[None]:
    native._library.cache_clear()  # the tests below change where it is looked for
    yield
    native._library.cache_clear()


@pytest.mark.skipif(os.environ.get("PODIUM_REQUIRE_NATIVE_PHYSICS") != "1", reason="only where make test runs")
def test_make_test_builds_the_engine() -> None:
    assert BUILT, f"{native.library_path()} is missing: make test should have built it"
    assert native.use_native()
    assert native.built_from(native.library_path()) == recipe.build_digest()


@requires_engine
def test_a_library_built_from_other_sources_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library left from before an edit of the engine (a pull, a rebuild that failed) would judge with old code."""
    built = native.library_path().read_bytes()
    digest = recipe.build_digest().encode()
    assert built.count(digest) == 1
    stale = tmp_path / "stale.so"
    stale.write_bytes(built.replace(digest, digest[::-1]))  # as if built from other sources: only the stamp differs
    foreign = tmp_path / "foreign.so"  # a shared library with no stamp at all, as one built before the stamp
    foreign.write_bytes(Path(_libm_path()).read_bytes())
    for library in (stale, foreign):
        monkeypatch.setenv(native.LIBRARY_VARIABLE, str(library))
        for engine in ("auto", "native"):
            monkeypatch.setenv(native.ENGINE_VARIABLE, engine)
            native._library.cache_clear()
            with pytest.raises(native.NativePhysicsError) as raised:
                native.use_native()
            assert raised.value.path == library
            assert "other sources" in raised.value.message
            assert raised.value.fix is not None and "scripts/build_pcg_physics.py" in raised.value.fix
            assert isinstance(raised.value, DependencyError)  # the CLI prints "error: ..." and "fix: ...", exit 3


def _libm_path() -> str:
    """The C maths library's file, which any Linux process has mapped."""
    maps = Path("/proc/self/maps").read_text().splitlines()
    return next(line.split()[-1] for line in maps if "/libm.so" in line or "/libm-" in line)


def random_tower(rng: random.Random) -> LevelFile | None:
    """5-30 random drops around one column, as a model that ignores the letter writes (the benchmarks' towers)."""
    centre = rng.randrange(2, 18)
    calls = [(rng.choice(("B11", "B31", "B13")), centre + rng.randint(-2, 2)) for _ in range(rng.randint(5, 30))]
    level = drop_blocks(calls)
    return parse_level(level_xml_text(level).encode("utf-16")) if isinstance(level, GridLevel) else None


def both_engines(level: LevelFile, params: PhysicsParameters, monkeypatch: pytest.MonkeyPatch) -> list[StabilityResult]:
    results = []
    for engine in ("pybox2d", "native"):
        monkeypatch.setenv(native.ENGINE_VARIABLE, engine)
        results.append(evaluate_stability(level, params))
    return results


@requires_engine
def test_the_150_unity_levels_come_out_the_same(pcg_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    levels = sorted((pcg_data / "unity-2023").glob("*/levels/*/*.xml"))
    assert len(levels) == 150
    for path in levels:
        from_pybox2d, from_native = both_engines(parse_level(path.read_bytes()), PhysicsParameters(), monkeypatch)
        assert from_native == from_pybox2d, path.name  # every pose's floats, the counts and the runs


@requires_engine
def test_collapsing_towers_come_out_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(29)
    towers: list[LevelFile] = []
    while len(towers) < 50:  # a third of random drop sequences break the converter's rules
        towers.extend(filter(None, [random_tower(rng)]))
    deaths = 0
    for tower in towers:
        from_pybox2d, from_native = both_engines(tower, PhysicsParameters(), monkeypatch)
        assert from_native == from_pybox2d
        deaths += len(from_native.image_poses) < len(tower.objects)
    assert deaths >= 5  # the damage path, deaths and removals included, was compared


@requires_engine
@pytest.mark.parametrize(
    "params",
    [PhysicsParameters(block_life=0.0), PhysicsParameters(block_life=1.0, runs=1), PhysicsParameters(runs=1)],
    ids=["dead-from-the-start", "fragile", "one-run"],
)
def test_other_parameters_come_out_the_same(params: PhysicsParameters, monkeypatch: pytest.MonkeyPatch) -> None:
    full = drop_blocks([("B11", column) for _ in range(8) for column in range(20)])  # 160 blocks, the densest half
    assert isinstance(full, GridLevel)
    rng = random.Random(7)
    levels = [parse_level(level_xml_text(full).encode("utf-16")), *filter(None, (random_tower(rng) for _ in range(5)))]
    for level in levels:
        from_pybox2d, from_native = both_engines(level, params, monkeypatch)
        assert from_native == from_pybox2d


def test_pybox2d_is_used_when_asked_or_when_nothing_was_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.ENGINE_VARIABLE, "pybox2d")
    assert not native.use_native()
    monkeypatch.setenv(native.LIBRARY_VARIABLE, str(tmp_path / "missing.so"))
    monkeypatch.setenv(native.ENGINE_VARIABLE, "auto")
    assert not native.use_native()


def test_asking_for_the_native_engine_without_it_says_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(native.LIBRARY_VARIABLE, str(tmp_path / "missing.so"))
    monkeypatch.setenv(native.ENGINE_VARIABLE, "native")
    with pytest.raises(native.NativePhysicsError, match=r"missing\.so: .*not built") as raised:
        native.use_native()
    assert raised.value.fix is not None and "scripts/build_pcg_physics.py" in raised.value.fix
    monkeypatch.setenv(native.ENGINE_VARIABLE, "fast")
    with pytest.raises(ConfigError, match="'fast' is not an engine") as wrong:
        native.use_native()
    assert wrong.value.fix == "use auto, native or pybox2d"
