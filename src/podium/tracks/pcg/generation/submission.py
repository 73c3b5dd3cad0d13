"""A program submission as organisers receive it: one ``.py`` file, a folder, or a ``.zip``, read into memory once.

The 2024 and 2025 rules ask for a zipped archive holding the program, a README and "any supplementary files
required for the execution of the program" (``docs/design/pcg-generate.md``). podium reads any of the three shapes
into the same thing, the submission's files by relative path from its top folder, and never writes the original:

* a file is a submission of that one file;
* a folder is its files, without what only a developer's machine has (version control, caches, editor folders, a
  virtual environment: any folder holding ``pyvenv.cfg``) and without links (they could point anywhere);
* a zip is its members, the same filtered out, and when every member sits in one folder (an archive made from
  the team's folder) that folder is the top. Members that would land outside the top (``..``, absolute paths),
  encrypted members and archives over the size limits are refused with the file named.

Limits: 64 MiB and 10,000 files in all, so that one submission cannot fill the judge's memory.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from podium.core.errors import ConfigError, InputError
from podium.tracks.pcg.generation.entry import choose_entry
from podium.tracks.pcg.generation.requirements import declared_requirements

MAX_BYTES = 64 << 20
MAX_FILES = 10_000
_JUNK_FOLDERS = frozenset({".git", ".hg", ".svn", "__pycache__", "__MACOSX", ".idea", ".vscode", ".mypy_cache",
                           ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints", "node_modules"})  # fmt: skip
_JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
_JUNK_SUFFIXES = (".pyc", ".pyo")


@dataclass(frozen=True, slots=True)
class SubmissionFiles:
    """A submission's files by relative POSIX path, where they came from, and what was left out and why."""

    origin: Path
    files: Mapping[str, bytes]
    left_out: tuple[str, ...] = field(default=())

    @property
    def digest(self) -> str:
        """SHA-256 over the sorted paths and contents: the same for a folder and its zip."""
        digest = hashlib.sha256()
        for path in sorted(self.files):
            data = self.files[path]
            digest.update(f"{path}\0{len(data)}\0".encode() + data)
        return "sha256:" + digest.hexdigest()


