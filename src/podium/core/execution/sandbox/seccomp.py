"""The system-call filter of every sandboxed program: the kernel services no judged program needs are refused.

The filter is a deny-list (``DENIED``): a judged program is an interpreter running arbitrary code, whose needs no
allow-list can foresee, while what it must never reach is a short list: the kernel keyrings (a judge started by
``su -``, ``runuser`` or systemd holds a session keyring its children inherit), other processes' memory, new
namespaces and mounts, the kernel's own state (modules, clocks, reboot) and the large, bug-prone interfaces
(BPF, perf, io_uring, userfaultfd). ``docs/design/core.md`` ("The system-call filter") restates the list and why.

It is compiled once per process with libseccomp (Debian's ``libseccomp2``, through ctypes: no Python binding is
packaged), for this machine's architecture only: a system call made through another ABI (i386's ``int 0x80``,
x32) kills the process, so a denied call cannot be reached under another number. bubblewrap loads it
(``--seccomp FD``) after it has built the sandbox and dropped every capability, just before it execs the program.

Refused calls fail with ``EPERM``, except ``clone3``, which fails with ``ENOSYS``: its flags sit in memory a filter
cannot read, and glibc falls back to ``clone`` (whose flags the filter checks) only on ``ENOSYS``; with ``EPERM`` no
thread could start.

A deny-list lets through whatever the kernel added after it was written. So every number above the highest that
this libseccomp knows by name (456 for Debian 12's 2.5.4; Linux 6.18 has calls up to 469) up to ``UNKNOWN_CEILING``
is refused by number, with ``ENOSYS``, as a kernel without the call would answer: a program or library that tries a
new call falls back to an old one. Four instructions of our own in front of libseccomp's program do it (one rule
per number made the filter 853 instructions long, and loading it took 0.37 ms a run instead of 0.09).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import struct
from dataclasses import dataclass

from podium.core.errors import DependencyError
from podium.core.execution.sandbox.records import FilterProfile

_FIX = "apt-get install libseccomp2"


@dataclass(frozen=True, slots=True)
class Denial:
    """System calls refused together, and why no judged program needs them."""

    calls: tuple[str, ...]
    why: str


DENIED: tuple[Denial, ...] = (
    Denial(("add_key", "keyctl", "request_key"), "kernel keyrings: the judge's secrets, and state that outlives a run"),
    Denial(
        ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
        "reading or steering another process",
    ),
    Denial(("bpf", "perf_event_open", "userfaultfd"), "large kernel interfaces with a history of exploits"),
    Denial(("io_uring_setup", "io_uring_enter", "io_uring_register"), "io_uring: a second system-call path"),
    Denial(("unshare", "setns"), "new or other namespaces"),
    Denial(
        (
            "mount",
            "umount2",
            "pivot_root",
            "chroot",
            "fsopen",
            "fsconfig",
            "fsmount",
            "fspick",
            "move_mount",
            "open_tree",
            "mount_setattr",
            "open_tree_attr",
            "name_to_handle_at",
            "open_by_handle_at",
        ),
        "mounts, and opening files by handle past the mount tree",
    ),  # fmt: skip
    Denial(
        ("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot"),
        "the kernel itself",
    ),
    Denial(("settimeofday", "clock_settime", "clock_adjtime", "adjtimex"), "the clocks"),
    Denial(
        ("swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup", "sethostname", "setdomainname"),
        "host administration",
    ),
    Denial(("iopl", "ioperm", "modify_ldt", "uselib", "personality", "fanotify_init"), "legacy or hardware access"),
)
"""Refused outright (``personality`` only when it would change the persona: the query stays allowed)."""

SOLVER_DENIED: tuple[Denial, ...] = (
    Denial(
        ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_mark"),
        "watching files: a run watching the shared standard library sees another run open its files, as symbols",
    ),
    Denial(("flock",), "file locks: a shared file's locks are the host's, so another run can test them as bits"),
    Denial(
        ("fadvise64", "readahead", "mincore", "cachestat", "remap_file_pages", "process_madvise"),
        "the page cache: evicting, loading or probing the cached pages of files every run reads",
    ),
    Denial(
        ("io_setup", "io_submit", "io_getevents", "io_pgetevents", "io_cancel", "io_destroy"),
        "Linux AIO: its RWF_NOWAIT reads probe the page cache",
    ),
)
"""Refused outright under ``FilterProfile.SOLVER`` besides ``DENIED``: the host kernel's objects every run shares.

