"""Reading a submission as organisers receive it, finding its entry and its requirements: the messy cases."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from podium.core.errors import ConfigError, InputError
from podium.tracks.pcg.generation import submission
from podium.tracks.pcg.generation.entry import choose_entry, find_candidates
from podium.tracks.pcg.generation.requirements import declared_requirements, parse_requirements, requirement_name
from podium.tracks.pcg.generation.submission import load_program, read_submission

LOOP = b"from chatgpt4pcg.models.trial_loop import TrialLoop\nclass Mine(TrialLoop):\n    pass\n"


def tree(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def zipped(archive: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(archive, "w") as written:
        for name, data in members.items():
            written.writestr(name, data)
    return archive


def test_a_folder_leaves_out_caches_version_control_virtual_environments_and_links(tmp_path: Path) -> None:
    top = tree(tmp_path / "team", {"main.py": LOOP, "prompts/a.txt": b"a", "__pycache__/main.cpython-311.pyc": b"x",
                                   ".git/HEAD": b"ref", "venv/pyvenv.cfg": b"home = /usr", "venv/lib/x.py": b"",
                                   ".DS_Store": b"", "data/.env": b"OPENAI_API_KEY=sk-team"})  # fmt: skip
    (top / "outside").symlink_to("/etc/passwd")
    (top / "linked").symlink_to(tmp_path, target_is_directory=True)
    read = read_submission(top)
    assert sorted(read.files) == ["data/.env", "main.py", "prompts/a.txt"]
    assert read.left_out == (".DS_Store", ".git/", "__pycache__/", "linked/", "outside", "venv/")


def test_a_zip_with_one_top_folder_is_read_from_inside_it_and_gives_the_folders_digest(tmp_path: Path) -> None:
    files = {"main.py": LOOP, "prompts/a.txt": b"a\r\n"}
    folder = read_submission(tree(tmp_path / "team", files))
    archive = zipped(
        tmp_path / "team.zip", {f"team/{k}": v for k, v in files.items()} | {"__MACOSX/team/._main.py": b""}
    )
    read = read_submission(archive)
    assert read.files == folder.files and read.digest == folder.digest
    flat = read_submission(zipped(tmp_path / "flat.zip", files))  # zipped from inside the folder: no top folder
    assert flat.files == folder.files


def test_windows_backslashes_in_a_zip_are_folders(tmp_path: Path) -> None:
    read = read_submission(zipped(tmp_path / "w.zip", {"team\\tot\\tot.py": LOOP, "team\\prompts\\a.txt": b"a"}))
    assert sorted(read.files) == ["prompts/a.txt", "tot/tot.py"]


@pytest.mark.parametrize("name", ["../evil.py", "/etc/cron.d/evil", "team/../../evil.py", "C:/evil.py"])
def test_a_zip_member_outside_the_top_folder_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError, match="would land outside"):
        read_submission(zipped(tmp_path / "slip.zip", {"main.py": LOOP, name: b"x"}))


def test_a_link_in_a_zip_is_left_out(tmp_path: Path) -> None:
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("main.py", LOOP)
        link = zipfile.ZipInfo("secret")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        written.writestr(link, "/etc/shadow")
    read = read_submission(archive)
    assert list(read.files) == ["main.py"] and read.left_out == ("secret",)


def test_a_zip_bomb_stops_at_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission, "MAX_BYTES", 1 << 20)
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as written:
        written.writestr("main.py", LOOP)
        written.writestr("data.bin", bytes(4 << 20))
    assert archive.stat().st_size < 64 << 10
    with pytest.raises(InputError, match="over 1 MiB") as raised:
        read_submission(archive)
    assert raised.value.fix is not None and "leave out" in raised.value.fix


def test_a_broken_or_unknown_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "team.zip"
    broken.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(InputError, match="team.zip"):
        read_submission(broken)
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with pytest.raises(InputError, match="a .py file, a folder or a .zip"):
        read_submission(notes)


def test_the_entry_is_the_one_module_calling_run_evaluation_even_if_another_defines_the_base(tmp_path: Path) -> None:
    files = {
        "common.py": b"from chatgpt4pcg.models.trial_loop import TrialLoop\nclass Architecture(TrialLoop): pass\n",
        "main.py": b"from common import Architecture\nfrom chatgpt4pcg.competition import run_evaluation\n"
        b"class ZeroShot(Architecture): pass\nif __name__ == '__main__':\n    run_evaluation('t', ZeroShot)\n",
        "chatgpt4pcg/competition.py": b"def run_evaluation(team, fn): run_evaluation(team, fn)\n",  # vendored
    }
    assert choose_entry(files, None) == ("main.py", "ZeroShot")
    found = find_candidates(files)
    assert {m.path: m.loops for m in found.modules} == {"common.py": ("Architecture",), "main.py": ("ZeroShot",)}


def test_without_run_evaluation_the_one_module_defining_a_loop_is_the_entry() -> None:
    files = {"helpers.py": b"X = 1\n", "sub/program.py": LOOP, "broken.py": b"print 'python 2'\n"}
    assert choose_entry(files, None) == ("sub/program.py", None)
    (broken,) = (m for m in find_candidates(files).modules if m.path == "broken.py")
    assert broken.syntax_error is not None


def test_a_named_entry_is_checked_and_its_loop_read_from_a_keyword_argument() -> None:
    files = {"a.py": LOOP + b"run_evaluation('t', fn=Mine, num_trials=10)\n", "b.py": LOOP}
    assert choose_entry(files, "a.py") == ("a.py", "Mine")
    with pytest.raises(ConfigError, match="not a .py file of the submission") as raised:
        choose_entry(files, "c.py")
    assert raised.value.fix == "pick one of: a.py, b.py"


def test_several_definers_are_listed() -> None:
    with pytest.raises(ConfigError, match="several modules could be the program") as raised:
        choose_entry({"a.py": LOOP, "b.py": LOOP}, None)
    assert "a.py: defines Mine" in raised.value.message and "b.py: defines Mine" in raised.value.message


def test_requirements_files_of_every_style_give_the_same_lines() -> None:
    expected = ["chatgpt4pcg~=1.2.1", "python-dotenv~=1.0.0", "numpy==1.26.4; python_version >= '3.9'"]
    styles = [
        "chatgpt4pcg~=1.2.1\npython-dotenv~=1.0.0\nnumpy==1.26.4; python_version >= '3.9'\n",
        "chatgpt4pcg~=1.2.1\r\npython-dotenv~=1.0.0\r\nnumpy==1.26.4; python_version >= '3.9'",
        "\ufeff# ours\nchatgpt4pcg~=1.2.1  # official\n\n  python-dotenv~=1.0.0\n"
        "numpy==1.26.4; python_version >= '3.9'",
        "chatgpt4pcg~=1.2.1\rpython-dotenv~=1.0.0\rnumpy==1.26.4; python_version >= '3.9'\r",
    ]
    for text in styles:
        assert parse_requirements(text) == expected, text


def test_requirement_names_are_normalised() -> None:
    assert requirement_name("Python_Dotenv~=1.0") == "python-dotenv"
    assert requirement_name("ChatGPT4PCG") == "chatgpt4pcg"
    assert requirement_name("openai[datalib]>=1") == "openai"
    assert requirement_name("-r other.txt") == ""


def test_the_requirements_file_is_the_top_ones_else_the_entrys() -> None:
    both = {"requirements.txt": b"a\n", "tot/requirements.txt": b"b\n", "tot/tot.py": LOOP}
    assert declared_requirements(both, "tot/tot.py") == ("requirements.txt", ["a"])
    beside = {"tot/requirements.txt": b"b\n", "tot/tot.py": LOOP}
    assert declared_requirements(beside, "tot/tot.py") == ("tot/requirements.txt", ["b"])
    assert declared_requirements({"tot/tot.py": LOOP}, "tot/tot.py") == ("", [])


def test_a_workdir_must_be_a_folder_of_the_submission(tmp_path: Path) -> None:
    top = tree(tmp_path / "team", {"tot/tot.py": LOOP, "requirements.txt": b"x==1\r\n"})
    program = load_program(top, workdir="tot", requirements=("y==2",))
    assert (program.entry, program.workdir, program.entry_from_workdir) == ("tot/tot.py", "tot", "tot.py")
    assert program.requirements == ("x==1", "y==2") and program.requirements_file == "requirements.txt"
    for bad in ("nowhere", "../elsewhere", "/tmp"):
        with pytest.raises(ConfigError, match="--workdir"):
            load_program(top, workdir=bad)


def test_reading_never_writes_the_submission(tmp_path: Path) -> None:
    top = tree(tmp_path / "team", {"main.py": LOOP})
    os.chmod(top / "main.py", 0o444)
    os.chmod(top, 0o555)
    try:
        assert read_submission(top).files == {"main.py": LOOP}
    finally:
        os.chmod(top, 0o755)
