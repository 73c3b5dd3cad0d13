"""Where one ingest makes its media before it commits them: work survives a kill, the store never holds half.

Each ingest (the GT, or one team) has a staging folder under the media store (``staging/<name>``, the name a hash
for a team, never the team's name). Every video is made in its own sub-folder from a copy of its source, and a
``result.json`` written last, atomically, records the result with the SHA-256 of that source. A rerun of a killed
ingest finds those records and redoes only what is missing or whose source changed. Only when every video is
made is the folder moved into the store and its rows written, in one transaction; a refused ingest removes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Protocol, TypeVar

from podium.core.execution.executor import Executor
from podium.tracks.wmeval.kinds import IssueKind
from podium.tracks.wmeval.media import Probe, TranscodeResult


class _Job(Protocol):
    @property
    def target(self) -> Path: ...


J = TypeVar("J", bound=_Job)

RESULT = "result.json"
_CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def team_staging_name(team: str) -> str:
    """The staging folder of a team's ingest: a hash, so that no path of the store names a team."""
    return "team-" + hashlib.sha256(f"podium-wmeval-team\0{team}".encode()).hexdigest()[:16]


class Staging:
    """One ingest's staging folder."""

    def __init__(self, media_root: Path, name: str) -> None:
        self.folder = media_root / "staging" / name

    def job_folder(self, *parts: str) -> Path:
        """The folder one video is made in (created)."""
        folder = self.folder.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def done(self, folder: Path, fingerprint: str) -> TranscodeResult | None:
        """The recorded result of ``folder``'s video, if it was made from sources with this fingerprint."""
        try:
            recorded = json.loads((folder / RESULT).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if recorded.get("fingerprint") != fingerprint:
            return None
        return result_from_json(recorded["result"])

    def record(self, folder: Path, fingerprint: str, result: TranscodeResult) -> None:
        """Record ``folder``'s result, atomically, once its files are complete."""
        partial = folder / (RESULT + ".part")
        partial.write_text(json.dumps({"fingerprint": fingerprint, "result": asdict(result)}), "utf-8")
        os.replace(partial, folder / RESULT)

    def make(
        self, planned: Sequence[tuple[J, str]], make: Callable[[J], TranscodeResult], executor: Executor
    ) -> tuple[list[tuple[J, TranscodeResult]], int]:
        """Every planned ``(job, fingerprint)`` made (its folder: its target's), and how many were recorded already.

        A job whose result is recorded for the same fingerprint is not made again; every other is made on
        ``executor`` and recorded as soon as it is done, so a kill loses only the jobs in flight.
        """
        done: list[tuple[J, TranscodeResult]] = []
        todo: list[J] = []
        fingerprints = {job.target.parent: fingerprint for job, fingerprint in planned}
        for job, fingerprint in planned:
            recorded = self.done(job.target.parent, fingerprint)
            if recorded is None:
                todo.append(job)
            else:
                done.append((job, recorded))
        reused = len(done)
        for job, result in executor.map_unordered(make, todo):
            self.record(job.target.parent, fingerprints[job.target.parent], result)
            done.append((job, result))
        return done, reused

    def discard(self) -> None:
        """Remove the staging folder and everything made in it (and ``staging/`` when nothing else is staged)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.folder.parent.rmdir()


def copy_if_changed(source: Path, target: Path) -> str:
    """Copy ``source`` to ``target`` unless it holds the same bytes already; the SHA-256 of those bytes."""
    digest = file_sha256(source)
    if not (target.is_file() and target.stat().st_size == source.stat().st_size and file_sha256(target) == digest):
        shutil.copyfile(source, target)
    return digest


def result_from_json(data: dict[str, object]) -> TranscodeResult:
    """A ``TranscodeResult`` as ``record`` wrote it."""
    probes = {name: None if data[name] is None else Probe(**data[name]) for name in ("original", "output")}  # type: ignore[arg-type]
    return TranscodeResult(bool(data["playable"]), str(data["reason"]), probes["original"], probes["output"],
                           str(data["method"]), IssueKind(str(data.get("issue", IssueKind.UNDECODABLE))))  # fmt: skip
