"""The recipe's digest changes with anything that changes what the native engine computes, and only with that."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.tracks.pcg.rules.native import recipe


@pytest.fixture(autouse=True)
def fresh_digest() -> Iterator[None]:
    recipe.build_digest.cache_clear()
    yield
    recipe.build_digest.cache_clear()  # the tests patch what it is computed from: later ones need the real one


def test_an_edit_of_the_engine_or_of_the_flags_changes_the_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = recipe.build_digest()
    assert len(before) == 64
    edited = tmp_path / recipe.ENGINE_SOURCE.name
    edited.write_text(
        recipe.ENGINE_SOURCE.read_text().replace("life[place] = before - speed;", "life[place] = before;")
    )
    assert edited.read_bytes() != recipe.ENGINE_SOURCE.read_bytes()
    monkeypatch.setattr(recipe, "ENGINE_SOURCE", edited)
    recipe.build_digest.cache_clear()
    assert recipe.build_digest() != before
    monkeypatch.undo()
    monkeypatch.setattr(recipe, "FLAGS", (*recipe.FLAGS, "-ffast-math"))
    recipe.build_digest.cache_clear()
    assert recipe.build_digest() != before


def test_the_digest_does_not_depend_on_where_podium_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = recipe.build_digest()
    for name in ("ENGINE_SOURCE", "PROFILE_CLOCK"):
        copy = tmp_path / getattr(recipe, name).name
        copy.write_bytes(getattr(recipe, name).read_bytes())
        monkeypatch.setattr(recipe, name, copy)
    recipe.build_digest.cache_clear()
    assert recipe.build_digest() == before
