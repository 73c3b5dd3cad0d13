"""Prompt length of prompts, programs and submission folders (the winner rule's tie-break)."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.tracks.pcg.promptlength import prompt_length, prompt_lengths
from podium.tracks.pcg.rules.wordcount import count_words

PROGRAM = '''"""Docstrings do not count, however long they are."""
PROMPT = "Build the letter <OBJECT> now."
MESSAGE = {"role": "user", "content": f"{PROMPT} Thanks"}
'''


def test_program_counts_its_string_literals(tmp_path: Path) -> None:
    path = tmp_path / "team.py"
    path.write_text(PROGRAM)
    expected = count_words("Build the letter <OBJECT> now.") + count_words("user") + count_words(" Thanks")
    assert prompt_length(path) == expected == 7


def test_prompt_file_counts_like_the_2023_qualifier(tmp_path: Path) -> None:
    path = tmp_path / "team.txt"
    path.write_text("Use ab_drop() to draw <OBJECT>, please.")
    assert prompt_length(path) == count_words("Use ab_drop() to draw <OBJECT>, please.")


def test_folder_adds_programs_and_prompt_files_not_hidden_or_other_files(tmp_path: Path) -> None:
    team = tmp_path / "team"
    (team / "prompts").mkdir(parents=True)
    (team / "main.py").write_text(PROGRAM)
    (team / "prompts" / "0.txt").write_text("one two three")
    (team / "notes.md").write_text("not a prompt at all")
    (team / ".hidden").mkdir()
    (team / ".hidden" / "x.txt").write_text("hidden words here")
    assert prompt_length(team) == 7 + 3


def test_lengths_by_team(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("four words right here")
    (tmp_path / "b.py").write_text('P = "two words"\n')
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "p.py").write_text('P = "one"\n')
    assert prompt_lengths(tmp_path) == {"a": 4, "b": 2, "c": 1}


def test_unreadable_program_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "team.py"
    path.write_text("def broken(:\n")
    with pytest.raises(InputError, match="line 1"):
        prompt_length(path)
