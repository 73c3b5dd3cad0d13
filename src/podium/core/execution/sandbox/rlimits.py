"""The weaker backend: a plain child process with rlimits, a process-group kill, the capped reader, a cleared env.

It does not isolate: the program sees the host's files and network with the rights of its uid. As root it runs
as a slot's own uid (so ``RLIMIT_NPROC`` holds and the tree can be found and killed by uid); otherwise as the
judge's own user. It exists for hosts where bubblewrap cannot run, only when the operator asks for it, and every
result says ``isolated=False``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from podium.core.execution.sandbox import host_gate
from podium.core.execution.sandbox.channel import serving
from podium.core.execution.sandbox.records import RunRequest, RunResult
from podium.core.execution.sandbox.registry import RegisteredRun, RunRegistry, start_sweeper
from podium.core.execution.sandbox.supervise import (
    RlimitValues,
    Slot,
    address_space_mib,
    become_subreaper,
    box_after,
    box_directory,
    can_switch_uid,
    capture_run,
    conclude,
    internal_result,
    judge_peak_kib,
    new_box_path,
    program_peak_kib,
    rlimit_args,
    slot_pool,
    sweep_uid,
    uid_switch_args,
    util_linux_tools,
)
from podium.core.execution.sandbox.verdict import Stop


class RlimitsSandbox:
    """Runs programs as plain child processes under rlimits; not isolated."""

    name = "rlimits"
    isolated = False

    def __init__(self) -> None:
        self._tools = util_linux_tools()
        self._pool = slot_pool(False)
        become_subreaper()
        self._registry = RunRegistry()
        start_sweeper(self._registry)  # the runs of workers that died on this host, now and every few seconds

    def run(self, request: RunRequest) -> RunResult:
        """Run one program as a child process under rlimits."""
        try:
            with host_gate.shared(), self._pool.slot() as slot:
                uid, path = (slot.uid if can_switch_uid() else None), new_box_path()
                with (
                    self._registry.run(uid, path, ()) as registered,
                    box_directory(request.files, path, group=uid, writable=request.writable) as box,
                    serving(request.channel) as channel_fd,
                ):
                    return self._run(slot, box, request, registered, channel_fd)
        except OSError as error:
            return internal_result(self.name, self.isolated, f"sandbox failure: {error}")

    def _run(
        self, slot: Slot, box: Path, request: RunRequest, registered: RegisteredRun, channel_fd: int | None
    ) -> RunResult:
        limits, switch = request.limits, can_switch_uid()
        # without a uid of its own, our uid runs other processes too: no NPROC rather than a wrong one (and no
        # raised one either, which a user's hard limit refuses: prlimit then fails before the program starts)
        processes = limits.processes if switch else None
        rlimits = RlimitValues.of(
            limits.cpu_time_s, address_space_mib(limits, cgroup=False), limits.file_size_mib, processes
        )
        chain = uid_switch_args(self._tools, slot.uid) if switch else []
        argv = [*chain, *rlimit_args(self._tools.prlimit, rlimits), *request.argv]
        started, inherited_kib = time.monotonic(), judge_peak_kib()
        # from the slot's thread, in a fresh session keyring: not the judge's, not the previous run's (spawn.py)
        spawned = slot.spawner.start(
            lambda: subprocess.Popen(
                argv,
                cwd=box / request.workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=request.environment_with(channel_fd),
                pass_fds=() if channel_fd is None else (channel_fd,),
                start_new_session=True,  # its own process group, so one killpg reaches the tree (unless it setsids)
            )
        )
        with spawned as proc:
            if request.channel is not None:
                request.channel.spawned()
            assert proc.stdout is not None and proc.stderr is not None
            registered.add_pid(proc.pid)  # the uid and the folder were registered before it started
            captured = capture_run(proc.stdout.fileno(), proc.stderr.fileno(), request, box)
            if captured.stop is not Stop.EXITED:
                _kill_group(proc.pid)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            _kill_group(proc.pid)
            if switch:
                sweep_uid(slot.uid)  # whatever left the group (setsid) still has the slot's uid
            written = box_after(captured, request, box)  # nothing of the run is left to change it
        return conclude(
            captured,
            proc.returncode,
            request,
            cpu_time_s=usage.ru_utime + usage.ru_stime,
            peak_kib=program_peak_kib(usage.ru_maxrss, inherited_kib),
            oom_kills=0,
            memory_limit_reached=False,
            wall_time_s=time.monotonic() - started,
            backend=self.name,
            isolated=False,
            shell_status=False,  # our own child: its wait status is exact
            box=written,
        )


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
