"""``podium pcg inspect`` on hand-made programs filed by expected outcome (``programs/clean|flagged|broken``).

A flagged or broken program's file name starts with the concern it must raise (``network_requests.py`` →
``network``), so adding a program to the corpus adds a test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from podium.core.errors import InputError
from podium.tracks.pcg.cli import pcg
from podium.tracks.pcg.inspect import FLAG, inspect_program, inspect_source
from podium.tracks.pcg.inspect_rules import Concern

PROGRAMS = Path(__file__).parent / "programs"


def _corpus(outcome: str) -> list[Path]:
    return sorted((PROGRAMS / outcome).glob("*.py"))


@pytest.mark.parametrize("path", _corpus("clean"), ids=lambda p: p.stem)
def test_clean_programs_raise_no_flags(path: Path) -> None:
    report = inspect_program(path)
    assert report.flags == ()
    assert report.parsed and report.trial_loops
    assert report.package in ("llms4pcg", "chatgpt4pcg")


@pytest.mark.parametrize("path", _corpus("flagged") + _corpus("broken"), ids=lambda p: p.stem)
def test_each_program_is_flagged_for_its_concern(path: Path) -> None:
    expected = Concern(path.stem.split("_")[0])
    report = inspect_program(path)
    assert expected in {f.concern for f in report.flags}, report.findings


def test_findings_point_at_the_line() -> None:
    report = inspect_program(PROGRAMS / "flagged" / "network_requests.py")
    assert [(f.concern, f.line) for f in report.flags] == [(Concern.NETWORK, 1), (Concern.NETWORK, 9)]
    assert "requests.post" in report.flags[1].message


def test_an_alias_does_not_hide_the_module() -> None:
    fork = inspect_program(PROGRAMS / "flagged" / "process_fork_bomb.py")
    assert any(f.concern is Concern.PROCESS and "os.fork" in f.message for f in fork.flags)
    key = inspect_program(PROGRAMS / "flagged" / "environment_api_key.py")
    assert any(f.concern is Concern.ENVIRONMENT and f.line == 9 for f in key.flags)


def test_literal_getattr_is_not_obfuscation_but_computed_is() -> None:
    head = b"from llms4pcg.competition import TrialLoop, chat_with_llm\n"
    body = b"class T(TrialLoop):\n    def run(self, ctx, c):\n        return chat_with_llm(ctx, [getattr(c, %s)])\n"
    plain = inspect_source(head + body % b"'upper'", Path("p.py"))
    computed = inspect_source(head + body % b"'up' + 'per'", Path("p.py"))
    assert plain.flags == ()
    assert [f.concern for f in computed.flags] == [Concern.OBFUSCATION]


def test_official_names_outside_the_api_are_flagged() -> None:
    source = b"from llms4pcg.competition import TrialLoop, chat_with_llm, OpenAI\nimport llms4pcg.secret\n"
    report = inspect_source(source, Path("p.py"))
    messages = [f.message for f in report.flags if f.concern is Concern.API]
    assert any("llms4pcg.competition.OpenAI" in m for m in messages)
    assert any("llms4pcg.secret" in m for m in messages)


def test_syntax_error_says_where_and_what() -> None:
    report = inspect_program(PROGRAMS / "broken" / "syntax_unclosed_paren.py")
    (flag,) = report.findings
    assert (flag.concern, flag.severity, flag.line) == (Concern.SYNTAX, FLAG, 4)
    assert "class Broken(TrialLoop:" in flag.message
    assert not report.parsed


def test_non_utf8_file_names_the_byte() -> None:
    report = inspect_program(PROGRAMS / "broken" / "encoding_latin1_bytes.py")
    (flag,) = report.findings
    assert (flag.concern, flag.line) == (Concern.ENCODING, 3)
    assert "0xe0" in flag.message
    assert report.size.bytes == (PROGRAMS / "broken" / "encoding_latin1_bytes.py").stat().st_size


def test_declared_latin1_source_parses_with_a_note() -> None:
    source = "# -*- coding: latin-1 -*-\nfrom llms4pcg.competition import TrialLoop\nP = 'à'\n".encode("latin-1")
    report = inspect_source(source, Path("p.py"))
    assert report.parsed
    assert any(f.concern is Concern.ENCODING and f.severity == "note" for f in report.findings)


def test_nul_byte_is_a_syntax_problem() -> None:
    report = inspect_source(b"x = 1\n\x00\n", Path("p.py"))
    assert [(f.concern, f.line) for f in report.findings] == [(Concern.SYNTAX, 2)]


def test_size_counts_prompt_words_without_docstrings_or_keys() -> None:
    source = b'"""A long docstring that is not a prompt at all."""\nM = {"role": "user", "content": "two words"}\n'
    report = inspect_source(source, Path("p.py"))
    assert report.size.lines == 2
    assert report.size.strings == 2  # "user", "two words"
    assert report.size.prompt_words == 3
    assert report.size.longest_string_chars == len("two words")


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        inspect_program(tmp_path / "absent.py")


def test_cli_text_and_json() -> None:
    runner = CliRunner()
    text = runner.invoke(pcg, ["inspect", str(PROGRAMS / "flagged" / "process_os_system.py")], catch_exceptions=False)
    assert text.exit_code == 0
    assert "2 flags to read" in text.output and "calls os.system()" in text.output
    clean = [str(path) for path in _corpus("clean")]
    result = runner.invoke(pcg, ["inspect", "--json", *clean], catch_exceptions=False)
    assert result.exit_code == 0
    programs = json.loads(result.output)["programs"]
    assert [Path(p["path"]).name for p in programs] == [p.name for p in _corpus("clean")]
    assert all(p["flags"] == 0 and p["parsed"] for p in programs)


def test_own_private_state_is_not_a_finding() -> None:
    source = (
        b"from llms4pcg.competition import TrialLoop, chat_with_llm\n"
        b"class Keep(TrialLoop):\n"
        b"    _seen = {}\n"
        b"    def run(self, ctx, c):\n"
        b"        self._seen[c] = chat_with_llm(ctx, [])[0]\n"
        b"        return self._seen[c]\n"
    )
    assert inspect_source(source, Path("p.py")).findings == ()


def test_expressions_nested_past_the_readers_depth_are_flagged_not_a_crash() -> None:
    source = b"from llms4pcg.competition import TrialLoop\nx = " + b"+".join([b"1"] * 900) + b"\n"
    report = inspect_source(source, Path("deep.py"))
    assert any(f.concern is Concern.OBFUSCATION and "nested too deeply" in f.message for f in report.flags)
