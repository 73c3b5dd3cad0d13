"""Stage ``bonus``: the score of one submission (docs/rules/dojo-scoring.md §4–§6).

``problem_score``: 0 without Stage Pass, ``stage_base`` with Stage Pass only, and ``reward_base`` + brevity +
diversity for Reward Correct. Brevity is ``floor(B_max · exp(−L/800))``. Diversity is a property of a problem's
whole window of submissions, so ``diversity_bonuses`` takes them all at once:

1. the window holds the Reward Correct submissions made at or before the freeze (all of them before it);
2. it is deduplicated by ``(user, method tag)``, keeping the earliest by (created_at, solver_hash,
   submission_id), so one user cannot farm a tag;
3. the first submission of each distinct tag gets ``+30``;
4. when at least two distinct tags remain, every Reward Correct submission of the window gets ``+10`` twice
   (all of them, not only the deduplicated ones: a user's later, shorter solution must not lose the bonus that
   their earlier one had);
5. the total is capped at 50.

A missing tag, or one that is not a string, empty (or only whitespace) or longer than 64 characters, is the tag
``unspecified`` — which counts as a tag of its own under ``v0.1``, as docs/rules/dojo-scoring.md §6.1 says. A tag is
read after NFKC normalisation and case folding, and one outside the six names §6.1 gives counts as ``other`` (the
submitter is told), so invented tags and look-alikes (``closed_fоrm`` with a Cyrillic о) are one tag, not new ones.

The season's ``diversity_rule`` picks the rule: ``v0.1`` is the above; ``diversity-v2`` (the default of seasons
created since) closes what v0.1 lets one user farm (docs/rules/dojo-platform.md §9):

- a user's Reward Correct submissions on a problem all count under one tag, that of their earliest in the window;
- ``unspecified`` is no claim: it earns no first-of-tag bonus and does not count towards the distinct tags;
- the shared bonus needs at least two distinct tags, which one tag per user means from at least two users.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from podium.tracks.dojo.rules import ScoringRules

UNSPECIFIED = "unspecified"
OTHER = "other"
KNOWN_TAGS = ("closed_form", "linear_recurrence", "matrix_power", "symbolic_guess", "search_enum", OTHER)
"""The tags docs/rules/dojo-scoring.md §6.1 names; any other claim counts as ``other``."""
DIVERSITY_V2 = "diversity-v2"


def brevity_bonus(length: int, rules: ScoringRules) -> int:
    """``floor(B_max · exp(−L / scale))`` for a canonical source of ``length`` bytes."""
    return math.floor(rules.brevity_max * math.exp(-length / rules.brevity_scale_chars))


@dataclass(frozen=True, slots=True)
class TagClaim:
    """The tag a claim counts as, and what the submitter is told when that is not what they wrote."""

    tag: str
    warning: str = ""


def method_tag(value: object, rules: ScoringRules) -> TagClaim:
    """The tag a submission's ``solution.json`` claims: one of ``KNOWN_TAGS``, or ``unspecified``."""
    if not isinstance(value, str) or not value.strip() or len(value) > rules.max_method_tag_chars:
        said = "" if value is None else f"method_tag {str(value)[:80]!r} is not a usable tag; it counts as unspecified"
        return TagClaim(UNSPECIFIED, said)
    read = unicodedata.normalize("NFKC", value).casefold().strip()
    if read in KNOWN_TAGS:
        return TagClaim(read)
    return TagClaim(OTHER, f"method_tag {value!r} is none of {', '.join(KNOWN_TAGS)}; it counts as {OTHER}")


def problem_score(*, stage_pass: bool, reward_correct: bool, length: int, diversity: int, rules: ScoringRules) -> int:
    """The points one submission earns on its problem."""
    if reward_correct:
        return rules.reward_base + brevity_bonus(length, rules) + diversity
    return rules.stage_base if stage_pass else 0


@dataclass(frozen=True, slots=True)
class DiversityEntry:
    """What the diversity rule needs to know of one submission."""

    submission_id: int
    user_id: int
    method_tag: str
    created_at: datetime
    solver_hash: str
    reward_correct: bool


def in_window(created_at: datetime, freeze_started_at: datetime | None) -> bool:
    """Whether a submission counts: made at or before the freeze (every submission while still open)."""
    return freeze_started_at is None or created_at <= freeze_started_at


def diversity_bonuses(
    entries: Iterable[DiversityEntry], rules: ScoringRules, freeze_started_at: datetime | None
) -> dict[int, int]:
    """The diversity bonus of every submission in ``entries`` (0 for those that earn none), by submission id."""
    entries = list(entries)
    bonuses = dict.fromkeys((entry.submission_id for entry in entries), 0)
    if not rules.diversity_enabled:
        return bonuses
    window = sorted(
        (e for e in entries if e.reward_correct and in_window(e.created_at, freeze_started_at)),
        key=lambda e: (e.created_at, e.solver_hash, e.submission_id),
    )
    v2 = rules.diversity_rule == DIVERSITY_V2
    users_tag: dict[int, str] = {}  # diversity-v2: each user's earliest tag stands for all their submissions
    for entry in window:
        users_tag.setdefault(entry.user_id, entry.method_tag)
    kept: dict[tuple[int, str], DiversityEntry] = {}
    for entry in window:
        kept.setdefault((entry.user_id, users_tag[entry.user_id] if v2 else entry.method_tag), entry)
    first_of_tag: dict[str, DiversityEntry] = {}
    for (_, tag), entry in kept.items():  # insertion order is the window's order, so the first seen is the earliest
        if not (v2 and tag == UNSPECIFIED):
            first_of_tag.setdefault(tag, entry)
    for entry in first_of_tag.values():
        bonuses[entry.submission_id] += rules.diversity_first_tag_bonus
    if len(first_of_tag) >= rules.diversity_min_tags_for_shared:
        shared = rules.diversity_shared_bonus_each * rules.diversity_shared_bonus_repeats
        for entry in window:
            bonuses[entry.submission_id] += shared
    return {sid: min(bonus, rules.diversity_bonus_cap) for sid, bonus in bonuses.items()}


def tag_distribution(tags: Iterable[str]) -> dict[str, int]:
    """How often each tag occurs, by tag name (published after reveal, to audit: docs/rules/dojo-scoring.md §6.3)."""
    return dict(sorted(Counter(tags).items()))
