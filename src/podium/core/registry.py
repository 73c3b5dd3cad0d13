"""Tracks (and later other plug-ins) are found through the ``podium.tracks`` entry-point group.

A track publishes one ``Track`` record; the CLI mounts its command group. Keeping discovery here means the core
never imports a track, and a third-party track installs like ours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from podium.core.errors import PodiumError

TRACK_GROUP = "podium.tracks"


@dataclass(frozen=True, slots=True)
class Track:
    """What a competition track contributes to podium."""

    name: str
    summary: str
    cli_group: Callable[[], Any]  # returns a click.Group; typed loosely so the core needs no click
    web_router: Callable[[Any], Any] | None = None  # settings -> a FastAPI APIRouter (``podium serve``)


def discover_tracks() -> dict[str, Track]:
    """Load every installed track, keyed by name, in name order."""
    tracks: dict[str, Track] = {}
    for point in entry_points(group=TRACK_GROUP):
        track = point.load()
        if not isinstance(track, Track):
            raise PodiumError(
                f"entry point {point.name!r} ({point.value}) is not a podium Track",
                fix="reinstall podium, or remove the broken plug-in package",
            )
        tracks[track.name] = track
    return dict(sorted(tracks.items()))
