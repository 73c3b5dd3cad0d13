"""Code extraction (``raw`` → ``intermediate``): the drop calls of the last fenced code block.

Semantics of the official extractor (``docs/rules/pcg.md`` §3): take the LAST non-overlapping match of three backticks,
one or more non-backtick characters, three backticks; inside it, every case-sensitive match of
``<prefix>(['|"]b[1|3][1|3]['|"], *[0-9]*)``; output each match with ``"`` turned into ``'`` and a line end,
lower-cased. Nothing found is the trial's failure "Code not found.".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from podium.core.records import StageFailure
from podium.tracks.pcg.verdicts import OFFICIAL_MESSAGES, PcgVerdict

_FENCED_BLOCK = re.compile(r"```[^`]+```")


@dataclass(frozen=True, slots=True)
class ExtractedCode:
    """The extracted drop calls of one response, one per line, as the intermediate file holds them."""

    text: str


@lru_cache(maxsize=8)
def _call_pattern(prefix: str) -> re.Pattern[str]:
    # [0-9], not \d: JavaScript's \d is ASCII-only while Python's matches every Unicode digit.
    return re.compile(re.escape(prefix) + r"\(['|\"]b[1|3][1|3]['|\"], *[0-9]*\)")


def extract_code(response: str, prefix: str) -> ExtractedCode | StageFailure:
    """Extract the ``prefix`` calls of the last fenced block of ``response``."""
    last_block = None
    for last_block in _FENCED_BLOCK.finditer(response):  # noqa: B007 - only the last match is wanted
        pass
    if last_block is not None:
        calls = _call_pattern(prefix).findall(last_block.group(0))
        if calls:
            return ExtractedCode("".join(call.replace('"', "'") + "\n" for call in calls).lower())
    return StageFailure(PcgVerdict.CODE_NOT_FOUND, OFFICIAL_MESSAGES[PcgVerdict.CODE_NOT_FOUND])
