"""Which edition a generation run follows: the one whose official package its programs import.

A 2024 program imports ``chatgpt4pcg`` and a 2025 one ``llms4pcg`` (``GenerationRules.program_package``): running
a 2024 entry under 2025's rules would send no seed where 2024 sends 42 and give it 500 s instead of 120 s. So the
package decides, for one team and under ``--config`` alike. An edition given explicitly that disagrees is an
error, and so are teams of one run importing different packages; a program that imports neither (or a prompt)
keeps the edition given, or the default.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from podium.core.errors import ConfigError
from podium.core.llm import ChatModel
from podium.tracks.pcg.editions import Edition, edition_of_package, official_packages
from podium.tracks.pcg.generation.submission import Program


@dataclass(frozen=True, slots=True)
class EditionChoice:
    """The edition a run follows, and why (for the log, the plan and the console)."""

    edition: Edition
    reason: str


def imported_packages(program: Program) -> frozenset[str]:
    """The official packages any Python file of ``program`` imports (files Python cannot read are passed over)."""
    wanted, found = official_packages(), set[str]()
    for name, data in program.files.items():
        if not name.endswith(".py"):
            continue
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return frozenset(found & wanted)


def choose_edition(programs: Sequence[tuple[str, Program]], given: Edition, explicit: bool) -> EditionChoice:
    """The edition of a run of ``programs`` (team, program); ``given`` is ``--edition``'s, ``explicit`` if typed."""
    packages = {team: imported_packages(program) for team, program in programs}
    both = [team for team, found in packages.items() if len(found) > 1]
    if both:
        raise ConfigError(
            f"{', '.join(both)}: imports both {' and '.join(sorted(official_packages()))}",
            fix="a program is written for one edition: keep one package's imports",
        )
    named = {team: next(iter(found)) for team, found in packages.items() if found}
    if not named:
        return EditionChoice(given, "given" if explicit else "the default")
    if len(set(named.values())) > 1:
        shown = "; ".join(f"{team} imports {package}" for team, package in named.items())
        raise ConfigError(
            f"the teams of one run import different official packages ({shown})",
            fix="run each edition's teams in a run of their own, each with its --edition",
        )
    package = next(iter(named.values()))
    chosen = edition_of_package(package)
    assert chosen is not None  # official_packages() lists only packages an edition names
    if explicit and chosen.year != given.year:
        raise ConfigError(
            f"--edition {given.year} was given, but the program imports {package}, {chosen.year}'s package",
            fix=f"give --edition {chosen.year} (or leave it out: the package decides)",
        )
    return EditionChoice(chosen, f"the program imports {package}")


def run_facts(choice: EditionChoice, model: ChatModel, base_url: str | None) -> dict[str, str]:
    """What a run is made with, as its log's first line, its plan and the console name it."""
    return {
        "edition": str(choice.edition.year),
        "edition_reason": choice.reason,
        "model": model.name,
        "server": base_url or "the back-end's default address",
    }


def describe_facts(facts: dict[str, str]) -> str:
    """``edition 2024 (the program imports chatgpt4pcg); model openai:m; server http://...``."""
    return f"edition {facts['edition']} ({facts['edition_reason']}); model {facts['model']}; server {facts['server']}"
