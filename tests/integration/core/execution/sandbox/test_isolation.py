"""No run of untrusted code can pass data to the next: every channel in ``sandbox_attacks/`` is a real attack that
works between plain processes on the host, and finds nothing between two sandboxed runs of one slot.

The keyring attack also looks for a secret the judge holds: the test first plants it in the session keyring of the
thread that runs the sandbox and reads it back itself, so the test cannot pass on a host whose judge has no
session keyring (a judge started by ``su -``, ``runuser`` or a systemd service has one).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from podium.core.execution.sandbox import RunRequest, RunResult, RunStatus, Sandbox, seccomp
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox
from podium.core.execution.sandbox.forkserver import ZYGOTE_MARK, ForkServerSandbox
from podium.core.execution.sandbox.spawn import Spawner
from podium.core.execution.sandbox.supervise import MAX_SLOTS, Slot, SlotPool, can_switch_uid, is_slot_uid
from tests.processes import is_live, processes_with

ATTACKS = Path(__file__).parents[4] / "core" / "sandbox_attacks"  # tests/core/sandbox_attacks
CHANNELS = sorted(folder.name for folder in ATTACKS.iterdir() if (folder / "writer.py").is_file())
# Channels the sandbox closes before its namespaces come into it: the writer itself is refused, so for these the
# pair shows the refusal, not a fresh namespace (no /dev/shm at all; the filter refuses add_key and keyctl)
REFUSED_IN_SANDBOX = {"dev_shm", "keyring"}
# not -P: the attacks import their sibling helper modules from the working directory
PYTHON = ("python3", "-s", "-S", "-B")


def _files(channel: str) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in (ATTACKS / channel).glob("*.py")}


def _on_host(channel: str, program: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-s", "-S", "-B", program, *args],
        cwd=ATTACKS / channel,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _in_sandbox(
    sandbox: BubblewrapSandbox, channel: str, program: str, token: str, readable: Path | None = None
) -> RunResult:
    """One run of ``program``: the dojo's shape, or with ``readable`` PCG's (a writable box and a read-only folder)."""
    if readable is None:
        return sandbox.run(RunRequest((*PYTHON, program, token), _files(channel)))
    return sandbox.run(RunRequest((*PYTHON, program, token), _files(channel), writable=True, readable=(readable,)))


@contextlib.contextmanager
def _slots_used(sandbox: Sandbox) -> Iterator[list[tuple[int, int | None]]]:
    """Record each run's slot (by its uid, which no other slot of any pool has) and on the fork-server its zygote."""
    used: list[tuple[int, int | None]] = []
    pools = {sandbox._pool: getattr(sandbox, "_zygotes", {})}  # type: ignore[attr-defined]
    if isinstance(sandbox, ForkServerSandbox):
        pools[sandbox._fallback._pool] = {}  # what it hands to bubblewrap runs in slots of their own

    def recording(pool: SlotPool, zygotes: dict[int, Any]) -> Callable[[], Iterator[Slot]]:
        original = pool.slot

        @contextlib.contextmanager
        def slot() -> Iterator[Slot]:
            with original() as taken:
                yield taken
                zygote = zygotes.get(taken.index)  # the slot's zygote is back in its place by now
                used.append((taken.uid, zygote.proc.pid if zygote is not None else None))  # uids: one per slot

        return slot

    for pool, zygotes in pools.items():
        pool.slot = recording(pool, zygotes)  # type: ignore[method-assign]
    try:
        yield used
    finally:
        for pool in pools:
            del pool.slot  # type: ignore[attr-defined]


