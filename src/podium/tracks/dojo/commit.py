r"""Commit–reveal: what a problem publishes when it opens, and how anyone checks it at reveal.

As docs/rules/dojo-platform.md §3 decides: ``setter_commit = sha256("dojo-setter-v1\0" + salt + canonical setter.py)``
and ``seq_commit = sha256("dojo-seq-v1\0" + salt + terms)``, where terms are the ``n_check`` decimal terms joined by
``\n`` with a final ``\n`` and ``salt`` is 32 random bytes kept secret until reveal. Without the salt a solver could
hash a guessed sequence offline and learn whether it is right.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

SALT_BYTES = 32
SETTER_DOMAIN = b"dojo-setter-v1\0"
SEQUENCE_DOMAIN = b"dojo-seq-v1\0"


def terms_bytes(terms: Sequence[str]) -> bytes:
    """The committed form of the terms."""
    return ("\n".join(terms) + "\n").encode("ascii")


def setter_commitment(salt: bytes, setter_source: bytes) -> str:
    """The published commitment to the setter program."""
    return hashlib.sha256(SETTER_DOMAIN + salt + setter_source).hexdigest()


def sequence_commitment(salt: bytes, terms: Sequence[str]) -> str:
    """The published commitment to the hidden terms."""
    return hashlib.sha256(SEQUENCE_DOMAIN + salt + terms_bytes(terms)).hexdigest()


@dataclass(frozen=True, slots=True)
class Commitments:
    """Both commitments of one problem."""

    setter_commit: str
    seq_commit: str


def commit(salt: bytes, setter_source: bytes, terms: Sequence[str]) -> Commitments:
    """Both commitments for a salt, a canonical setter and its terms."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"the salt must be {SALT_BYTES} bytes, not {len(salt)}")
    return Commitments(setter_commitment(salt, setter_source), sequence_commitment(salt, terms))


def verify_reveal(commitments: Commitments, salt: bytes, setter_source: bytes, terms: Sequence[str]) -> bool:
    """Whether the revealed salt, setter and terms match what was published at opening."""
    return commit(salt, setter_source, terms) == commitments
