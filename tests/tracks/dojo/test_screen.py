"""The static policy, from the spec's rules and hostile inputs."""

from __future__ import annotations

import pytest

from podium.core.records import StageFailure
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import ScreenPassed, screen
from podium.tracks.dojo.verdicts import RunVerdict

RULES = ScoringRules()


def passes(source: str) -> bool:
    return isinstance(screen(source, RULES), ScreenPassed)


def reason(source: str) -> str:
    result = screen(source, RULES)
    assert isinstance(result, StageFailure) and result.verdict is RunVerdict.POLICY_REJECT
    return result.reason


@pytest.mark.parametrize(
    "source",
    [
        "a,b=0,1\nwhile 1:print(a);a,b=b,a+b\n",
        "import math\nfor n in range(200):print(math.comb(2*n,n))\n",
        "import sys\nsys.setrecursionlimit(9999)\nprint(1)\n",
        "import os\nprint(int.from_bytes(os.urandom(1)))\n",
        "import itertools,threading\n",
        "exec('print(1)\\n'*200)\n",  # golf staple; the sandbox is the boundary, not the screen
        "x=" + "+".join(["1"] * 120) + "\n",
        "s='" + "a" * 2000 + "'\n",
        "t=(" + ",".join(["n"] * 400) + ")\n",
    ],
)
def test_allowed_sources(source: str) -> None:
    assert passes(source), screen(source, RULES)


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("open('x').read()\n", "open"),
        ("import io\n", "io"),
        ("from pathlib import Path\n", "pathlib"),
        ("import socket\n", "socket"),
        ("import urllib.request\n", "urllib"),
        ("from http import client\n", "http"),
        ("import subprocess\n", "subprocess"),
        ("import os\nos.system('ls')\n", "os.system"),
        ("import os as o\no.execv('/bin/sh',[])\n", "os.execv"),
        ("from os import popen\n", "os.popen"),
        ("import os\nos.path.exists('/')\n", "os.path"),
        ("import multiprocessing\n", "multiprocessing"),
        ("import ctypes\n", "ctypes"),
        ("__import__('socket')\n", "__import__"),
        ("import importlib\n", "importlib"),
        ("x=" + "+".join(["1"] * 121) + "\n", "121 numeric literals"),
        ("s='" + "a" * 2001 + "'\n", "2001 characters"),
        ("t=[" + ",".join(["n"] * 401) + "]\n", "401 elements"),
        ("print(1\n", "does not parse"),
        ("x=" + "-" * 100_000 + "1\n", "nested too deeply"),
    ],
)
def test_rejected_sources(source: str, words: str) -> None:
    assert words in reason(source)


def test_numeric_literals_count_tokens_and_setters_are_exempt() -> None:
    source = "print(" + ",".join(str(i) for i in range(200)) + ")\n"
    assert "200 numeric literals" in reason(source)
    assert isinstance(screen(source, RULES, numeric_literal_limit=False), ScreenPassed)


def test_string_literal_chars_sum_over_all_literals_including_docstrings_and_bytes() -> None:
    source = '"""' + "d" * 1000 + '"""\n' + "b=b'" + "x" * 1001 + "'\n"
    assert "2001 characters" in reason(source)


def test_four_hundred_kilobytes_of_additions_do_not_crash_the_screen() -> None:
    result = screen("x=" + "1+" * 200_000 + "1\n", RULES)
    assert isinstance(result, StageFailure)


V2 = ScoringRules(literal_policy="payload-budget-v2")
V1 = ScoringRules(literal_policy="payload-budget-v1")


def test_a_table_hidden_in_one_long_identifier_is_payload_under_v2_only() -> None:
    # the red team's shape: 200 terms as one 772-character name, read back through dir()
    name = "t" + "0123456789abcdefghijklmnopqrstuvwxyz"[:35] * 22
    source = f"{name} = 0\nn = [x for x in dir() if len(x) > 99][0]\nprint(len(n))\n"
    assert isinstance(screen(source, V1), ScreenPassed)
    refused = screen(source, V2)
    assert isinstance(refused, StageFailure) and refused.verdict is RunVerdict.POLICY_REJECT
    assert f"{len(name) - 8 + 2 + 2} bytes of literal payload, {len(name) - 8} of them in long identifiers" in (
        refused.reason
    )


@pytest.mark.parametrize(
    "source",
    [
        "import functools\n@functools.lru_cache(None)\n"
        "def fibonacci(n): return n if n < 2 else fibonacci(n-1) + fibonacci(n-2)\n"
        "for index in range(200): print(fibonacci(index))\n",
        "a,b=0,1\nfor _ in range(200):print(a);a,b=b,a+b\n",
    ],
)
def test_ordinary_names_cost_little_under_v2(source: str) -> None:
    passed = screen(source, V2)
    assert isinstance(passed, ScreenPassed) and passed.figures.name_payload_bytes <= 4, passed
