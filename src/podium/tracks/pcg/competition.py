"""A competition root resolved once, with its edition and platform: what every stage, score and report is given.

``open_competition`` checks the root, makes it absolute and finds its official roots (itself, or one per model of
a multi-model root, ``layout.competition_roots``) a single time; stages, scoring and the report walk the same
``model_roots`` instead of each resolving the root again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from podium.tracks.pcg.editions import Edition
from podium.tracks.pcg.folders import ModelRoot, competition_roots
from podium.tracks.pcg.official.rundir import Platform


@dataclass(frozen=True, slots=True)
class Competition:
    """One competition: its absolute root, its edition's rules, the platform it reproduces and its official roots."""

    root: Path
    edition: Edition
    platform: Platform
    model_roots: tuple[ModelRoot, ...]

    @property
    def multi_model(self) -> bool:
        """Whether the root holds one official root per model (scored per model, then summed)."""
        return self.model_roots[0].model is not None


def open_competition(root: Path, edition: Edition, platform: Platform = Platform.POSIX) -> Competition:
    """Resolve ``root`` once; an ``InputError`` when it is missing or is a team folder."""
    model_roots = tuple(competition_roots(root, platform))
    return Competition(root.resolve(), edition, platform, model_roots)