What no namespace separates (``docs/design/core.md``, "What the kernel shares") is closed here where a call reaches
it; plain read timing reaches the page cache with no call to refuse, which no filter can close."""

LOCK_COMMANDS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
    "F_NOTIFY": 1026,
}
"""``fcntl`` commands refused under the solver profile: record locks, leases and directory notification (dnotify),
each a view of state that other runs on the host share."""

PAGE_CACHE_ADVICE = {"MADV_WILLNEED": 3, "MADV_COLD": 20, "MADV_PAGEOUT": 21}
"""``madvise`` advice refused under the solver profile: each loads or evicts the pages of a mapped shared file."""

RW_FLAG_CALLS = ("preadv2", "pwritev2")
"""Refused under the solver profile when given any flag: ``RWF_NOWAIT`` tells whether a page is cached."""

CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x80,
    "CLONE_NEWNS": 0x20000,
    "CLONE_NEWCGROUP": 0x2000000,
    "CLONE_NEWUTS": 0x4000000,
    "CLONE_NEWIPC": 0x8000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
"""``clone`` with any of these flags is refused: a thread or a child process, never a namespace."""

SOCKET_FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10}
"""The only families ``socket`` accepts (netlink, packet, vsock, alg, ... are refused)."""

TERMINAL_IOCTLS = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}
"""``ioctl`` requests that push input into a terminal, refused in case one is ever reachable."""

UNKNOWN_CEILING = 1024
"""Numbers from the highest known one up to here are refused as unknown (far past any call Linux has)."""

_PERSONALITY_QUERY = 0xFFFFFFFF
_LOW_32_BITS = 0xFFFFFFFF

# libseccomp's ABI (seccomp.h)
_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_ATTR_OPTIMIZE = 8
_BINARY_TREE = 2  # calls found by bisection on their number, not by a chain of comparisons
_CMP_NE, _CMP_EQ, _CMP_GT, _CMP_MASKED_EQ = 1, 4, 6, 7


# classic BPF opcodes (linux/filter.h)
_BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_BPF_RET_K = 0x06  # BPF_RET | BPF_K


def _errno_action(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


class _Comparison(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@functools.cache
def _libseccomp() -> ctypes.CDLL:
    try:
        library = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as error:
        raise DependencyError(f"libseccomp is missing ({error})", fix=_FIX) from error
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    library.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_Comparison),
    ]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    library.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p  # a malloc'd name, or NULL
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return library


def syscall_number(name: str) -> int | None:
    """The number of system call ``name`` on this machine's architecture; None where it has none."""
    number = int(_libseccomp().seccomp_syscall_resolve_name(name.encode()))
    return number if number >= 0 else None


@functools.cache
def highest_known_number() -> int:
    """The highest system call number this libseccomp can name on this machine's architecture."""
    library, libc = _libseccomp(), ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    highest = -1
    for number in range(UNKNOWN_CEILING):
        name = library.seccomp_syscall_resolve_num_arch(0, number)  # 0: the native architecture
        if name:
            libc.free(name)
            highest = number
    return highest


def unknown_numbers() -> range:
    """The numbers the filter refuses because libseccomp does not know them (``ENOSYS``)."""
    return range(highest_known_number() + 1, UNKNOWN_CEILING)


def denied_calls(profile: FilterProfile = FilterProfile.STANDARD) -> list[str]:
    """Every system call the profile's filter refuses outright, in ``DENIED`` (then ``SOLVER_DENIED``) order."""
    denials = DENIED if profile is FilterProfile.STANDARD else (*DENIED, *SOLVER_DENIED)
    return [call for denial in denials for call in denial.calls]


