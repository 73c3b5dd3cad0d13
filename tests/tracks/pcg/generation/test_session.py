"""The judge's side of a team's trials: what it knows of the model server, and limits a program catches.

A trial that gave up on the server probes it: a probe that fails too means the server is down, at once; a server
that answers the probe but keeps failing calls is down after three give-ups in a row across teams; an answer
anywhere resets the count. A program that catches the time limit's ``TimeoutError`` and returns a text gets that
text written, as the official packages do; ``strict_limits`` fails the trial.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from podium.core.llm import ChatReply, ChatRequest
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.generation.records import GenerateVerdict, TrialKey
from podium.tracks.pcg.generation.session import (
    SERVER_DOWN_AFTER,
    ServerHealth,
    SessionSettings,
    TeamSession,
    Transcript,
    response_path,
)
from podium.tracks.pcg.official.rawlog import RawLog


def test_a_failed_probe_means_down_at_the_first_give_up() -> None:
    probes: list[str] = []

    def probe() -> str | None:
        probes.append("asked")
        return "cannot reach http://127.0.0.1:9/v1/models: [Errno 111] Connection refused"

    health = ServerHealth(probe, "http://127.0.0.1:9/v1")
    down = health.gave_up("HTTP 502 (gave up after 3 attempts)")
    assert down is not None and "a probe failed too: cannot reach" in down and "HTTP 502" in down
    assert health.fix is not None and health.fix.startswith("start http://127.0.0.1:9/v1 again")
    assert health.gave_up("another team's trial") == down and probes == ["asked"]  # down: no second probe


def test_a_server_that_answers_the_probe_is_down_only_after_give_ups_in_a_row_across_teams() -> None:
    health = ServerHealth(lambda: None, "http://llm:8000/v1")  # shared by two teams' sessions
    assert health.gave_up("team a: no answer within 60 s") is None
    health.answered()  # team b got an answer meanwhile: slow, not down
    for _ in range(SERVER_DOWN_AFTER - 1):
        assert health.gave_up("no answer within 60 s") is None
    down = health.gave_up("no answer within 60 s")
    assert down is not None and f"failed {SERVER_DOWN_AFTER} trials in a row" in down and "still answers" in down
    assert health.fix is not None and "is up but its calls fail or time out" in health.fix


class _Unasked:
    """A model the test never reaches: the time check comes before the call."""

    name = "openai:unasked"

    def chat(self, request: ChatRequest) -> ChatReply:
        raise AssertionError("the model was asked after the time limit")

    def check(self) -> None: ...

    def probe(self) -> str | None:
        return None


def _late_trial(tmp_path: Path, *, strict_limits: bool) -> tuple[TeamSession, Path, dict[str, Any]]:
    """A 2024 trial whose program asks the model after the 120 s limit, catches the TimeoutError, returns text."""
    now = [0.0]
    rules = edition(2024).generation
    settings = SessionSettings(tmp_path, "t", rules, _Unasked(), "m", None, strict_limits=strict_limits)
    log = RawLog(tmp_path / "logs" / "t_raw.log")
    session = TeamSession(settings, [(TrialKey("A", 1), False)], log, Transcript(tmp_path / "logs" / "t.jsonl"),
                          clock=lambda: now[0])  # fmt: skip
    session.handle({"op": "next"})
    now[0] = 121.0
    refused = session.handle({"op": "chat", "messages": [{"role": "user", "content": "A"}]})
    session.handle({"op": "done", "response": "what I had before the limit"})
    return session, response_path(tmp_path, "t", TrialKey("A", 1)), refused


def test_a_caught_time_limit_leaves_the_programs_own_response_as_officially(tmp_path: Path) -> None:
    session, path, refused = _late_trial(tmp_path, strict_limits=False)
    assert refused["raise"] == "TimeoutError" and refused["message"].startswith("Time limit exceeded. 121.0 > 120")
    assert path.read_text() == "what I had before the limit"
    [outcome] = session.outcomes
    assert outcome.verdict is GenerateVerdict.OK and outcome.reason.startswith("time_limit caught by the program")
    assert "Trial 1 succeeded" in session.log.path.read_text()


def test_strict_limits_fail_a_caught_time_limit(tmp_path: Path) -> None:
    session, path, _ = _late_trial(tmp_path, strict_limits=True)
    assert not path.exists()
    [outcome] = session.outcomes
    assert outcome.verdict is GenerateVerdict.TIME_LIMIT
