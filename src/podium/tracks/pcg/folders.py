"""The official folder layout of a PCG competition, and podium's layout for several models (2025).

One competition root holds ``<TEAM>/<stage>/<C>/<TEAM>_<C>_<n>.<ext>`` for the per-trial stages and
``<TEAM>/<stage>/<C>.json`` for the per-character ones, with ``logs/`` and ``result/`` beside the teams.

2025 runs every team's program once per model and sums the per-model scores; the official layout for that was
never published. podium's choice: a *multi-model root* whose sub-folders are complete official roots, one per
model (``<root>/<MODEL>/<TEAM>/raw/...``), so each model folder can still be handed to any official script.
The combined ranking goes to ``<root>/result/``. A root is multi-model when none of its sub-folders holds a
stage folder directly but some sub-folder's sub-folders do.

``competition_roots`` is where every stage starts, so it also makes roots mean the same everywhere: it returns
absolute paths (a job sent to a Dask worker that runs in another folder must not write relative to it), and it
refuses a root that is really a team folder (it holds ``raw/``, ``levels/``, ...: its "teams" would be named like
stage folders), instead of scoring teams called ``raw`` and ``similarity``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import InputError
from podium.tracks.pcg.official.rundir import Platform, list_team_dirs, require_root

STAGE_FOLDERS = ("raw", "intermediate", "levels", "images", "stability", "similarity", "diversity")
CHARACTER_FILE_FOLDERS = ("stability", "similarity", "diversity")  # one ``<C>.json`` per character, not per trial
TRIAL_FOLDERS = tuple(folder for folder in STAGE_FOLDERS if folder not in CHARACTER_FILE_FOLDERS)
"""The folders with one file per trial under ``<C>/``: raw, intermediate, levels, images."""


@dataclass(frozen=True, slots=True)
class ModelRoot:
    """One official competition root; ``model`` is None for a plain single-model root."""

    model: str | None
    path: Path


def _holds_stage_folder(team_dir: Path) -> bool:
    return any((team_dir / stage).is_dir() for stage in STAGE_FOLDERS)


def is_multi_model(root: Path) -> bool:
    """Whether ``root`` is a multi-model root (see the module docstring)."""
    children = [root / name for name in list_team_dirs(root)]
    if any(_holds_stage_folder(child) for child in children):
        return False
    return any(_holds_stage_folder(child / team) for child in children for team in list_team_dirs(child))


def competition_roots(root: Path, platform: Platform = Platform.POSIX) -> list[ModelRoot]:
    """The official roots under ``root`` as absolute paths: itself, or one per model folder of a multi-model root."""
    root = require_root(root).resolve()
    _refuse_team_folder(root)
    if is_multi_model(root):
        return [ModelRoot(name, root / name) for name in list_team_dirs(root, platform)]
    return [ModelRoot(None, root)]


def _refuse_team_folder(root: Path) -> None:
    inside = [stage for stage in STAGE_FOLDERS if (root / stage).is_dir()]
    if inside:
        raise InputError(
            f"this looks like a team folder, not a competition root: it holds {', '.join(f'{s}/' for s in inside)}",
            path=root,
            fix=f"pass the folder that holds the team folders (here probably {root.parent})",
        )
