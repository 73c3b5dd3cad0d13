"""Prompt qualification, 2023 edition: word limit, allowed characters, the ``<OBJECT>`` token.

Checks run in the official order and stop at the first failure: more than 900 words (``words-count`` 2.0.2),
then characters outside the allowed set (after removing allowed ones the rest is JS-``trim``-med, so leftover
whitespace such as a BOM or NBSP is tolerated, as in the official script), then no literal ``<OBJECT>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from podium.core.records import StageFailure
from podium.tracks.pcg.official.jsnum import js_trim
from podium.tracks.pcg.rules.wordcount import count_words
from podium.tracks.pcg.verdicts import PcgVerdict

MAX_WORDS = 900
OBJECT_TOKEN = "<OBJECT>"
_ALLOWED = re.compile(r"[A-Za-z0-9~/\\+,\-*`'\".!@#$%^&()_=\[\]{}|<>:;? \n\r\t\u2014\u201c\u201d\u2018\u2019]")


@dataclass(frozen=True, slots=True)
class Qualification:
    """The verdict on one team's prompt."""

    team: str
    words: int
    failure: StageFailure | None

    @property
    def qualified(self) -> bool:
        """Whether the prompt passed every check."""
        return self.failure is None


def disallowed_characters(prompt: str) -> str:
    """The characters that make ``prompt`` fail the character rule, in order of appearance ('' if none)."""
    return js_trim(_ALLOWED.sub("", prompt))


def qualify_prompt(team: str, prompt: str) -> Qualification:
    """Apply the three 2023 checks to ``prompt``, stopping at the first failure."""
    words = count_words(prompt)
    failure: StageFailure | None = None
    if words > MAX_WORDS:
        failure = StageFailure(PcgVerdict.TOO_MANY_WORDS, f"{words} words; at most {MAX_WORDS} are allowed")
    elif leftover := disallowed_characters(prompt):
        shown = ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in dict.fromkeys(leftover))
        failure = StageFailure(PcgVerdict.DISALLOWED_CHARACTERS, f"disallowed characters: {shown}")
    elif OBJECT_TOKEN not in prompt:
        failure = StageFailure(PcgVerdict.NO_OBJECT_TOKEN, f"the prompt does not contain {OBJECT_TOKEN}")
    return Qualification(team, words, failure)
