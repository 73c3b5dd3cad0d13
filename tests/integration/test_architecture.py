"""Arrows point down only (tracks -> cli/web -> core), and what is in the core is there because tracks share it.

- ``core/``, ``cli/`` and ``web/`` import no track; a track imports no other track.
- A core module that only one track uses (directly, or through other core modules) is named in ``ONE_TRACK``
  with the reason it is in the core anyway; otherwise it belongs in that track. An entry for a module that is
  gone, or that two tracks share, is stale.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "podium"
NEXT_TRACK = "wmeval (issue 13) is built on it; until it lands only the dojo uses it"
ONE_TRACK: dict[str, str] = {
    # the services of a web/SQL track (docs/design/conventions.md: accounts, the audit chain, a write-locked
    # transaction, a DB job queue), lifted out of the dojo for the next track
    "podium.core.queue": NEXT_TRACK,
    # execution: every judged program and batch stage goes through these interfaces
    "podium.core.execution.dask": "the Executor's distributed backend (docs/design/conventions.md §9)",
    "podium.core.storage.state": "resumable runs for every batch track (docs/design/conventions.md §10)",
    # model clients are one of the core's named services (docs/design/conventions.md, "The layout"); pcg's generate
    # is their first user, the dojo's and wmeval's model-backed features the next
    "podium.core.llm": "chat clients behind one protocol, a core service by docs/design/conventions.md",
    # what RunRequest.readable binds into a run: the sandbox's own read-only folders and the packages installed
    # into them for its interpreter; pcg's stand-ins and requirements are the first users, any judged program the next
    "podium.core.execution.sandbox.readable": "folders a sandboxed program reads, part of the sandbox service",
    "podium.core.execution.sandbox.packages": "packages for the sandbox's interpreter, part of the sandbox service",
}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return names


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def tracks() -> list[Path]:
    return [p for p in (SRC / "tracks").iterdir() if p.is_dir() and not p.name.startswith("_")]


def core_users() -> dict[str, set[str]]:
    """Each core module and the tracks that use it, directly or through other core modules."""
    core = {module_name(path): imported_modules(path) for path in (SRC / "core").rglob("*.py")}

    def closure(names: set[str]) -> set[str]:
        found: set[str] = set()
        todo = [n for n in names if n in core]
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo.extend(n for n in core[name] if n in core)
                parent = name.rsplit(".", 1)[0]  # importing a.b.c runs a.b's __init__ too
                todo.extend([parent] if parent in core else [])
        return found

    users: dict[str, set[str]] = {name: set() for name in core}
    for track in tracks():
        for path in track.rglob("*.py"):
            for name in closure(imported_modules(path)):
                users[name].add(track.name)
    return users


def test_core_cli_and_web_import_no_track() -> None:
    for part in ("core", "cli", "web"):
        for path in (SRC / part).rglob("*.py"):
            bad = {m for m in imported_modules(path) if m.startswith("podium.tracks")}
            assert not bad, f"{path} imports {bad}"


def test_the_core_imports_no_interface() -> None:
    for path in (SRC / "core").rglob("*.py"):
        bad = {m for m in imported_modules(path) if m.startswith(("podium.cli", "podium.web"))}
        assert not bad, f"{path} imports {bad}"


def test_tracks_do_not_import_each_other() -> None:
    for track in tracks():
        for path in track.rglob("*.py"):
            others = {
                m for m in imported_modules(path) if m.startswith("podium.tracks.") and m.split(".")[2] != track.name
            }
            assert not others, f"{path} imports {others}"


def test_a_core_module_one_track_uses_says_why_it_is_in_the_core() -> None:
    users = core_users()
    unexplained = {
        name: sorted(used)
        for name, used in users.items()
        if len(used) == 1 and name not in ONE_TRACK and not any(name.startswith(f"{k}.") for k in ONE_TRACK)
    }
    assert not unexplained, f"used by one track only: move into it, or add to ONE_TRACK with a reason: {unexplained}"
    shared = {name for name in ONE_TRACK if len(users.get(name, set())) > 1}
    assert not shared, f"ONE_TRACK entries now shared by several tracks (remove them): {shared}"
    gone = {name for name in ONE_TRACK if name not in users}
    assert not gone, f"ONE_TRACK entries for modules that no longer exist (remove them): {gone}"


def test_subprocess_is_used_only_in_core_execution() -> None:
    for path in SRC.rglob("*.py"):
        if "execution" in path.parts:
            continue
        assert "subprocess" not in imported_modules(path), path