def _keys() -> ModuleType:
    spec = importlib.util.spec_from_file_location("podium_attack_keys", ATTACKS / "keyring" / "keys.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def judge_secret() -> Iterator[str]:
    """A token whose secret sits in this thread's own session keyring, read back before the test relies on it."""
    keys, token = _keys(), uuid.uuid4().hex
    joined = keys.libc.syscall(keys.KEYCTL, 1, f"podium-test-{token}".encode(), 0, 0, 0)  # JOIN_SESSION_KEYRING
    if joined < 0:
        pytest.skip(f"this host gives no session keyring (errno {ctypes.get_errno()})")
    planted = keys.add(f"podium-judge-secret-{token}", f"operator secret {token}", keys.KEYRINGS["session"])
    assert isinstance(planted, int), planted
    hit, _ = keys.find(f"podium-judge-secret-{token}", keys.KEYRINGS["session"])
    assert hit is not None and hit[1] == f"operator secret {token}"  # the judge itself holds the secret
    yield token
    with contextlib.suppress(Exception):
        keys.unlink(planted, keys.KEYRINGS["session"])


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_channel_works_between_plain_processes(channel: str, judge_secret: str) -> None:
    token = judge_secret
    parked = _on_host(channel, "writer.py", token)
    assert parked.startswith("parked"), parked
    found = _on_host(channel, "reader.py", token, "--unlink")
    assert found.startswith("found"), found  # a real channel: what one process parks, the next reads


@pytest.mark.parametrize("shape", ["read-only box", "writable box and a readable folder"])
@pytest.mark.parametrize("channel", CHANNELS)
def test_nothing_passes_from_one_sandboxed_run_to_the_next(
    channel: str, shape: str, judge_secret: str, sandbox: BubblewrapSandbox, world_readable: Path
) -> None:
    token, readable = judge_secret, (None if shape == "read-only box" else world_readable)
    # one thread, one run at a time: the pool hands the slot the writer used straight back to the reader
    with _slots_used(sandbox) as slots:
        writer = _in_sandbox(sandbox, channel, "writer.py", token, readable)
        reader = _in_sandbox(sandbox, channel, "reader.py", token, readable)
    assert writer.status is RunStatus.OK and reader.status is RunStatus.OK, (writer, reader)
    parked = writer.stdout.decode().strip()
    if channel in REFUSED_IN_SANDBOX:  # every way in is refused: "refused", or "parked" with each "name:" refused
        assert parked.startswith("refused") or parked.count(":") == parked.count(":refused") > 0, parked
    else:  # the writer reached its channel: what keeps it from the reader is the fresh state of the next run
        assert parked.startswith("parked") and "refused" not in parked, parked
    assert len(slots) == 2 and slots[0] == slots[1], slots  # one slot (and on the fork-server, one zygote)
    assert writer.backend == reader.backend, (writer.backend, reader.backend)
    found = reader.stdout.decode().strip()
    assert found.startswith("nothing"), (writer.stdout, found)


def test_the_judges_secret_is_out_of_reach_of_a_run(judge_secret: str, sandbox: BubblewrapSandbox) -> None:
    result = _in_sandbox(sandbox, "keyring", "reader.py", judge_secret)
    assert result.status is RunStatus.OK, result
    assert judge_secret.encode() not in result.stdout and result.stdout.startswith(b"nothing"), result.stdout


# Each call made with all-zero arguments: the filter answers before the kernel looks at them, where the kernel
# itself would mostly say EFAULT or EINVAL (or succeed: unshare(0), ptrace(PTRACE_TRACEME), kcmp, personality(0)).
CALL = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(number, *args):
    ctypes.set_errno(0)
    result = libc.syscall(number, *(ctypes.c_long(a) for a in args))
    return errno.errorcode.get(ctypes.get_errno(), 'OK') if result < 0 else 'OK'
"""
"""A program's ``call(number, *args)``: a system call by number, answered as its errno's name or ``OK``."""
SYSCALLS = (
    CALL
    + """
import os, socket, subprocess, sys, threading
for name, number in NUMBERS.items():
    print(name, call(number, 0, 0, 0, 0, 0, 0))
print('personality-query', call(NUMBERS['personality'], 0xFFFFFFFF))
for flag in FLAGS:
    print('clone', hex(flag), call(CLONE, flag | 17, 0, 0, 0, 0))
for family in (socket.AF_NETLINK, socket.AF_PACKET, 40, 38, 1 << 32 | socket.AF_NETLINK):
    print('socket', family, call(SOCKET, family, socket.SOCK_DGRAM, 0))
for request in (0x5412, 0x541C, 1 << 32 | 0x5412):
    print('ioctl', hex(request), call(IOCTL, 1, request, 0))
print('seccomp', open('/proc/self/status').read().split('Seccomp:')[1].split()[0])
socket.socket(socket.AF_UNIX).close(); socket.socket(socket.AF_INET6).close()
thread = threading.Thread(target=print, args=('thread', 'OK')); thread.start(); thread.join()
print('child', subprocess.run(['true']).returncode + os.waitpid(os.fork() or os._exit(3), 0)[1] >> 8)
"""
)


def test_the_system_call_filter_refuses_what_no_judged_program_needs(sandbox: BubblewrapSandbox) -> None:
    numbers = {name: number for name in [*seccomp.denied_calls(), "clone3"] if (number := seccomp.syscall_number(name))}
    program = (
        f"NUMBERS = {numbers!r}\nFLAGS = {sorted(seccomp.CLONE_NAMESPACE_FLAGS.values())!r}\n"
        f"CLONE, SOCKET, IOCTL = {seccomp.syscall_number('clone')}, {seccomp.syscall_number('socket')}, "
        f"{seccomp.syscall_number('ioctl')}\n{SYSCALLS}"
    )
    result = sandbox.run(RunRequest(("python3", "-S", "solver.py"), {"solver.py": program.encode()}))
    assert result.status is RunStatus.OK, result
    answers = dict(line.rsplit(" ", 1) for line in result.stdout.decode().splitlines())
    for name in numbers:
        assert answers[name] == ("ENOSYS" if name == "clone3" else "EPERM"), (name, answers[name])
    assert answers["personality-query"] == "OK"  # asking for the persona is harmless, and some programs do
    assert {v for k, v in answers.items() if k.startswith("clone ")} == {"EPERM"}, answers
    assert {v for k, v in answers.items() if k.startswith("socket ")} == {"EAFNOSUPPORT"}, answers
    assert {v for k, v in answers.items() if k.startswith("ioctl ")} == {"EPERM"}, answers  # not ENOTTY
    assert answers["seccomp"] == "2"  # /proc/self/status: a filter is loaded
    assert answers["thread"] == "OK" and answers["child"] == "3", answers  # threads, subprocess and fork work


UNKNOWN_CALLS = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for number in NUMBERS:
    ctypes.set_errno(0)
    result = libc.syscall(number, 0, 0, 0, 0, 0, 0)
    print(number, errno.errorcode.get(ctypes.get_errno(), 'OK') if result < 0 else 'OK')
"""


def test_the_filter_refuses_by_number_the_calls_libseccomp_cannot_name(sandbox: BubblewrapSandbox) -> None:
    numbers = list(seccomp.unknown_numbers())[:32]  # the kernel's newest calls sit right above the known ones
    program = f"NUMBERS = {numbers!r}\n{UNKNOWN_CALLS}".encode()
    on_host = subprocess.run([sys.executable, "-S", "-c", program], capture_output=True, text=True, check=True)
    host = dict(line.split() for line in on_host.stdout.splitlines())
    newer = [number for number in numbers if host[str(number)] != "ENOSYS"]
    if not newer:
        pytest.skip(f"this kernel has no system call above {seccomp.highest_known_number()}, the highest known here")
    result = sandbox.run(RunRequest(("python3", "-S", "solver.py"), {"solver.py": program}))
    assert result.status is RunStatus.OK, result
    answers = dict(line.split() for line in result.stdout.decode().splitlines())
    named = {seccomp.syscall_number(call) for call in seccomp.denied_calls()}
    for number in newer:  # calls this kernel has and libseccomp cannot name: the filter answers, not the kernel
        assert answers[str(number)] == ("EPERM" if number in named else "ENOSYS"), (number, host[str(number)])


def _memory_holds(pid: int, needle: bytes) -> bool:
    """Whether any readable page of process ``pid`` holds ``needle`` (read as root, through ``/proc``).

    A process that ends before or during the scan (a zygote replaced meanwhile) holds nothing any more.
    """
    try:
        return _pages_hold(pid, needle)
    except (FileNotFoundError, ProcessLookupError):
        return False


def _pages_hold(pid: int, needle: bytes) -> bool:
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as memory:
        for line in maps:
            addresses, permissions = line.split()[:2]
            if "r" not in permissions or line.rstrip().endswith(("[vvar]", "[vsyscall]")):
                continue
            start, end = (int(address, 16) for address in addresses.split("-"))
            with contextlib.suppress(OSError, OverflowError, ValueError):
                memory.seek(start)
                if needle in memory.read(end - start):
                    return True
    return False


def _slot_processes() -> list[int]:
    """The live processes running as a slot's uid: a sandboxed run's, and tests run one at a time."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            if entry.name.isdigit() and is_live(int(entry.name)) and is_slot_uid(entry.stat().st_uid):
                found.append(int(entry.name))
    return found


def _scan_while_running(sandbox: BubblewrapSandbox, source: str, needle: bytes) -> bool:
    """Run ``source`` (which sleeps a while) and say whether its processes' memory held ``needle``."""
    request = RunRequest(("python3", "-s", "-S", "-P", "-B", "solver.py"), {"solver.py": source.encode()})
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(sandbox.run, request)
        deadline = time.monotonic() + 10
        while not (processes := _slot_processes()) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # past the program's start: its source is compiled by now
        held = any(_memory_holds(pid, needle) for pid in _slot_processes() or processes)
        assert running.result().status is RunStatus.OK
    return held


@pytest.mark.skipif(not can_switch_uid(), reason="only root runs programs as slot uids and reads their memory")
def test_no_run_holds_the_previous_runs_source_in_its_memory(sandbox: BubblewrapSandbox) -> None:
    token = f"podium-previous-run-{uuid.uuid4().hex}"
    sleeper = "import time\nprint('ready', flush=True)\ntime.sleep(1.5)\n"
    # the scan is real: it finds the token in the memory of the run whose source holds it
    assert _scan_while_running(sandbox, f"SECRET = {token!r}\n{sleeper}", token.encode())
    # the next run of the same slot (the same zygote, on the fork-server) holds nothing of it
    assert not _scan_while_running(sandbox, sleeper, token.encode())
    zygotes = [pid for pid in processes_with(ZYGOTE_MARK) if pid != os.getpid()]
    assert zygotes or not isinstance(sandbox, ForkServerSandbox)
    assert not any(_memory_holds(pid, token.encode()) for pid in zygotes)  # nor ever did the zygote


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x32 ABI exists on x86_64 only")
def test_a_call_through_another_abi_kills_the_program(sandbox: BubblewrapSandbox) -> None:
    # keyctl under its x32 number (the x32 bit set) would dodge a filter that compared numbers only
    program = f"import ctypes\nctypes.CDLL(None).syscall({0x40000000 | 250}, 0, -3, 0)\nprint('survived')\n"
    result = sandbox.run(RunRequest(("python3", "-S", "solver.py"), {"solver.py": program.encode()}))
    assert result.status is RunStatus.RUNTIME_ERROR and b"survived" not in result.stdout, result


def test_a_spawner_starts_each_run_in_a_fresh_keyring_and_leaves_the_callers_alone(judge_secret: str) -> None:
    keys, reader = _keys(), ATTACKS / "keyring" / "reader.py"
    spawner = Spawner("podium-test-spawner")
    command = [sys.executable, "-s", "-S", "-B", str(reader), judge_secret]
    for _ in range(2):  # and the second run does not get the first run's keyring either
        started = spawner.start(lambda: subprocess.run(command, capture_output=True, text=True, check=True))
        assert started.stdout.startswith("nothing"), started.stdout  # no filter here: the keyring itself is new
    hit, _ = keys.find(f"podium-judge-secret-{judge_secret}", keys.KEYRINGS["session"])
    assert hit is not None  # the calling thread still holds the judge's keyring


def test_a_spawner_hands_back_what_the_launch_raised() -> None:
    with pytest.raises(OSError, match="no such program"):
        Spawner("podium-test-spawner").start(lambda: (_ for _ in ()).throw(OSError("no such program")))


# Everything a program can reach in its own process without reading raw memory: its frames up the stack, every
# object the collector tracks, and every loaded module.
LOOK_AROUND = """
import gc, json, sys
NEEDLES = [bytes.fromhex(needle).decode() for needle in NEEDLES]  # not in the source, which its frames may hold
found = set()
seen = set()
OWN = (NEEDLES, UIDS, found, seen)
def look(value, where):
    if isinstance(value, bytes):
        value = value.decode('latin-1')
    if isinstance(value, str):
        found.update(f'{where}: {needle}' for needle in NEEDLES if needle in value)
    elif isinstance(value, int) and not isinstance(value, bool) and any(value in block for block in UIDS):
        found.add(f'{where}: uid {value}')
def look_into(value, where, depth=0):
    if any(value is own for own in OWN) or id(value) in seen or depth > 6:
        return
    look(value, where)
    if isinstance(value, dict):
        seen.add(id(value))
        for key, item in list(value.items()):  # a copy: the module's own globals change as it looks
            look(key, where); look_into(item, where, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        seen.add(id(value))
        for item in list(value):
            look_into(item, where, depth + 1)
    elif isinstance(getattr(value, '__code__', None), type(look.__code__)):  # a function: where it was written
        look(value.__code__.co_filename, where)
frame, depth = sys._getframe(), 0
while frame is not None:
    look(frame.f_code.co_filename, f'frame {depth}')
    for name, value in list(frame.f_locals.items()):
        look_into(value, f'frame {depth} {name}')
    frame, depth = frame.f_back, depth + 1
for value in gc.get_objects():
    look_into(value, f'object {type(value).__name__}')
for name, module in list(sys.modules.items()):
    look(getattr(module, '__file__', None) or '', f'module {name}')
    look_into(vars(module), f'module {name}')
for value in (sys.argv, sys.orig_argv, sys.path, dict(__import__('os').environ)):
    look_into(value, 'sys')
print(json.dumps(sorted(found)))
"""


def test_a_run_finds_no_trace_of_the_judge_in_its_own_process(sandbox: BubblewrapSandbox) -> None:
    checkout = str(Path(__file__).resolve().parents[4].parent)  # the repository's folder on the host
    needles = [text.encode().hex() for text in (checkout, "podium-sandbox-", "cgroup.procs", "/sys/fs/cgroup")]
    pools = [sandbox._pool, *([sandbox._fallback._pool] if isinstance(sandbox, ForkServerSandbox) else [])]  # type: ignore[attr-defined]
    # the slots' host uids, written so that no constant of the program's own holds one
    uids = [f"range(int('{pool._base_uid:x}', 16), int('{pool._base_uid + MAX_SLOTS:x}', 16))" for pool in pools]
    program = f"NEEDLES = {needles!r}\nUIDS = [{', '.join(uids)}]\n{LOOK_AROUND}"
    for _ in range(2):  # the second run comes from a zygote that has served one already
        result = sandbox.run(
            RunRequest(("python3", "-s", "-S", "-P", "-B", "solver.py"), {"solver.py": program.encode()})
        )
        assert result.status is RunStatus.OK, result.stderr_tail.decode()
        assert json.loads(result.stdout) == [], result.stdout.decode()
