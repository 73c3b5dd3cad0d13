"""Canonicalisation and the static policy, from the rules (docs/rules/dojo-platform.md §7–§8) and hostile inputs."""

from __future__ import annotations

import hashlib

import pytest

from podium.core.records import StageFailure
from podium.tracks.dojo.admit import AdmittedSource, admit, canonicalize
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import ScreenPassed, screen
from podium.tracks.dojo.terms import parse_terms
from podium.tracks.dojo.verdicts import RunVerdict

RULES = ScoringRules()


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("print(1)", "print(1)\n"),
        ("print(1)\n", "print(1)\n"),
        ("print(1)\r\n\r\n  \t\n\n", "print(1)\n"),
        ("a\rb\r", "a\nb\n"),
        ("\ufeffprint(1)\n", "print(1)\n"),
        ("x = 1   \nprint(x)  \n", "x = 1   \nprint(x)  \n"),  # trailing whitespace inside lines is kept
        ("\n\nprint(1)\n", "\n\nprint(1)\n"),  # leading blank lines are kept
        ("", ""),
        ("  \n\t\n", ""),
        ("é = 1\n", "é = 1\n"),
        ("e\u0301 = 1\n", "e\u0301 = 1\n"),  # no Unicode normalisation
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert canonicalize(text) == canonical


def test_length_and_hash_are_of_the_canonical_bytes() -> None:
    admitted = admit("é=1\r\n\r\n".encode(), max_bytes=100)
    assert isinstance(admitted, AdmittedSource)
    assert admitted.canonical == "é=1\n".encode() and admitted.length == 5
    assert admitted.sha256 == hashlib.sha256("é=1\n".encode()).hexdigest()


def test_invalid_utf8_and_oversize_are_rejected_with_reasons() -> None:
    bad = admit(b"print(1)\xff\n", max_bytes=100)
    assert isinstance(bad, StageFailure) and bad.verdict is RunVerdict.POLICY_REJECT and "UTF-8" in bad.reason
    big = admit(b"#" * 101, max_bytes=100)
    assert isinstance(big, StageFailure) and "101 bytes" in big.reason


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


@pytest.mark.parametrize(
    ("stdout", "ended", "values", "error"),
    [
        (b"1\n2\n3\n", True, ("1", "2", "3"), None),
        (b"1\n2\n3", True, ("1", "2", "3"), None),  # last line without newline counts once the program exited
        (b"1\n2\n3", False, ("1", "2"), None),  # ...but not when the reader stopped the program mid-line
        (b"1 \t\r\n-2\r\n\n\n", True, ("1", "-2"), None),
        (b"-0\n", True, ("0",), None),
        (b"5\n-0\n-7\n10\n", False, ("5", "0", "-7", "10"), None),
        (b"5\n-0\n-7\n10 \n", False, ("5", "0", "-7", "10"), None),
        (b"", True, (), None),
        (b"1\n\n2\n", True, None, "line 2"),
        (b"1_000\n", True, None, "line 1"),
        (b"+7\n", True, None, "line 1"),
        (b" 7\n", True, None, "line 1"),
        (b"007\n", True, None, "line 1"),
        (b"1.0\n", True, None, "line 1"),
        ("\u0661\n".encode(), True, None, "line 1"),  # Arabic-Indic digit one
    ],
)
def test_term_lines(stdout: bytes, ended: bool, values: tuple[str, ...] | None, error: str | None) -> None:
    terms = parse_terms(stdout, 200, output_ended=ended)
    if error is None:
        assert terms.error is None and terms.values == values
    else:
        assert terms.error is not None and terms.error.startswith(error)


def test_only_the_first_n_check_lines_are_read() -> None:
    terms = parse_terms(b"1\n" * 3 + b"garbage\n", 3, output_ended=True)
    assert terms.error is None and terms.values == ("1", "1", "1")
