"""What a run's root holds from the host: the same list for bubblewrap's chain and the fork-server's zygote.

Two views of the host, chosen per request (``RunRequest.host_paths``):

- **the whole layout** (``host_files``, the default; PCG's generation programs use numpy and other host packages):
  ``/usr`` read-only, and ``/bin``, ``/lib*`` as this host lays them out (links stay links);
- **the interpreter alone** (``interpreter_files``, dojo programs): the Python binary the argv names, its standard
  library and the shared libraries it and the library's extension modules load (as ``ldd`` resolves them), plus
  the host paths the request allows (a season's allow-list) — nothing else of ``/usr``. Every file a run can read
  is a file a later run could find in the page cache (a channel no namespace closes, docs/design/core.md); fewer
  files is also less for clean-room verification to evict (``readable_files``).

Both add two files of ``/etc`` that hold no secrets (the loader's cache and the Debian alternatives links some
``/usr/bin`` names go through) and a ``/dev`` of the five character devices programs use plus the ``fd`` links,
nothing else. No other ``/etc``, no ``/home``, ``/root`` or the repository. bubblewrap turns the entries into
arguments (``bubblewrap.py``); the judge sends them to each zygote, which builds its root from them
(``zygote.py``, which imports no podium code), so the two roots cannot drift apart.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

Kind = Literal["ro-bind", "ro-bind-try", "symlink", "dev-bind-try"]
Entry = tuple[Kind, str, str]  # (what, its source on the host or a link's target, where it appears in the run)

_TOP_FOLDERS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_STREAMS = ("stdin", "stdout", "stderr")


def host_files() -> list[Entry]:
    """The interpreter's files and the two ``/etc`` entries, as this host lays them out."""
    entries: list[Entry] = [("ro-bind", "/usr", "/usr")]
    for name in _TOP_FOLDERS:
        path = Path("/", name)
        if path.is_symlink():
            entries.append(("symlink", os.readlink(path), str(path)))
        elif path.is_dir():
            entries.append(("ro-bind", str(path), str(path)))
    entries += [("ro-bind-try", path, path) for path in _ETC_FILES]
    return entries


def devices() -> list[Entry]:
    """``/dev``'s entries, to go on an empty ``/dev`` (bubblewrap's own ``--dev`` adds devpts, tty, shm, ptmx)."""
    entries: list[Entry] = [("dev-bind-try", f"/dev/{device}", f"/dev/{device}") for device in _DEVICES]
    entries.append(("symlink", "/proc/self/fd", "/dev/fd"))
    entries += [("symlink", f"/proc/self/fd/{n}", f"/dev/{stream}") for n, stream in enumerate(_STREAMS)]
    return entries


@functools.lru_cache(maxsize=32)
def run_root(argv0: str, search_path: str, host_paths: tuple[str, ...] | None) -> tuple[Entry, ...]:
    """The host's part of a run's root: the whole layout, or the interpreter ``argv0`` names and ``host_paths``.

    Once per view and process: every run asks, and the host's layout does not change under a running judge.
    """
    if host_paths is None:
        return tuple(host_files())
    return interpreter_files(argv0, search_path, host_paths)


_STDLIB_QUERY = "import sysconfig; print(sysconfig.get_path('stdlib')); print(sysconfig.get_path('platstdlib'))"
_LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


@functools.lru_cache(maxsize=16)
def interpreter_files(argv0: str, search_path: str, host_paths: tuple[str, ...] = ()) -> tuple[Entry, ...]:
    """The Python interpreter ``argv0`` (looked up on ``search_path``) and what it needs, and ``host_paths``.

    Once per interpreter and allow-list: asking the interpreter for its library folders and ``ldd`` for its shared
    libraries takes a few hundred milliseconds. An interpreter that cannot be found gives only the links and
    ``/etc`` files: the run then fails as a missing program does.
    """
    entries: list[Entry] = [
        ("symlink", os.readlink(path), str(path))
        for path in (Path("/", name) for name in _TOP_FOLDERS)
        if path.is_symlink()
    ]
    entries += [("ro-bind-try", path, path) for path in _ETC_FILES]
    executable = shutil.which(argv0, path=search_path) if "/" not in argv0 else argv0
    if executable is not None and os.path.isfile(executable):
        folders = _library_folders(executable)
        entries += _file_entries(executable)
        entries += [("ro-bind", folder, folder) for folder in folders]
        for library in _shared_libraries(executable, folders):
            entries += _file_entries(library)
    entries += [("ro-bind-try", os.path.realpath(path), os.path.realpath(path)) for path in host_paths]
    return tuple(dict.fromkeys(entries))  # each once, in order


def readable_files(entries: Iterable[Entry], folders: Iterable[Path] = ()) -> Iterator[str]:
    """Every regular file a run's program can read through ``entries`` and the readable ``folders``."""
    sources = [source for kind, source, _ in entries if kind in ("ro-bind", "ro-bind-try")]
    for source in [*sources, *map(str, folders)]:
        if os.path.isfile(source):
            yield source
            continue
        for folder, _, names in os.walk(source):
            for name in names:
                path = os.path.join(folder, name)
                if stat.S_ISREG(os.lstat(path).st_mode):
                    yield path


def _library_folders(executable: str) -> list[str]:
    answer = subprocess.run(
        [executable, "-S", "-c", _STDLIB_QUERY], capture_output=True, text=True, timeout=30, check=False
    )
    return sorted({os.path.realpath(line) for line in answer.stdout.split() if os.path.isdir(line)})


def _shared_libraries(executable: str, folders: list[str]) -> list[str]:
    """What ``executable`` and the extension modules of ``folders`` load, as the loader finds them (``ldd``)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    binaries = [executable, *(str(module) for folder in folders for module in Path(folder).glob("lib-dynload/*.so"))]
    answer = subprocess.run([ldd, *binaries], capture_output=True, text=True, timeout=60, check=False)
    return sorted({match.group(1) for match in _LDD_LINE.finditer(answer.stdout) if os.path.isfile(match.group(1))})


def _file_entries(path: str) -> list[Entry]:
    """A file at its canonical folder, reached through the links on the way as links (``python3 → python3.11``)."""
    entries: list[Entry] = []
    here = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    for _ in range(16):  # the loader's limit on links is higher; a host with longer chains gets a bound copy
        if not os.path.islink(here):
            break
        target = os.readlink(here)
        entries.append(("symlink", target, here))
        resolved = os.path.join(os.path.dirname(here), target)
        here = os.path.join(os.path.realpath(os.path.dirname(resolved)), os.path.basename(resolved))
    entries.append(("ro-bind", os.path.realpath(here), here))
    return entries