def read_submission(path: Path) -> SubmissionFiles:
    """Read a file, folder or zip; InputError naming the file and the fix when it cannot be judged as it is."""
    if path.is_dir():
        return _read_folder(path)
    if zipfile.is_zipfile(path):
        return _read_zip(path)
    if path.suffix == ".zip":
        raise InputError(
            "not a readable zip archive", path=path, fix="re-create the archive, or unpack it and pass the folder"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read the program: {error.strerror}", path=path) from None
    if path.suffix != ".py":
        raise InputError("a program is a .py file, a folder or a .zip", path=path)
    return SubmissionFiles(path, {path.name: data})


def _junk(parts: tuple[str, ...]) -> bool:
    name = parts[-1]
    return any(part in _JUNK_FOLDERS for part in parts[:-1]) or name in _JUNK_FILES or name.endswith(_JUNK_SUFFIXES)


class _Budget:
    def __init__(self, origin: Path) -> None:
        self.origin, self.bytes, self.files = origin, 0, 0

    def take(self, name: str, size: int) -> None:
        self.bytes, self.files = self.bytes + size, self.files + 1
        if self.bytes > MAX_BYTES or self.files > MAX_FILES:
            raise InputError(
                f"the submission is over {MAX_BYTES >> 20} MiB or {MAX_FILES} files (at {name})",
                path=self.origin,
                fix="leave out what the program does not need at run time (data sets, virtual environments, models)",
            )


def _read_folder(top: Path) -> SubmissionFiles:
    files: dict[str, bytes] = {}
    left_out: list[str] = []
    budget = _Budget(top)
    for folder, folders, names in os.walk(top):
        relative = PurePosixPath(Path(folder).relative_to(top).as_posix())
        for name in list(folders):
            path = Path(folder, name)
            if name in _JUNK_FOLDERS or path.is_symlink() or (path / "pyvenv.cfg").exists():
                folders.remove(name)
                left_out.append(f"{relative / name}/")
        for name in sorted(names):
            path, key = Path(folder, name), str(relative / name) if str(relative) != "." else name
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or _junk(PurePosixPath(key).parts):
                left_out.append(key)
                continue
            budget.take(key, info.st_size)
            try:
                files[key] = path.read_bytes()
            except OSError as error:
                raise InputError(f"cannot read {key}: {error.strerror}", path=top) from None
    return SubmissionFiles(top, files, tuple(sorted(left_out)))


def _member_path(info: zipfile.ZipInfo, archive: Path) -> PurePosixPath:
    name = info.filename.replace("\\", "/")  # some Windows tools write backslashes
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise InputError(f"member {info.filename!r} would land outside the submission's folder", path=archive,
                         fix="re-create the archive from the submission's folder")  # fmt: skip
    return path


def _read_zip(archive: Path) -> SubmissionFiles:
    try:
        with zipfile.ZipFile(archive) as opened:
            members = [info for info in opened.infolist() if not info.is_dir()]
            kept: list[tuple[PurePosixPath, zipfile.ZipInfo]] = []
            left_out: list[str] = []
            for info in members:
                path = _member_path(info, archive)
                link = stat.S_ISLNK(info.external_attr >> 16)
                if link or _junk(path.parts) or not path.parts:
                    left_out.append(str(path))
                    continue
                if info.flag_bits & 0x1:
                    raise InputError(f"member {info.filename!r} is encrypted", path=archive,
                                     fix="re-create the archive without a password")  # fmt: skip
                kept.append((path, info))
            tops = {path.parts[0] for path, _ in kept}
            strip = len(tops) == 1 and all(len(path.parts) > 1 for path, _ in kept)
            budget, files = _Budget(archive), {}
            for path, info in kept:
                key = str(PurePosixPath(*path.parts[1:])) if strip else str(path)
                if key in files:
                    raise InputError(f"the archive holds {key} twice", path=archive)
                with opened.open(info) as member:
                    data = member.read(MAX_BYTES - budget.bytes + 1)  # never more than the limit, whatever it declares
                budget.take(key, len(data))
                files[key] = data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error) as error:
        raise InputError(f"a broken zip archive: {error}", path=archive, fix="re-create the archive") from None
    return SubmissionFiles(archive, files, tuple(sorted(left_out)))


@dataclass(frozen=True, slots=True)
class Program:
    """A team's program: its files, the entry and the working folder among them, its loop and requirements."""

    files: Mapping[str, bytes]
    entry: str
    workdir: str = ""
    loop: str | None = None  # the TrialLoop class the entry's run_evaluation call names
    requirements: tuple[str, ...] = ()  # the requirements file's lines, then the operator's
    requirements_file: str = ""
    origin: str = ""
    digest: str = ""
    left_out: tuple[str, ...] = ()

    @classmethod
    def of_file(cls, name: str, source: bytes, requirements: tuple[str, ...] = ()) -> Program:
        """A one-file program (as tests and single-file submissions have)."""
        files = SubmissionFiles(Path(name), {name: source})
        return cls(files.files, name, requirements=requirements, origin=name, digest=files.digest)

    @property
    def entry_from_workdir(self) -> str:
        """The entry's path from the working folder, as ``python ENTRY`` is typed there."""
        return posixpath.relpath(self.entry, self.workdir or ".")

    @property
    def size(self) -> int:
        """The bytes its files hold."""
        return sum(len(data) for data in self.files.values())


def load_program(
    path: Path, *, entry: str | None = None, workdir: str | None = None, requirements: tuple[str, ...] = ()
) -> Program:
    """Read a submission and settle its entry, working folder and requirements.

    ConfigError or InputError, with the fix, when they cannot be settled.
    """
    read = read_submission(path)
    chosen, loop = choose_entry(read.files, entry)
    folder = str(PurePosixPath(workdir)) if workdir not in (None, "", ".") else ""
    inside = not PurePosixPath(folder).is_absolute() and ".." not in PurePosixPath(folder).parts
    if folder and not (inside and any(name.startswith(folder + "/") for name in read.files)):
        raise ConfigError(
            f"--workdir {workdir} is not a folder of the submission {path}",
            fix="give a folder relative to the submission's top folder, or leave it out (the top)",
        )
    source, declared = declared_requirements(read.files, chosen)
    return Program(
        read.files, chosen, folder, loop, (*declared, *requirements), source, str(path), read.digest, read.left_out
    )
