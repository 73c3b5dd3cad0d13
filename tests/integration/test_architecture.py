"""Arrows point down only (tracks -> cli/web -> core), and what is in the core is there because tracks share it.

- ``core/``, ``cli/`` and ``web/`` import no track; a track imports no other track; ``web/`` imports nothing from
  ``cli/`` (the command line starts the server, never the other way round).
- Inside the pcg track, the layers of ``PCG_LAYERS`` (interface, pipeline, drivers, rules and shared parts): a
  module imports only from its own layer or those below, never from a sibling group of its layer (the report never
  imports a stage driver), and every pcg module is in exactly one layer.
- A core module that only one track uses (directly, or through other core modules) is named in ``ONE_TRACK``
  with the reason it is in the core anyway; otherwise it belongs in that track. An entry for a module that is
  gone, or that two tracks share, is stale.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "podium"
NEXT_TRACK = "the dojo's judge queue; a second track that queues work would share it"
ONE_TRACK: dict[str, str] = {
    # the services of a web/SQL track (docs/design/conventions.md: accounts, the audit chain, a write-locked
    # transaction, a DB job queue), lifted out of the dojo for the next track
    "podium.core.job_queue": NEXT_TRACK,
    # execution: every judged program and batch stage goes through these interfaces
    "podium.core.execution.dask": "the Executor's distributed backend (docs/design/conventions.md §9)",
    # what a sandbox shares through the host kernel is the sandbox's business; only the dojo verifies results yet
    "podium.core.execution.sandbox.clean_room": "the sandbox's defence against the page cache (docs/design/core.md)",
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


def test_the_web_imports_nothing_from_the_command_line() -> None:
    # `podium serve` starts the web app; configuration both need (the database setting) lives in the core
    for path in (SRC / "web").rglob("*.py"):
        bad = {m for m in imported_modules(path) if m.startswith("podium.cli")}
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


PCG = "podium.tracks.pcg"
# Top first. Each layer is a list of groups of module prefixes (relative to PCG); the longest prefix places a module.
PCG_LAYERS: list[tuple[str, list[tuple[str, ...]]]] = [
    ("interface", [("cli", "track", "console", "edition_option", "generation.cli")]),
    ("pipeline", [("pipeline", "calibrate")]),
    ("drivers", [("stages",), ("report",), ("generation", "inspect", "inspect_rules", "inspect_submission")]),
    ("rules and shared parts", [(
        "rules", "official", "editions", "competition", "folders", "standings", "verdicts", "classifiers", "handoff",
        "thumbnails", "provenance", "run_plan", "run_outcomes", "trial_status", "bootstrap", "promptlength", "source",
    )]),
]  # fmt: skip


def pcg_place(module: str) -> tuple[int, int] | None:
    """(layer, group) of a pcg module by its longest listed prefix; None when no layer lists it."""
    relative = module.removeprefix(f"{PCG}.")
    best: tuple[int, int, int] | None = None
    for layer, (_, groups) in enumerate(PCG_LAYERS):
        for group, prefixes in enumerate(groups):
            for prefix in prefixes:
                matches = relative == prefix or relative.startswith(f"{prefix}.")
                if matches and (best is None or len(prefix) > best[2]):
                    best = (layer, group, len(prefix))
    return None if best is None else (best[0], best[1])


def pcg_imports(path: Path) -> set[str]:
    """The pcg modules ``path`` imports (``from pkg import name`` counted as the module it names, if one)."""
    found = set()
    for name in imported_modules(path):
        if name.startswith(f"{PCG}."):
            module = SRC.parent / Path(*name.split("."))
            if module.with_suffix(".py").is_file() or (module / "__init__.py").is_file():
                found.add(name)
    return found


def pcg_violations(modules: dict[str, set[str]]) -> list[str]:
    """Every import that runs back up a layer or across groups, and every module no layer lists."""
    problems = []
    for module, imports in sorted(modules.items()):
        here = pcg_place(module)
        if here is None:
            problems.append(f"{module}: in no layer of PCG_LAYERS; add it where it belongs")
            continue
        for imported in sorted(imports):
            there = pcg_place(imported)
            if there is None:
                continue  # reported as a module of its own
            if there[0] < here[0]:
                problems.append(f"{module} imports {imported}, a layer above it ({PCG_LAYERS[there[0]][0]})")
            elif there[0] == here[0] and there[1] != here[1]:
                problems.append(f"{module} imports {imported}, a sibling group of its layer")
    return problems


def test_pcg_imports_never_run_back_up_its_layers() -> None:
    modules = {module_name(path): pcg_imports(path) for path in (SRC / "tracks" / "pcg").rglob("*.py")}
    modules = {name: {i for i in imports if i != name and not name.startswith(f"{i}.")} for name, imports in
               modules.items() if name != PCG}  # fmt: skip
    assert not pcg_violations(modules), "\n".join(pcg_violations(modules))


def test_the_pcg_layer_rule_catches_an_arrow_back_up_and_across() -> None:
    assert pcg_violations({f"{PCG}.rules.score": {f"{PCG}.stages.score"}}) == [
        f"{PCG}.rules.score imports {PCG}.stages.score, a layer above it (drivers)"
    ]
    assert pcg_violations({f"{PCG}.report": {f"{PCG}.stages.score"}}) == [
        f"{PCG}.report imports {PCG}.stages.score, a sibling group of its layer"
    ]
    assert pcg_violations({f"{PCG}.somewhere_new": set()}) == [
        f"{PCG}.somewhere_new: in no layer of PCG_LAYERS; add it where it belongs"
    ]
    assert pcg_violations({f"{PCG}.pipeline": {f"{PCG}.stages.score", f"{PCG}.rules.score"}}) == []
