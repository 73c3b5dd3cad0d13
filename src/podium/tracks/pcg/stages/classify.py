"""Classify (``images/<C>/*.png`` → ``similarity/<C>.json``): how much each level image looks like its letter.

The unit of resumability and of work is a character folder (``rules.classify.classify_images``), spread over an
executor; each worker process loads the classifier once. Images whose input an image handoff kept (simulate in
the same run) are not decoded. With a classifier whose prediction for an image does not depend on the images
batched with it (``ClassifierSpec.per_image``), an image whose bytes were classified before in this run is not
classified again: competitions repeat levels, so they repeat images.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from podium.core.execution.executor import SerialExecutor
from podium.core.records import StageFailure
from podium.core.storage.files import write_atomic
from podium.core.storage.state import content_key
from podium.tracks.pcg.classifiers import ClassifierSpec, LetterPrediction
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.editions import CHARACTERS, DiversityVector
from podium.tracks.pcg.handoff import ImageHandoff, ModelInput, png_digest
from podium.tracks.pcg.official.rundir import list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent
from podium.tracks.pcg.rules.classify import (
    ClassifiedImage,
    ClassifyJob,
    ImageOutcome,
    classify_images,
    is_level_image,
    similarity_json,
)
from podium.tracks.pcg.stages.driver import (
    DEFAULT_SETTINGS,
    Stage,
    StageRun,
    StageSettings,
    StageSummary,
    character_dirs,
    over_model_roots,
)
from podium.tracks.pcg.verdicts import PcgVerdict

NAME = "classify"
VERSION = "1"  # bump when the output for the same input changes; outputs of older versions are redone


@dataclass
class KnownImages:
    """What this run classified, by the SHA-256 of the image's bytes, and each job's whole folder.

    A job carries only the images not known yet, each once; ``complete`` gives back the outcome of every image of
    its folder, in order. With ``reuse`` off (a classifier whose batches change its numbers) every image is sent.
    """

    reuse: bool
    handed: Callable[[bytes], LetterPrediction | None] | None = None  # simulate's predictions (``ImageHandoff``)
    outcomes: dict[bytes, LetterPrediction | StageFailure] = field(default_factory=dict)
    folders: dict[tuple[str, str], list[tuple[str, bytes]]] = field(default_factory=dict)  # (team, char) → images

    def plan(self, team: str, char: str, images: list[tuple[str, bytes]]) -> list[int]:
        """Remember a folder's (name, digest) pairs; the positions of the images its job must classify."""
        self.folders[(team, char)] = images
        if not self.reuse:
            return list(range(len(images)))
        sent: set[bytes] = set()
        positions = []
        for position, (_, digest) in enumerate(images):
            if digest not in self.outcomes and self.handed is not None and (made := self.handed(digest)) is not None:
                self.outcomes[digest] = made
            if digest not in self.outcomes and digest not in sent:
                sent.add(digest)
                positions.append(position)
        return positions

    def complete(self, job: ClassifyJob, outcomes: list[ImageOutcome]) -> list[ImageOutcome]:
        """Every image of the job's folder with its outcome: classified by this job, or known from before."""
        images = self.folders.pop((job.team, job.char))
        if not self.reuse:
            return outcomes
        digests = dict(images)
        for outcome in outcomes:
            self.outcomes[digests[outcome.name]] = outcome.outcome
        return [ImageOutcome(name, self.outcomes[digest]) for name, digest in images]


def run_classify(competition: Competition, settings: StageSettings = DEFAULT_SETTINGS) -> StageSummary:
    """``images/<C>/*.png`` → ``similarity/<C>.json`` for every team (one file per character)."""
    classifier, handoff = settings.classifier or ClassifierSpec("embedded"), settings.handoff
    chosen_executor = settings.executor or SerialExecutor()
    with_embedding = competition.edition.diversity is DiversityVector.CLS_EMBEDDING
    version_key = content_key(NAME, VERSION, classifier.identity(), str(with_embedding))

    handed = handoff.prediction if handoff is not None and handoff.classifier == classifier else None

    def body(run: StageRun) -> None:
        known = KnownImages(classifier.per_image, handed)

        def needing_work(jobs: Iterator[ClassifyJob]) -> Iterator[ClassifyJob]:
            for job in jobs:
                if job.images:
                    yield job
                else:  # every image known already: classified earlier in the run, or by simulate's workers
                    _finish_classify(run, job, known.complete(job, []), with_embedding)

        # planned lazily: the executor starts on the first folder while later ones are still being read
        jobs = _classify_jobs(run, classifier, version_key, handoff, known)
        for job, outcomes in chosen_executor.map_unordered(classify_images, needing_work(jobs)):
            _finish_classify(run, job, known.complete(job, outcomes), with_embedding)

    return over_model_roots(competition, NAME, body, settings)


def _classify_jobs(
    run: StageRun, classifier: ClassifierSpec, version_key: str, handoff: ImageHandoff | None, known: KnownImages
) -> Iterator[ClassifyJob]:
    """One job per character folder whose similarity file is not current.

    The job carries the bytes read here for the key, as simulation jobs do: read once, and a worker on another
    machine needs no access to the competition folder. An image ``handoff`` kept the input of goes as that input.
    """
    for folder in run.team_folders("images"):
        team = folder.team
        for char_dir in character_dirs(folder.path):
            char = char_dir.name
            if char not in CHARACTERS:
                run.warn(f"team {team}: {char_dir} is not named after a letter A..Z; skipped")
                continue
            files = [f for f in list_visible_files(char_dir) if is_level_image(f.name)]
            contents = run.read(team, char, files)
            output = run.root / team / "similarity" / f"{char}.json"
            key = content_key(version_key, *(f"{c.path.name}\0".encode() + c.data for c in contents))
            if run.is_current(output, key):
                run.log_skipped(team, char, [c.path.name for c in contents])
                continue
            digests = [(c.path.name, png_digest(c.data)) for c in contents]  # each PNG hashed once, for both uses
            images: list[tuple[str, bytes | ModelInput]] = []
            for position in known.plan(team, char, digests):
                content, digest = contents[position], digests[position][1]
                data = content.data if handoff is None else handoff.input_or_bytes(content.data, digest)
                images.append((content.path.name, data))
            yield ClassifyJob(team, char, tuple(images), classifier, key)


def _finish_classify(run: StageRun, job: ClassifyJob, outcomes: list[ImageOutcome], with_embedding: bool) -> None:
    """Log each image of a character folder and write its similarity file."""
    classified = []
    for image in outcomes:
        outcome = image.outcome
        if isinstance(outcome, StageFailure):
            run.item(ItemEvent(job.team, job.char, image.name, PcgVerdict(outcome.verdict), outcome.reason))
            # kept under the image's path with the character's key, so a report can tell why from the disk alone
            image_path = run.root / job.team / "images" / job.char / image.name
            run.record(image_path, job.ledger_key, (outcome.verdict, outcome.reason))
            continue
        classified.append(ClassifiedImage(image.name, outcome))
        probability = outcome.probabilities[CHARACTERS.index(job.char)]
        run.item(ItemEvent(job.team, job.char, image.name, PcgVerdict.OK, f"similarity {probability:.4f}"))
    output = run.root / job.team / "similarity" / f"{job.char}.json"
    write_atomic(output, similarity_json(job.char, classified, with_embedding).encode("utf-8"))
    run.record(output, job.ledger_key)


STAGE = Stage(NAME, "images", ("similarity",), run_classify)
