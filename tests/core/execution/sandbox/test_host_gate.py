"""The host gate: runs hold it shared at once; a run alone waits for them, and keeps new ones out until it ends."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from podium.core.execution.sandbox import host_gate


def hold_shared(folder: Path, seconds: float, entered: threading.Event, log: list[str], name: str) -> None:
    with host_gate.shared(folder):
        entered.set()
        log.append(f"{name} in")
        time.sleep(seconds)
        log.append(f"{name} out")


def test_a_run_alone_waits_for_the_runs_inside_and_keeps_new_ones_out(tmp_path: Path) -> None:
    log: list[str] = []
    first_in = threading.Event()
    first = threading.Thread(target=hold_shared, args=(tmp_path, 0.5, first_in, log, "first"))
    first.start()
    assert first_in.wait(10)
    late_in = threading.Event()
    late = threading.Thread(target=hold_shared, args=(tmp_path, 0.0, late_in, log, "late"))

    def start_late() -> None:
        time.sleep(0.2)  # the alone run is waiting by now
        late.start()

    threading.Thread(target=start_late).start()
    with host_gate.alone(tmp_path):
        log.append("alone in")
        time.sleep(0.3)
        assert not late_in.is_set()  # the turnstile holds a run that came while the alone run waited
        log.append("alone out")
    first.join()
    late.join()
    assert log == ["first in", "first out", "alone in", "alone out", "late in", "late out"]


def test_a_thread_alone_or_inside_already_passes_without_waiting_for_itself(tmp_path: Path) -> None:
    with host_gate.alone(tmp_path), host_gate.shared(tmp_path):  # its own run, while it holds the host
        pass
    with host_gate.alone(tmp_path), host_gate.alone(tmp_path):  # a verification run alone, judged again alone
        pass
    with host_gate.shared(tmp_path), host_gate.shared(tmp_path):  # a run that hands its request to another backend
        pass


def test_a_forked_child_does_not_keep_holding_the_gate(tmp_path: Path) -> None:
    import os

    with host_gate.shared(tmp_path):
        child = os.fork()
        if child == 0:  # a process pool's worker forked while a run held the gate: it lives on
            time.sleep(2)
            os._exit(0)
    try:
        started = time.monotonic()
        with host_gate.alone(tmp_path):
            assert time.monotonic() - started < 1.0  # not held by the child
    finally:
        os.waitpid(child, 0)
