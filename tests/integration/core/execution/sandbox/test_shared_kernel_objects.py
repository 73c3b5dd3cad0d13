"""What no namespace separates: file locks, file watches and the page cache of files every run reads.

Two runs at the same time in two slots share the host kernel's lock table, its inotify events and its page cache
for the read-only ``/usr`` both see. The dojo's runs get the solver profile of the filter
(``FilterProfile.SOLVER``), which refuses every call that reaches those objects. Each channel here is a writer and
a reader that run at the same time: on the host as plain processes (the channel is real: the reader decodes the
word) and as two concurrent sandbox runs under the solver profile (the calls are refused, the reader gets
nothing). Under the standard profile the lock channel still passes, which shows the test can fail. The positive
controls tolerate what other processes on the host add (another test run opening and locking the same standard
library files): the writer's word must all be there, extra bits or symbols may be too. Every refusal, argument by
argument, is also checked on its own. Timing reads of the page cache need no call to refuse, and are not closed
here (``docs/design/core.md``, "What the kernel shares").
"""

from __future__ import annotations

import concurrent.futures
import math
import subprocess
import time
import uuid

import pytest

from podium.core.execution.sandbox import FilterProfile, Limits, RunRequest, RunResult, RunStatus, Sandbox, seccomp
from tests.integration.core.execution.sandbox.test_isolation import CALL

PYTHON = ("python3", "-s", "-S", "-B", "solver.py")
HOST_PYTHON = "/usr/bin/python3"  # the interpreter a run has, so host and sandbox read the same stdlib files
LIMITS = Limits(cpu_time_s=5.0, wall_time_s=15.0)
WORD_BITS = 24

FILES = f"""
import os, sys
HOME = os.path.dirname(os.__file__)
FILES = sorted(os.path.join(HOME, n) for n in os.listdir(HOME)  # one file each: a link would share its target's
               if n.endswith('.py') and not os.path.islink(os.path.join(HOME, n)))[:{WORD_BITS}]
"""

FLOCK_WRITER = (
    FILES
    + """
import fcntl, time
word = int(sys.argv[1], 16)
held = []
try:
    for bit, path in enumerate(FILES):
        if word >> bit & 1:
            handle = open(path, 'rb')
            fcntl.flock(handle, fcntl.LOCK_SH)
            held.append(handle)
    print('parked', flush=True)
except OSError as error:
    print('refused', error.errno, flush=True)
time.sleep(float(sys.argv[2]))
"""
)

FLOCK_READER = (
    FILES
    + """
import fcntl, time
def held(path):
    with open(path, 'rb') as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
        except BlockingIOError:
            return True
try:
    deadline = time.monotonic() + float(sys.argv[1])
    while not held(FILES[0]) and time.monotonic() < deadline:  # bit 0 is always set: the writer has begun
        time.sleep(0.05)
    time.sleep(0.3)  # the writer takes its few locks in a loop of microseconds
    print('found', format(sum(1 << bit for bit, path in enumerate(FILES) if held(path)), 'x'))
except OSError as error:
    print('refused', error.errno)
"""
)

INOTIFY_READER = (
    FILES
    + """
import ctypes, struct, time, select
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0o4000)  # IN_NONBLOCK
if fd < 0:
    print('refused', ctypes.get_errno())
    raise SystemExit
libc.inotify_add_watch(fd, os.path.dirname(FILES[0]).encode(), 0x20)  # IN_OPEN
print('watching', flush=True)
names, deadline = [], time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    if select.select([fd], [], [], 0.1)[0]:
        data = os.read(fd, 65536)
        while data:
            _, _, _, size = struct.unpack('iIII', data[:16])
            names.append(data[16:16 + size].rstrip(b'\\0').decode())
            data = data[16 + size:]
index = {os.path.basename(path): n for n, path in enumerate(FILES[:16])}
print('found', ''.join(format(index[n], 'x') for n in names if n in index))
"""
)

