"""What a run's author may learn of it, and when (docs/rules/dojo-platform.md §2, "What a submitter sees").

Every reason the judge gives derives from the submission alone — its source (admission, the policy screen), its run
(a limit, a crash, the printed lines' format), the season's published limits and the host (a run a busy host starved
of CPU says it was judged again alone) — never from the setter's terms, which only the gates read. So the author
sees the reason while the problem is open: ``tests/integration/tracks/dojo/test_corpus.py`` judges the whole corpus
against the true terms and against terms whose hidden part differs and finds every verdict and reason the same. Two
things wait for the reveal: Reward Correct and the score (they are the hidden terms' verdict), and the program's
capped stderr, which is the author's own output but, returned while the problem is open, would make every submission
an interactive probe of the judging host (what the box holds, how the host behaves) for a few bytes of source each.
An ``INTERNAL_ERROR`` is the judge's failure, never the program's: its detail (the sandbox's) stays with the
operators.
"""

from __future__ import annotations

from typing import Any

from podium.tracks.dojo.records import Submission
from podium.tracks.dojo.verdicts import RunVerdict

JUDGE_FAILED = "the judge could not run it (not your program's fault); it is judged again"


def shown_reason(submission: Submission) -> str | None:
    """The reason its author sees: the judge's own, or a plain word where the judge failed."""
    if submission.verdict is None:
        return None
    if submission.verdict == RunVerdict.INTERNAL_ERROR:
        return JUDGE_FAILED
    return submission.reason


def revealed_part(submission: Submission) -> dict[str, Any]:
    """What its author learns at reveal besides: Reward Correct and the program's (capped) stderr."""
    return {"reward_correct": submission.reward_correct, "stderr": submission.stderr or ""}
