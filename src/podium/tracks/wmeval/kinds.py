"""wmeval's closed sets, one enum each, stored as their values (the strings the tables held before).

A typo in a member name is an AttributeError where a typo in a string literal was a silent empty query.
``StrEnum`` members compare equal to their values, so rows read back as plain strings still match.
"""

from __future__ import annotations

import enum


class Role(enum.StrEnum):
    """What an account does."""

    ANNOTATOR = "annotator"
    OPERATOR = "operator"


class TeamKind(enum.StrEnum):
    """What a set of videos is."""

    TEAM = "team"  # a competing team's: ranked
    GOLD = "gold"  # the organisers' gold set: never ranked, served as gold items


class ItemKind(enum.StrEnum):
    """Why an annotator has an item."""

    PRIMARY = "primary"  # the episode's one score that counts
    OVERLAP = "overlap"  # a second opinion, for agreement only
    GOLD = "gold"  # a gold video with a known score, to measure the annotator


class IssueKind(enum.StrEnum):
    """What an ingest reports about a file it did not take as given."""

    UNKNOWN = "unknown"  # not a place of the layout: not scored
    MISSING = "missing"  # an episode the submission lacks: scores 0
    IGNORED = "ignored"  # the baseline's concat_* visualisations
    UNDECODABLE = "undecodable"  # FFmpeg cannot decode it: never shown, scores 0
    TOO_FAST = "too_fast"  # faster than the served profile: serving it would drop frames


class CantJudgeReason(enum.StrEnum):
    """Why an annotator could not judge an item."""

    REFERENCE = "reference"
    VIDEO = "video"
    OTHER = "other"

    @property
    def label(self) -> str:
        """The reason in words, as the page offers it."""
        return CANT_JUDGE_LABELS[self]


CANT_JUDGE_LABELS = {
    CantJudgeReason.REFERENCE: "the reference video is broken",
    CantJudgeReason.VIDEO: "the generated video is broken",
    CantJudgeReason.OTHER: "another reason (see the note)",
}


class Resolution(enum.StrEnum):
    """The operator's resolution of a can't-judge answer."""

    BROKEN = "broken"  # the video is broken: it counts 0
    RESCORE = "rescore"  # someone scores it again (audited only: the answer is replaced)
