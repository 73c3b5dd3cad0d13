"""The drivers of the pcg pipeline over the official folder layout, one module per stage, named by its verb.

Each driver walks the layout with the shared skeleton of ``driver`` (teams, characters, trials, one logged event per
item, resumability, stale outputs, warnings, summary) and calls the rule of the same name under ``rules/``.

``PIPELINE`` is the one list of per-item stages, in order: ``pipeline.evaluate`` runs it, each stage's ledger is
kept under its name and version, and the report and the layout's warnings read which stage writes which folder
from it. Outside it: ``qualify`` (before generation, where an edition has a qualification script) and ``score``
(over the whole competition, after the list).
"""

from podium.tracks.pcg.stages import build, classify, diversity, extract, simulate
from podium.tracks.pcg.stages.driver import Stage

PIPELINE: tuple[Stage, ...] = (extract.STAGE, build.STAGE, simulate.STAGE, classify.STAGE, diversity.STAGE)
