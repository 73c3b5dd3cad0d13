"""Arrows point down only: tracks -> cli/web -> core. The core imports no track; tracks import no other track."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "podium"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_core_imports_no_track_and_no_interface() -> None:
    for path in (SRC / "core").rglob("*.py"):
        bad = {m for m in imported_modules(path) if m.startswith(("podium.tracks", "podium.cli", "podium.web"))}
        assert not bad, f"{path} imports {bad}"


def test_tracks_do_not_import_each_other() -> None:
    for track in (p for p in (SRC / "tracks").iterdir() if p.is_dir() and not p.name.startswith("_")):
        for path in track.rglob("*.py"):
            others = {
                m for m in imported_modules(path) if m.startswith("podium.tracks.") and m.split(".")[2] != track.name
            }
            assert not others, f"{path} imports {others}"


def test_subprocess_is_used_only_in_core_execution() -> None:
    for path in SRC.rglob("*.py"):
        if "execution" in path.parts:
            continue
        assert "subprocess" not in imported_modules(path), path
