"""Python packages for the interpreter the sandbox runs, installed outside it into a folder it may read.

The installer is the judge's own pip, run as ``pip --python /usr/bin/python3 install --target DIR``: pip then
evaluates markers and picks wheels for the interpreter inside the sandbox (its version and ABI), not the judge's,
and it reads the operator's pip configuration (index, certificates, proxy) as any pip on the machine would.
Wheels only (``--only-binary=:all:``): nobody's build script runs on the judge. Publishing the folder for the
sandbox to read is ``readable.py``'s; deciding what to install is the caller's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import DependencyError, PodiumError
from podium.core.execution.sandbox.records import BASE_ENV

INSTALL_TIMEOUT_S = 900.0
_ERROR_LINES = 6


class InstallError(PodiumError):
    """The packages cannot be installed; the message names the one pip could not find, when it says."""


@dataclass(frozen=True, slots=True)
class InstallOptions:
    """Where wheels come from: the configured index (unless ``no_index``) and local wheelhouses."""

    find_links: tuple[Path, ...] = ()
    no_index: bool = False


def sandbox_python() -> str:
    """The interpreter the sandbox runs as ``python3`` (its PATH is the base environment's)."""
    found = shutil.which("python3", path=BASE_ENV["PATH"])
    if found is None:
        raise DependencyError("no python3 in /usr/bin for the sandbox", fix="apt-get install python3")
    return found


def python_identity(python: str) -> str:
    """``3.11.2 cpython-311-x86_64-linux-gnu``: the version and ABI that decide which wheels fit."""
    code = "import sys, sysconfig; print('%d.%d.%d' % sys.version_info[:3], sysconfig.get_config_var('SOABI'))"
    try:
        done = subprocess.run([python, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        raise DependencyError(f"{python} does not run: {error}", fix="apt-get install --reinstall python3") from None
    return done.stdout.strip()


def install(python: str, specs: Sequence[str], options: InstallOptions, target: Path, fix: str) -> list[str]:
    """Install ``specs`` and their dependencies into ``target``; ``name==version`` of each, or InstallError."""
    argv = [sys.executable, "-m", "pip", "--python", python, "install", "--target", str(target),
            "--only-binary=:all:", "--no-compile", "--no-input", "--disable-pip-version-check",
            "--no-warn-script-location", "--progress-bar=off", "--root-user-action=ignore"]  # fmt: skip
    if options.no_index:
        argv.append("--no-index")
    for folder in options.find_links:
        argv += ["--find-links", str(folder)]
    try:
        done = subprocess.run([*argv, "--", *specs], capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise InstallError(f"installing {', '.join(specs)} took over {INSTALL_TIMEOUT_S:g} s", fix=fix) from None
    if done.returncode != 0:
        raise InstallError(_why_not(specs, done.stderr), fix=fix)
    return sorted(_distributions(target))


def _why_not(specs: Sequence[str], stderr: str) -> str:
    errors = [line.removeprefix("ERROR: ").strip() for line in stderr.splitlines() if line.startswith("ERROR:")]
    missing = re.search(r"No matching distribution found for (\S+)", stderr)
    named = missing.group(1) if missing else ", ".join(specs)
    detail = " / ".join(errors[-_ERROR_LINES:]) or stderr.strip()[-600:]
    return f"requirement {named} cannot be installed: {detail}"


def _distributions(target: Path) -> list[str]:
    found = []
    for info in target.glob("*.dist-info"):
        headers = (info / "METADATA").read_text("utf-8", "replace").split("\n\n", 1)[0]  # the body may say anything
        fields = dict(line.split(": ", 1) for line in headers.splitlines() if ": " in line)
        found.append(f"{fields.get('Name', info.name)}=={fields.get('Version', '?')}")
    return found
