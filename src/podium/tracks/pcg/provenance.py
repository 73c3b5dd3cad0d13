"""What made a PCG run's numbers: edition, podium version, physics, classifier and the programs' environments.

The report opens with this, because a reader must know it before trusting a score: which classifier made the
similarity files (its spec, and the SHA-256 of its weights so two runs can be told apart), whether that classifier
is the official one, and the measured agreement of podium's physics and classifiers with the organisers' Unity and
ViT. The agreement figures are measurements, kept as data in ``agreement.json`` beside this module (the sources are
named there: ``docs/benchmarks.md`` and the benchmark scripts that produce them). Where podium generated the
responses, each team's program is named with what it ran with: its submission's digest, entry and installed
requirements (``generate``'s ``logs/*.environment.json``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from podium import __version__
from podium.tracks.pcg.classifiers import ClassifierSpec

AGREEMENT_PATH = Path(__file__).with_name("agreement.json")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx", ".npz", ".pt", ".pth")


@dataclass(frozen=True, slots=True)
class ClassifierProvenance:
    """The classifier behind the similarity files: its spec, identity, and what a reader should know of it."""

    spec: str  # "embedded", "hf:...", "onnx:...", or "supplied" (files that came with the competition)
    identity: str  # "sha256:<hex>" of the weights, or how the model is named when its files are not at hand
    caveat: str
    warn: bool  # shown as a warning: the scores are known not to be the official classifier's (or unknown)


@dataclass(frozen=True, slots=True)
class ProgramEnvironment:
    """What one team's program ran with at its latest ``generate`` (``logs/*.environment.json``)."""

    team: str  # "<model>/<team>" in a run of several models
    digest: str  # of the submission's files
    entry: str
    installed: tuple[str, ...]
    key: str  # the requirement folder's hash ("" when nothing was installed)
    python: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Everything the report's header states about how its numbers were made."""

    edition: int
    podium_version: str
    classifier: ClassifierProvenance
    physics: str  # the engine, or who made the stability files
    physics_agreement: str
    programs: tuple[ProgramEnvironment, ...] = ()
    generation: tuple[str, ...] = ()  # "model M on server S, edition E (why): teams a, b", one per model and server
    unscored: tuple[str, ...] = ()  # teams generate failed that are not on the board: "zergy (verdict: reason)"


@cache
def _agreement() -> dict[str, dict[str, object]]:
    loaded: dict[str, dict[str, object]] = json.loads(AGREEMENT_PATH.read_text("utf-8"))
    return loaded


def _sha256_of(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()


def classifier_identity(spec: str) -> str:
    """``sha256:<hex>`` of the classifier's weights (one file, or a folder's weight files in name order).

    A hub id with no local folder is named as given: its files are wherever the hub cache put them.
    """
    kind, _, target = spec.partition(":")
    if kind == "embedded":
        from podium.tracks.pcg.classifiers.embedded import WEIGHTS_PATH

        return _sha256_of([WEIGHTS_PATH])
    path = Path(target)
    if path.is_file():
        return _sha256_of([path])
    if path.is_dir():
        weights = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _WEIGHT_SUFFIXES)
        if weights:
            return _sha256_of(weights)
    return f"{spec} (hub model; weights not hashed)"


def classifier_provenance(spec: ClassifierSpec | None, found: bool = True) -> ClassifierProvenance:
    """The classifier's record; ``None`` for similarity files podium did not make (``found``: there are some)."""
    notes: dict[str, dict[str, str]] = _agreement()["classifiers"]  # type: ignore[assignment]
    if spec is None and not found:
        return ClassifierProvenance("none", "—", "No similarity files: podium classified nothing, and none came "
                                    "with the run folder.", warn=True)  # fmt: skip
    if spec is None:
        return ClassifierProvenance("supplied", "unknown", str(notes["supplied"]["caveat"]), warn=True)
    kind = spec.spec.partition(":")[0]
    return ClassifierProvenance(
        spec.spec, classifier_identity(spec.spec), str(notes[kind]["caveat"]), warn=kind == "embedded"
    )


def run_provenance(
    edition: int,
    classifier: ClassifierSpec | None,
    *,
    simulated: bool,
    programs: tuple[ProgramEnvironment, ...] = (),
    found: frozenset[str] = frozenset({"stability", "similarity"}),
    generation: tuple[str, ...] = (),
    unscored: tuple[str, ...] = (),
) -> Provenance:
    """The provenance of a run.

    ``classifier`` is None when no image was classified here; ``simulated`` when podium's physics made the stability
    files; ``found`` the per-letter folders (``stability``, ``similarity``) any team has, made here or not;
    ``programs`` what each team's program ran with and ``generation`` what asked the model, where podium generated
    the responses. Files podium did not make are called supplied only where there are some.
    """
    physics = _agreement()["physics"]
    if simulated:
        engine, figures = str(physics["engine"]), str(physics["figures"])
    elif "stability" in found:
        engine, figures = "stability files that came with the run folder (not simulated by podium)", ""
    else:
        engine, figures = "none: podium simulated nothing, and no stability files came with the run folder", ""
    record = classifier_provenance(classifier, found="similarity" in found)
    return Provenance(edition, __version__, record, engine, figures, programs, generation, unscored)


def program_environments(logs: Path, prefix: str = "") -> list[ProgramEnvironment]:
    """The latest environment record of each team in a root's ``logs`` folder (the names sort by start time)."""
    latest: dict[str, ProgramEnvironment] = {}
    for path in sorted(logs.glob("*.environment.json")) if logs.is_dir() else []:
        try:
            record = json.loads(path.read_text("utf-8"))
            environment = record.get("environment") or {}
            latest[record["team"]] = ProgramEnvironment(
                prefix + str(record["team"]),
                str(record["digest"]),
                str(record["entry"]),
                tuple(environment.get("installed", ())),
                str(environment.get("key", "")),
                str(environment.get("python", "")),
                record.get("error"),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # a record podium did not write (or half of one): the report goes on without it
    return [latest[team] for team in sorted(latest)]
