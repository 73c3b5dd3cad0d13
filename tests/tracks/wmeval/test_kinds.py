"""The closed sets keep the values the tables held before they were enums: no stored row changes meaning."""

from __future__ import annotations

from podium.tracks.wmeval.annotate import CANT_JUDGE
from podium.tracks.wmeval.kinds import CantJudgeReason, IssueKind, ItemKind, Resolution, Role, TeamKind
from podium.tracks.wmeval.store import ROLES


def test_the_stored_values_are_the_strings_of_before() -> None:
    assert [r.value for r in Role] == ["annotator", "operator"] and ROLES == ("annotator", "operator")
    assert [k.value for k in TeamKind] == ["team", "gold"]
    assert [k.value for k in ItemKind] == ["primary", "overlap", "gold"]
    assert {k.value for k in IssueKind} == {"unknown", "missing", "ignored", "undecodable", "too_fast"}
    assert list(CANT_JUDGE) == ["reference", "video", "other"] and CantJudgeReason.VIDEO.label.startswith("the gen")
    assert Resolution.BROKEN == "broken"  # a row read back as a plain string still matches
