"""The drivers of the pcg pipeline over the official folder layout, one module per stage, named by its verb.

Each driver walks the layout with the shared skeleton of ``driver`` (teams, characters, trials, one logged event per
item, resumability, stale outputs, warnings, summary) and calls the rule of the same name under ``rules/``.

``PIPELINE`` is the one list of per-item stages, in order: ``pipeline.evaluate`` runs it, and the report and the
explanations of a missing folder read which stage writes which folder from it. Each stage keys its own ledger
(by the stage's name) with its ``VERSION``. Outside it: ``qualify`` (before generation, where an edition has a
qualification script) and ``score`` (over the whole competition, after the list).
"""

from podium.tracks.pcg.stages import build, classify, diversity, extract, simulate
from podium.tracks.pcg.stages.driver import Stage

PIPELINE: tuple[Stage, ...] = (extract.STAGE, build.STAGE, simulate.STAGE, classify.STAGE, diversity.STAGE)
