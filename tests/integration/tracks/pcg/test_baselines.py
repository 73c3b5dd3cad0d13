"""The official baselines shipped in ``examples/pcg-baselines``: clean for ``inspect``, and the messages they send.

The programs import ``llms4pcg.competition``; here a stand-in module with the same names (``TrialLoop``,
``TrialContext``, ``chat_with_llm``) takes its place in ``sys.modules``, and its chat function records every
conversation and answers from a script.
"""

from __future__ import annotations

import abc
import copy
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from podium.tracks.pcg.inspect import inspect_program

BASELINES = Path(__file__).parents[4] / "examples" / "pcg-baselines"


class FakeTrialLoop(abc.ABC):
    @staticmethod
    @abc.abstractmethod
    def run(ctx: Any, target_character: str) -> str: ...


class FakeContext:
    def __init__(self, character: str) -> None:
        self.character = character
        self.conversations: list[list[dict[str, str]]] = []

    def get_character(self) -> str:
        return self.character


def _chat(ctx: FakeContext, messages: list[dict[str, str]], n: int = 1) -> list[str]:
    ctx.conversations.append(copy.deepcopy(messages))  # the program may keep appending to its list
    return [f"answer {len(ctx.conversations)}"] * n


@pytest.fixture()
def fake_llms4pcg(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    package = types.ModuleType("llms4pcg")
    competition = types.ModuleType("llms4pcg.competition")
    competition.TrialLoop = FakeTrialLoop  # type: ignore[attr-defined]
    competition.TrialContext = FakeContext  # type: ignore[attr-defined]
    competition.chat_with_llm = _chat  # type: ignore[attr-defined]
    package.competition = competition  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llms4pcg", package)
    monkeypatch.setitem(sys.modules, "llms4pcg.competition", competition)
    return competition


def _trial_loop(name: str) -> type[FakeTrialLoop]:
    spec = importlib.util.spec_from_file_location(f"baseline_{name}", BASELINES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loops = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, FakeTrialLoop)]
    (loop,) = [v for v in loops if v is not FakeTrialLoop]
    return loop


@pytest.mark.parametrize("name", ["zero_shot", "zero_shot_multi_turn"])
def test_inspect_finds_the_baselines_clean(name: str) -> None:
    report = inspect_program(BASELINES / f"{name}.py")
    assert report.flags == ()
    assert report.package == "llms4pcg"
    assert report.imports == ("llms4pcg.competition",)


def test_zero_shot_sends_one_user_message_with_the_letter(fake_llms4pcg: types.ModuleType) -> None:
    loop = _trial_loop("zero_shot")
    ctx = FakeContext("K")
    assert loop.run(ctx, "K") == "answer 1"
    ((message,),) = ctx.conversations
    assert message["role"] == "user"
    assert "<OBJECT>" not in message["content"]
    assert "letter K." in message["content"]  # the bare letter, as the official baseline fills it in
    assert "drop_block" in message["content"]


def test_multi_turn_keeps_the_first_answer_and_returns_the_last(fake_llms4pcg: types.ModuleType) -> None:
    loop = _trial_loop("zero_shot_multi_turn")
    ctx = FakeContext("Q")
    assert loop.run(ctx, "Q") == "answer 2"
    first, second = ctx.conversations
    assert [m["role"] for m in first] == ["user"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[0] == first[0] and second[1]["content"] == "answer 1"
    assert "letter Q " in first[0]["content"]
    assert "drop_block" in second[2]["content"]
    assert all("<OBJECT>" not in m["content"] for m in second)


def test_each_trial_starts_a_new_conversation(fake_llms4pcg: types.ModuleType) -> None:
    loop = _trial_loop("zero_shot_multi_turn")
    first, second = FakeContext("A"), FakeContext("B")
    loop.run(first, "A")
    loop.run(second, "B")
    assert [len(c) for c in second.conversations] == [1, 3]