INOTIFY_WRITER = (
    FILES
    + """
import time
time.sleep(float(sys.argv[2]))
for digit in sys.argv[1]:
    open(FILES[int(digit, 16)], 'rb').close()
    time.sleep(0.02)
print('parked')
"""
)


def host(source: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([HOST_PYTHON, "-s", "-S", "-B", "-c", source, *args], stdout=subprocess.PIPE, text=True)


def boxed(sandbox: Sandbox, source: str, profile: FilterProfile, *args: str) -> RunResult:
    request = RunRequest((*PYTHON, *args), {"solver.py": source.encode()}, limits=LIMITS, profile=profile)
    return sandbox.run(request)


def pair_on_host(writer: tuple[str, ...], reader: tuple[str, ...]) -> tuple[str, str]:
    first, second = host(*writer), host(*reader)
    return first.communicate(timeout=30)[0].strip(), second.communicate(timeout=30)[0].strip()


def pair_in_sandbox(
    sandbox: Sandbox, profile: FilterProfile, writer: tuple[str, ...], reader: tuple[str, ...]
) -> tuple[RunResult, RunResult]:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two slots at once
        wrote = pool.submit(boxed, sandbox, writer[0], profile, *writer[1:])
        read = pool.submit(boxed, sandbox, reader[0], profile, *reader[1:])
        return wrote.result(), read.result()


def carries(word: str, found: str) -> bool:
    """Whether the reader found every bit of ``word``: other processes on the host (another test run) may lock
    some of the same files too, which adds bits but never takes the writer's away."""
    said = found.strip()
    return said.startswith("found ") and int(word, 16) & ~int(said.removeprefix("found "), 16) == 0


def in_order(message: str, seen: str) -> bool:
    """Whether ``message`` occurs in ``seen`` in order: other processes' opens may come between, never remove ours."""
    rest = iter(seen)
    return all(symbol in rest for symbol in message)


def a_word() -> str:
    return format(uuid.uuid4().int & ((1 << WORD_BITS) - 1) | 1, "x")


def test_file_locks_pass_a_word_on_the_host_and_under_the_standard_filter(sandbox: Sandbox) -> None:
    word = a_word()
    parked, found = pair_on_host((FLOCK_WRITER, word, "6"), (FLOCK_READER, "5"))
    assert parked == "parked" and carries(word, found), (parked, found)
    wrote, read = pair_in_sandbox(sandbox, FilterProfile.STANDARD, (FLOCK_WRITER, word, "6"), (FLOCK_READER, "5"))
    assert wrote.stdout.strip() == b"parked" and carries(word, read.stdout.decode()), (wrote, read)


def test_file_locks_pass_nothing_between_solver_runs(sandbox: Sandbox) -> None:
    wrote, read = pair_in_sandbox(sandbox, FilterProfile.SOLVER, (FLOCK_WRITER, a_word(), "6"), (FLOCK_READER, "5"))
    assert wrote.status is RunStatus.OK and read.status is RunStatus.OK, (wrote, read)
    assert wrote.stdout.startswith(b"refused 1") and read.stdout.startswith(b"refused 1"), (wrote, read)  # EPERM


def test_file_watches_pass_a_message_on_the_host_but_not_between_solver_runs(sandbox: Sandbox) -> None:
    message = uuid.uuid4().hex[:12]
    reader = host(INOTIFY_READER, "4")
    assert reader.stdout is not None and reader.stdout.readline().strip() == "watching"
    host(INOTIFY_WRITER, message, "0").wait(timeout=30)
    found = reader.communicate(timeout=30)[0].strip()
    assert found.startswith("found ") and in_order(message, found.removeprefix("found ")), found
    wrote, read = pair_in_sandbox(
        sandbox, FilterProfile.SOLVER, (INOTIFY_WRITER, message, "1.5"), (INOTIFY_READER, "4")
    )
    assert wrote.status is RunStatus.OK and wrote.stdout.strip() == b"parked", wrote
    assert read.status is RunStatus.OK and read.stdout.startswith(b"refused 1"), read


REFUSALS = (
    CALL
    + """
import mmap, os
fd = os.open(os.__file__, os.O_RDONLY)
buffer = ctypes.create_string_buffer(4096)
iov = (ctypes.c_void_p * 2)(ctypes.cast(buffer, ctypes.c_void_p), 4096)
page = mmap.mmap(-1, 4096)
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
for name, number in OUTRIGHT.items():
    print(name, call(number, 0, 0, 0, 0, 0, 0))
for name, command in LOCKS.items():
    print('fcntl', name, call(FCNTL, fd, command, 0))
print('fcntl F_GETFD', call(FCNTL, fd, 1, 0))
for name, advice in ADVICE.items():
    print('madvise', name, call(MADVISE, address, 4096, advice))
print('madvise MADV_DONTNEED', call(MADVISE, address, 4096, 4))
for name, number in RW.items():
    print(name, 'RWF_NOWAIT', call(number, fd, ctypes.addressof(iov), 1, 0, 0, 8))
    print(name, 'no flags', call(number, fd, ctypes.addressof(iov), 1, 0, 0, 0))
"""
)


@pytest.mark.parametrize("profile", list(FilterProfile))
def test_the_solver_profile_refuses_each_call_that_reaches_shared_kernel_objects(
    sandbox: Sandbox, profile: FilterProfile
) -> None:
    outright = [call for denial in seccomp.SOLVER_DENIED for call in denial.calls]
    numbers = {name: number for name in outright if (number := seccomp.syscall_number(name)) is not None}
    rw = {name: seccomp.syscall_number(name) for name in seccomp.RW_FLAG_CALLS}
    program = (
        f"OUTRIGHT = {numbers!r}\nLOCKS = {seccomp.LOCK_COMMANDS!r}\nADVICE = {seccomp.PAGE_CACHE_ADVICE!r}\n"
        f"RW = {rw!r}\nFCNTL, MADVISE = {seccomp.syscall_number('fcntl')}, {seccomp.syscall_number('madvise')}\n"
        f"{REFUSALS}"
    )
    result = boxed(sandbox, program, profile)
    assert result.status is RunStatus.OK, result
    answers = dict(line.rsplit(" ", 1) for line in result.stdout.decode().splitlines())
    refused = {what for what, answer in answers.items() if answer == "EPERM"}
    limited = {*numbers, *(f"fcntl {n}" for n in seccomp.LOCK_COMMANDS)}
    limited |= {*(f"madvise {n}" for n in seccomp.PAGE_CACHE_ADVICE), *(f"{n} RWF_NOWAIT" for n in rw)}
    if profile is FilterProfile.SOLVER:
        assert refused == limited, sorted(refused ^ limited)
    else:
        assert not refused & limited, sorted(refused & limited)  # the kernel answers these under the standard one
    for harmless in ("fcntl F_GETFD", "madvise MADV_DONTNEED", "preadv2 no flags"):
        assert answers[harmless] == "OK", (harmless, answers[harmless])
    assert answers["pwritev2 no flags"] == "EBADF"  # the kernel's answer (a read-only file), not the filter's


def test_a_solver_run_still_does_what_solvers_do(sandbox: Sandbox) -> None:
    source = (
        "import threading, os, math, fractions, itertools, functools, decimal, random\n"
        "found = []\nthread = threading.Thread(target=lambda: found.append(math.factorial(50)))\n"
        "thread.start(); thread.join()\nprint(found[0] % 997, len(os.urandom(8)), random.Random(1).randint(1, 9))\n"
        "print(sum(itertools.islice(itertools.count(), 10)), decimal.Decimal(1) / 7 > 0)\n"
    )
    started = time.monotonic()
    result = boxed(sandbox, source, FilterProfile.SOLVER)
    assert result.status is RunStatus.OK, result
    assert result.stdout.decode().split() == [str(math.factorial(50) % 997), "8", "3", "45", "True"], result
    assert time.monotonic() - started < 10
