"""The install scripts wait for the package manager's lock instead of failing at once.

A fresh clone's ``make test`` stopped on a dpkg lock another install held. ``scripts/apt-wait.sh`` passes apt its
own lock timeout and tries ``apt-get update`` again while it fails; here a stand-in ``apt-get`` on ``PATH`` fails
twice as a held lock would, then succeeds.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "apt-wait.sh"


def stand_in(folder: Path, failures: int) -> Path:
    """An ``apt-get`` that logs its arguments and fails its first ``failures`` calls."""
    program = folder / "apt-get"
    program.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {folder}/calls\n'
        f"n=$(wc -l < {folder}/calls)\n"
        f'[ "$n" -gt {failures} ] || {{ echo "E: Could not get lock /var/lib/apt/lists/lock" >&2; exit 100; }}\n'
    )
    program.chmod(0o755)
    return program


def apt_update(folder: Path, wait_s: int) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PATH": f"{folder}:{os.environ['PATH']}", "APT_LOCK_WAIT_S": str(wait_s), "APT_RETRY_S": "0"}
    return subprocess.run(["bash", "-c", f". {SCRIPT} && apt_update"], env=env, capture_output=True, text=True)


def test_update_is_tried_again_while_a_lock_is_held_and_apt_waits_for_dpkgs(tmp_path: Path) -> None:
    stand_in(tmp_path, failures=2)
    done = apt_update(tmp_path, wait_s=60)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["-o DPkg::Lock::Timeout=60 update -q"] * 3
    assert done.stderr.count("trying again in 0 s") == 2


def test_it_gives_up_after_the_wait_and_says_why(tmp_path: Path) -> None:
    stand_in(tmp_path, failures=1000)
    done = apt_update(tmp_path, wait_s=0)
    assert done.returncode == 1 and "is another install still running?" in done.stderr
