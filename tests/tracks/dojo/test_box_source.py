"""The box copy: the solver's tokens on their own lines, with nothing the anti-hardcode rule does not count."""

from __future__ import annotations

import ast
import io
import sys
import sysconfig
import tokenize
from pathlib import Path

import pytest

from podium.tracks.dojo import box_source
from podium.tracks.dojo.box_source import box_copy
from podium.tracks.dojo.parsing import parse_source

SOURCES = {
    "golf": "a,b=0,1\nwhile 1:print(a);a,b=b,a+b\n",
    "comments and cookie": (
        "#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\n# 1 1 2 3 5 8\nx = 1  # after code\nif x:\n"
        "\tprint(  x ,  'a # in a string' )\n\n\n    # indented comment\nelse:\n  pass\n"
    ),
    "continuations": "def f(n):\n    '''doc'''\n    return (n *\n            2)  # c\nprint(f(3), \\\n      f(4))\n",
    "backslash before a blank line": 'x = \\\n"a"\\\n\nprint(x)\n',
    "multi-line string": 's = """multi\n  line # kept\n"""\nprint(s)\n',
    "f-string": 'print(f"{1+1!r:>10} {x}" if (x:=3) else 0)\n',
    "comment in brackets": "x = [1,\n     # comment in brackets\n     2]\nprint(x)\n",
    "literals": "print(0x1F, 1_000, 1.5e10, 3j, .5, 'a' 'b', b'x', rb'\\d', ...)\n",
    "combining marks in a name": "עִברִית = 1\nprint(עִברִית)\n",
    "deep": "x=y" + ".z" * 1500 + "\n",
    "a long literal": "print(" + "9" * 5000 + ")\n",
    "no final newline": "print(1)",
}


def tokens(text: str) -> list[tuple[int, str, int]]:
    """What a program is made of: each token's type, text and line (no comments, no layout)."""
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    found = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(t.type, t.string, t.start[0]) for t in found if t.type not in skipped]


@pytest.mark.parametrize("name", SOURCES)
def test_the_copy_is_the_same_tokens_on_the_same_lines_without_comments(name: str) -> None:
    source = SOURCES[name]
    copy = box_copy(source)
    assert copy is not None
    assert tokens(copy) == tokens(source)  # every token, as written, on its line: tracebacks keep their lines
    assert not any(t.type == tokenize.COMMENT for t in tokenize.generate_tokens(io.StringIO(copy).readline))
    assert "  " not in copy.replace("\t", " ").lstrip() or name == "multi-line string"  # one space between tokens


def test_spaces_between_tokens_carry_nothing() -> None:
    # a table could be kept as the number of spaces between two tokens of each line
    assert box_copy("x  =   1\nif x  :\n      print( x )\n") == box_copy("x = 1\nif x:\n print(x)\n")


def test_a_copy_that_would_not_mean_the_same_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(box_source, "_rebuilt", lambda text: iter(["print(2)\n"]))
    assert box_copy("print(1)\n") is None


@pytest.mark.skipif(sys.version_info < (3, 12), reason="comments inside f-string fields arrived with Python 3.12")
def test_a_comment_inside_an_f_string_field_is_a_doubt() -> None:
    assert box_copy('print(f"""{1 # a table could hide here\n}""")\n') is None


def test_every_module_of_a_sample_of_the_standard_library_copies_exactly() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sample = sorted(stdlib.glob("*.py"))[::4]  # about 50 modules, every kind of layout Python itself uses
    assert len(sample) > 30
    for path in sample:
        source = path.read_text("utf-8")
        copy = box_copy(source)
        assert copy is not None, path
        assert ast.dump(parse_source(copy)) == ast.dump(parse_source(source)), path
