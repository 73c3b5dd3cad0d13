"""A full-size PCG run made in seconds, for the report's browser test and benchmark: stage outputs written directly.

No response is extracted, no level simulated, no image classified: each team folder gets the official stability and
similarity files, level images and the build ledger's failures, as the stages would have left them. Images are small
PNGs drawn from a few dozen block shapes (the thumbnails are cached by content, so only the distinct ones are made),
about 84 % of trials have one (the share of the 7,800-trial run that motivated the report: 6,569), and the rest
failed in build or have no input at all.
"""

from __future__ import annotations

import html
import io
import json
import random
import re
import string
from pathlib import Path

from PIL import Image, ImageDraw

from podium.core.execution.executor import SerialExecutor
from podium.core.storage.state import StageLedger
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.pipeline import write_evaluation_report
from podium.tracks.pcg.stages.score import run_score

FAILURE = ("width_boundary", "Width boundary is intruded.")
LARGE_LETTERS = "ABCDEFGHILMNOPRSTUWY"  # 39 teams × these 20 × 10 trials = 7,800; J, K, Q, V, X, Z absent


def _shapes(count: int, rng: random.Random) -> list[bytes]:
    shapes = []
    for _ in range(count):
        image = Image.new("RGBA", (256, 256), (255, 255, 255, 255))
        draw = ImageDraw.Draw(image)
        for _ in range(rng.randint(1, 6)):
            x, y = rng.randrange(20, 200), rng.randrange(40, 220)
            draw.rectangle((x, y, x + rng.randrange(8, 50), min(236, y + rng.randrange(8, 90))), fill=(0, 0, 0, 255))
        out = io.BytesIO()
        image.save(out, "PNG")
        shapes.append(out.getvalue())
    return shapes


def fabricate_run(
    root: Path, *, teams: int = 30, letters: str = string.ascii_uppercase, trials: int = 10, seed: int = 0
) -> int:
    """Write a scored-to-be competition under ``root``; returns how many trials have an image."""
    rng = random.Random(seed)
    shapes = _shapes(40, rng)
    with_image = 0
    for t in range(1, teams + 1):
        team = f"team{t:02d}"
        team_dir = root / team
        failures: list[Path] = []
        for letter in letters:
            stability, similarity = [], []
            for n in range(1, trials + 1):
                name = f"{team}_{letter}_{n}"
                draw = rng.random()
                if draw < 0.84:
                    image = team_dir / "images" / letter / f"{name}.png"
                    image.parent.mkdir(parents=True, exist_ok=True)
                    image.write_bytes(rng.choice(shapes))
                    with_image += 1
                    stable = 1.0 if rng.random() < 0.7 else round(rng.random(), 3)
                    stability.append({"tag": f"{team}\\levels\\{letter}\\{name}.xml", "score": stable})
                    similarity.append({"id": f"{name}.png", "label": letter, "similarity": rng.random() ** 3})
                elif draw < 0.95:
                    failures.append(team_dir / "levels" / letter / f"{name}.xml")
                    (team_dir / "raw" / letter).mkdir(parents=True, exist_ok=True)
                    (team_dir / "raw" / letter / f"{name}.txt").write_text("no code here")
            for folder, document in (
                ("stability", {"dataCount": len(stability), "raws": stability}),
                ("similarity", {"count": len(similarity), "trials": similarity}),
            ):
                (team_dir / folder).mkdir(parents=True, exist_ok=True)
                (team_dir / folder / f"{letter}.json").write_text(json.dumps(document))
        with StageLedger(root, "build") as ledger:
            for path in failures:
                ledger.record(path, "fabricated", FAILURE)
    return with_image


def build_report(root: Path, *, year: int = 2023) -> Path:
    """Score the fabricated run and write its report (with the embedded classifier named as the one used)."""
    competition = open_competition(root, edition(year))
    run = run_score(competition)
    return write_evaluation_report(competition, run, ClassifierSpec("embedded"), SerialExecutor())


def gallery_tiles(page: str) -> dict[str, list[list[str]]]:
    """The gallery's trials by team section, read from the page's JSON blocks (what the tiles are built from)."""
    sections = re.findall(r"<details class='team' data-team='([^']*)' data-blob='(t\d+)'", page)
    blobs = dict(re.findall(r"<script type='application/json' id='(t\d+)'>(.*?)</script>", page, flags=re.S))
    return {html.unescape(team): json.loads(blobs[blob].replace("<\\/", "</")) for team, blob in sections}
