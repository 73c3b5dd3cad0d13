"""Copies across users: the normalised hash sees through names, spacing and comments; the similarity ranks the rest."""

from __future__ import annotations

from pathlib import Path

from podium.tracks.dojo.similarity import NEAR, normalised_hash, normalised_tokens, similarity

CORPUS = Path(__file__).parent / "corpus"
GOLF = b"a,b=0,1\nwhile 1:print(a);a,b=b,a+b\n"
MATRIX = (CORPUS / "accepted" / "matrix_power.py").read_bytes()


def test_renaming_reformatting_and_commenting_leave_the_normalised_hash() -> None:
    disguised = b"# my own work\nx , y = 0 , 1\nwhile 1 :  print( x ) ; x,y = y,x+y   # fast\n\n"
    assert normalised_hash(disguised) == normalised_hash(GOLF) and disguised != GOLF
    assert normalised_hash(GOLF.replace(b"0,1", b"1,1")) != normalised_hash(GOLF)  # a real change moves it
    assert normalised_tokens(b"print(len(x))") == ["print", "(", "len", "(", "v0", ")", ")", "\\n"]  # builtins stay


def test_the_figures_the_design_note_quotes() -> None:
    assert round(similarity(MATRIX, MATRIX.replace(b"range(200)", b"range(0, 200)")), 2) == 0.94 >= NEAR
    assert round(similarity(GOLF, GOLF.replace(b"while 1", b"while True")), 2) == 0.69 < NEAR
    assert similarity(GOLF, GOLF) == 1.0 and similarity(GOLF, MATRIX) < 0.1


def test_a_source_that_does_not_tokenize_is_compared_by_its_lines() -> None:
    broken = b"def f(:\n  return 1\n"
    assert normalised_tokens(broken) == ["def f(:", "return 1"] and similarity(broken, broken) == 1.0
