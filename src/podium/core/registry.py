"""Tracks (and later other plug-ins) are found through the ``podium.tracks`` entry-point group.

A track publishes one ``Track`` record; the CLI mounts its command group and ``podium serve`` its router. Keeping
discovery here means the core never imports a track, and a third-party track installs like ours.

Loading is lazy and fenced: ``track_names`` reads the installed metadata without importing any track, so
``podium --help`` stays cheap, and a track that fails to import raises ``TrackLoadError`` (one line naming the
track and the cause) for that track alone, leaving the others working.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from podium.core.errors import DependencyError, PodiumError

TRACK_GROUP = "podium.tracks"


@dataclass(frozen=True, slots=True)
class Track:
    """What a competition track contributes to podium."""

    name: str
    summary: str
    cli_group: Callable[[], Any]  # returns a click.Group; typed loosely so the core needs no click
    web_router: Callable[[Any], Any] | None = None  # settings -> a FastAPI APIRouter (``podium serve``)


class TrackLoadError(DependencyError):
    """An installed track could not be imported (a missing or broken dependency, a broken plug-in)."""


@cache
def _entry_points() -> dict[str, EntryPoint]:
    return {point.name: point for point in sorted(entry_points(group=TRACK_GROUP), key=lambda p: p.name)}


def track_names() -> list[str]:
    """The installed tracks' names in name order, read from package metadata without importing them."""
    return list(_entry_points())


def load_track(name: str) -> Track:
    """Import one track's registration record."""
    point = _entry_points().get(name)
    if point is None:
        raise PodiumError(f"no track named {name!r}", fix=f"installed tracks: {', '.join(track_names()) or 'none'}")
    try:
        track = point.load()
    except Exception as error:  # any import failure of a plug-in is that plug-in's, reported in one line
        raise _load_error(name, error) from error
    if not isinstance(track, Track):
        raise TrackLoadError(
            f"entry point {point.name!r} ({point.value}) is not a podium Track",
            fix="reinstall podium, or remove the broken plug-in package",
        )
    return track


def load_cli_group(track: Track) -> Any:
    """A track's click group; an import failure inside it is reported like a failure to load the track."""
    try:
        return track.cli_group()
    except Exception as error:
        raise _load_error(track.name, error) from error


def _load_error(name: str, error: Exception) -> TrackLoadError:
    cause = f"{type(error).__name__}: {error}".splitlines()[0]
    missing = getattr(error, "name", None) if isinstance(error, ImportError) else None
    fix = (
        f"install the missing module {missing!r} (pip install -e . reinstalls podium's dependencies)"
        if missing
        else "reinstall podium (pip install -e .), or remove the broken plug-in package"
    )
    return TrackLoadError(f"track {name!r} cannot be loaded: {cause}", fix=fix)


@dataclass(frozen=True, slots=True)
class LoadedTracks:
    """Every installed track that loaded, and why the others did not."""

    tracks: dict[str, Track]
    failures: dict[str, TrackLoadError]


def load_tracks() -> LoadedTracks:
    """Load every installed track, keeping going past the ones that fail."""
    tracks: dict[str, Track] = {}
    failures: dict[str, TrackLoadError] = {}
    for name in track_names():
        try:
            tracks[name] = load_track(name)
        except TrackLoadError as error:
            failures[name] = error
    return LoadedTracks(tracks, failures)
