"""``make test-loaded``'s helper: busy processes beside a command for its whole run, stopped after, its status kept."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "with-busy-cpus.sh"
COUNT_BUSY = "ps -eo args | grep -c '[w]hile True: pass'"  # [w]: not this grep's own line


def test_the_busy_processes_run_beside_the_command_and_stop_after_it() -> None:
    before = int(subprocess.run(["bash", "-c", COUNT_BUSY], capture_output=True, text=True).stdout)
    done = subprocess.run(["bash", str(SCRIPT), "2", "bash", "-c", f"sleep 0.5; {COUNT_BUSY}; exit 3"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 3  # the command's own status
    assert int(done.stdout) == before + 2
    after = int(subprocess.run(["bash", "-c", f"sleep 0.3; {COUNT_BUSY}"], capture_output=True, text=True).stdout)
    assert after == before
