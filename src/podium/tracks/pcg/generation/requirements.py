"""A submission's declared dependencies, installed outside the sandbox for the interpreter inside it.

Requirements come from the submission's ``requirements.txt`` (at its top, else beside the entry; any line ends, a
BOM, comments, no final newline) and from ``--requirement`` for what a README says. The official packages
(``chatgpt4pcg``, ``llms4pcg``) and the OpenAI client they wrap are never installed: podium's stand-ins answer their
imports whatever version is pinned, and the sandbox has no network for a client anyway.

They are installed for the interpreter the sandbox runs, wheels only (``core.execution.sandbox.packages``: the
judge's pip, ``--python /usr/bin/python3 --target DIR``), into a folder published readable by anyone
(``core.execution.sandbox.readable``) under the hash of everything that decides its content (the interpreter, the
sorted requirements, the index options and the wheelhouses' listings), so a rerun, a second team with the same
set or a second model reuses it. Why pip and not uv: ``docs/design/pcg-generate.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from podium.core.errors import PodiumError
from podium.core.execution.sandbox.packages import (
    InstallError,
    InstallOptions,
    install,
    python_identity,
    sandbox_python,
)
from podium.core.execution.sandbox.readable import publish, readable_root
from podium.tracks.pcg.generation.stand_ins import OFFICIAL_NAMES

REQUIREMENTS_FILE = "requirements.txt"
ENVIRONMENT_FILE = ".podium-environment.json"
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


class RequirementError(PodiumError):
    """A team's requirements cannot be installed: the team fails, the others go on."""


@dataclass(frozen=True, slots=True)
class Environment:
    """What a team's program ran with: requirements asked, those the stand-ins answered, what was installed."""

    requested: tuple[str, ...]
    answered_by_podium: tuple[str, ...]
    installed: tuple[str, ...]  # "name==version" of every distribution in the folder, sorted
    python: str  # the sandbox interpreter's version and ABI
    key: str  # the hash the folder is published under ("" when nothing is installed)
    folder: Path | None

    def summary(self) -> str:
        """One line for the run's log."""
        installed = ", ".join(self.installed) or "nothing"
        answered = (
            f"; answered by podium's stand-ins: {', '.join(self.answered_by_podium)}" if self.answered_by_podium else ""
        )
        key = f" (environment {self.key})" if self.key else ""
        return f"podium: python {self.python}; installed {installed}{answered}{key}"

    def as_json(self) -> dict[str, object]:
        """For the environment file beside the log and the report's provenance."""
        return {
            "python": self.python,
            "requested": list(self.requested),
            "answered_by_podium": list(self.answered_by_podium),
            "installed": list(self.installed),
            "key": self.key,
        }


def requirement_name(spec: str) -> str:
    """The normalised distribution name of a requirement line (PEP 503), or "" when it names none."""
    match = _NAME.match(spec)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""


def parse_requirements(text: str) -> list[str]:
    """The requirement lines of a ``requirements.txt``: comments, blank lines and line-end styles dropped."""
    found = []
    for raw in text.lstrip("\ufeff").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if line:
            found.append(line)
    return found


def declared_requirements(files: Mapping[str, bytes], entry: str) -> tuple[str, list[str]]:
    """The submission's requirements file (top folder first, then the entry's) and its lines; ("", []) if none."""
    for path in (REQUIREMENTS_FILE, str(PurePosixPath(entry).parent / REQUIREMENTS_FILE)):
        if path in files:
            return path, parse_requirements(files[path].decode("utf-8", "replace"))
    return "", []


def _wheelhouse_listing(folders: Sequence[Path]) -> list[str]:
    listing = []
    for folder in folders:
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            info = entry.stat()
            listing.append(f"{entry}\0{info.st_size}\0{info.st_mtime_ns}")
    return listing


def prepare_environment(specs: Sequence[str], options: InstallOptions) -> Environment:
    """Install ``specs``, less the official ones, for the sandbox's interpreter; RequirementError if they cannot be."""
    answered = tuple(s for s in specs if requirement_name(s) in OFFICIAL_NAMES)
    wanted = tuple(dict.fromkeys(s for s in specs if requirement_name(s) not in OFFICIAL_NAMES))
    bad = [s for s in wanted if not requirement_name(s) or s.startswith(("-", ".", "/")) or "://" in s]
    if bad:
        raise RequirementError(
            f"requirement {bad[0]!r} is not a package requirement podium installs",
            fix="list packages by name and version (numpy==1.26.4); give a wheel with --find-links instead of a "
            "path, URL or pip option",
        )
    python = sandbox_python()
    identity = python_identity(python)
    if not wanted:
        return Environment(tuple(specs), answered, (), identity, "", None)
    material = {
        "python": identity,
        "requirements": sorted(wanted),
        "no_index": options.no_index,
        "find_links": [str(p) for p in options.find_links],
        "wheels": _wheelhouse_listing(options.find_links),
        "index": [os.environ.get(name, "") for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS")],
    }
    key = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]

    def fill(target: Path) -> None:
        installed = install(python, wanted, options, target, _FIX)
        (target / ENVIRONMENT_FILE).write_text(json.dumps({"installed": installed}), "utf-8")

    try:
        folder = publish(readable_root("pcg-requirements"), key, fill)
    except InstallError as error:
        raise RequirementError(error.message, fix=_FIX) from None
    installed = json.loads((folder / ENVIRONMENT_FILE).read_text("utf-8"))["installed"]
    return Environment(tuple(specs), answered, tuple(installed), identity, key, folder)


_FIX = (
    "correct the requirement (pass the right one with --requirement, or requirements = [...] in the config), or "
    "put its wheel in a folder given with --find-links; podium installs wheels only, never from source"
)