class _Builder:
    """One libseccomp filter context under construction."""

    def __init__(self) -> None:
        self.library = _libseccomp()
        self.context = self.library.seccomp_init(_ACT_ALLOW)
        if not self.context:
            raise DependencyError("libseccomp could not start a filter", fix=_FIX)
        # a call through another ABI kills the whole process where the kernel knows how (Linux 4.14), else the
        # calling thread (libseccomp's default): either way the call never runs
        self.library.seccomp_attr_set(self.context, _ATTR_ACT_BADARCH, _ACT_KILL_PROCESS)
        self.library.seccomp_attr_set(self.context, _ATTR_OPTIMIZE, _BINARY_TREE)  # an optimisation only

    def refuse(self, name: str, *comparisons: tuple[int, int, int, int], error: int = errno.EPERM) -> None:
        number = syscall_number(name)
        if number is None:
            return  # no such call on this architecture (iopl on arm64): nothing to refuse
        array = (_Comparison * max(1, len(comparisons)))(*(_Comparison(*c) for c in comparisons))
        result = self.library.seccomp_rule_add_array(
            self.context, _errno_action(error), number, len(comparisons), array
        )
        self._check(result, name)

    def export(self) -> bytes:
        read, write = os.pipe()
        try:
            self._check(self.library.seccomp_export_bpf(self.context, write), "export")
        finally:
            os.close(write)
        with os.fdopen(read, "rb") as compiled:
            return compiled.read()

    def release(self) -> None:
        self.library.seccomp_release(self.context)

    @staticmethod
    def _check(result: int, what: str) -> None:
        if result != 0:
            raise DependencyError(f"libseccomp refused the filter ({what}: {os.strerror(-result)})", fix=_FIX)


def _unknown_numbers_refused() -> bytes:
    """Classic BPF that answers ``ENOSYS`` for every number in ``unknown_numbers()`` and falls through otherwise.

    It runs before libseccomp's program, whose jumps are relative and so unaffected. A call through another ABI
    (x32 numbers have bit 30 set) is past the range and meets libseccomp's architecture check as before.
    """
    numbers = unknown_numbers()
    program = [
        (_BPF_LD_W_ABS, 0, 0, 0),  # A = the system call's number (seccomp_data.nr)
        (_BPF_JGE_K, 0, 2, numbers.start),  # below the range: on to libseccomp's program
        (_BPF_JGE_K, 1, 0, numbers.stop),  # past it: on as well
        (_BPF_RET_K, 0, 0, _errno_action(errno.ENOSYS)),
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def _refuse_shared_kernel_state(builder: _Builder) -> None:
    """The solver profile's refusals that depend on an argument (its outright ones are in ``SOLVER_DENIED``)."""
    for command in LOCK_COMMANDS.values():  # the kernel reads the command as 32 bits, as ioctl's request
        builder.refuse("fcntl", (1, _CMP_MASKED_EQ, _LOW_32_BITS, command))
    for advice in PAGE_CACHE_ADVICE.values():
        builder.refuse("madvise", (2, _CMP_MASKED_EQ, _LOW_32_BITS, advice))
    for call in RW_FLAG_CALLS:  # flags are the sixth argument; any bit set is refused
        builder.refuse(call, (5, _CMP_NE, 0, 0))


@functools.cache
def filter_program(profile: FilterProfile = FilterProfile.STANDARD) -> bytes:
    """The profile's compiled filter (classic BPF, as ``--seccomp`` reads it), built once per process."""
    builder = _Builder()
    try:
        for call in denied_calls(profile):
            if call == "personality":
                builder.refuse(call, (0, _CMP_NE, _PERSONALITY_QUERY, 0))
            else:
                builder.refuse(call)
        builder.refuse("clone3", error=errno.ENOSYS)
        for flag in CLONE_NAMESPACE_FLAGS.values():
            builder.refuse("clone", (0, _CMP_MASKED_EQ, flag, flag))
        allowed = set(SOCKET_FAMILIES.values())
        # any family past the highest allowed one, including values with high bits set that the kernel would cut
        builder.refuse("socket", (0, _CMP_GT, max(allowed), 0), error=errno.EAFNOSUPPORT)
        for family in set(range(max(allowed))) - allowed:
            builder.refuse("socket", (0, _CMP_EQ, family, 0), error=errno.EAFNOSUPPORT)
        for request in TERMINAL_IOCTLS.values():
            # the kernel reads the request as 32 bits: compare those only, or high bits would slip past
            builder.refuse("ioctl", (1, _CMP_MASKED_EQ, _LOW_32_BITS, request))
        if profile is FilterProfile.SOLVER:
            _refuse_shared_kernel_state(builder)
        return _unknown_numbers_refused() + builder.export()
    finally:
        builder.release()
