"""Canonicalisation: the canonical form, its length and hash, and what admission rejects."""

from __future__ import annotations

import hashlib

import pytest

from podium.core.records import StageFailure
from podium.tracks.dojo.admit import AdmittedSource, admit, canonicalize
from podium.tracks.dojo.verdicts import RunVerdict


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


@pytest.mark.parametrize("raw", [b"", b"\n", b"  \n\t\r\n", "\ufeff\n".encode()])
def test_an_empty_or_blank_source_is_refused_with_the_fix(raw: bytes) -> None:
    refused = admit(raw, max_bytes=100)
    assert isinstance(refused, StageFailure) and refused.verdict is RunVerdict.POLICY_REJECT
    assert "empty or only whitespace" in refused.reason and "send the program" in refused.reason
