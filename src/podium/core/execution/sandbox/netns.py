"""A network namespace per slot, made once and entered by each of the slot's runs.

bubblewrap's ``--unshare-net`` builds a fresh network namespace for every run and the kernel tears it down after:
1-2 ms of CPU a run on the development VM, most of what bubblewrap costs beyond its other namespaces. Where the
judge is root, each slot instead gets one namespace holding only a loopback interface, and its runs join it
(``nsenter --net``, which replaces ``unshare`` in the chain at no extra exec) with bubblewrap's ``--share-net``.

What runs of a slot share is the namespace, not anything in it: a run's processes all die with its pid namespace,
and their sockets with them, before the slot is handed to the next run (a test holds this). The namespace belongs
to the host's user namespace, where the program has no capability, so it cannot change the interface, routes or
sysctls the next run would see. Runs of different slots, which can overlap in time, never share a namespace.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import threading

_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def new_network_namespace() -> int | None:
    """A descriptor of a new network namespace with its loopback up, or None where the host refuses one.

    The namespace is made in a short-lived thread (``unshare(CLONE_NEWNET)`` moves only the calling thread), so
    the judge's own threads stay in the host's namespace; the descriptor keeps the namespace alive after it.
    """
    made: list[int | None] = [None]

    def make() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWNET) != 0:
            return  # not root, or a container without CAP_SYS_ADMIN: the caller keeps --unshare-net
        descriptor = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _loopback_up()
        except OSError:
            os.close(descriptor)
            return
        made[0] = descriptor

    thread = threading.Thread(target=make, name="podium-netns", daemon=True)
    thread.start()
    thread.join()
    return made[0]


def _loopback_up() -> None:
    """Bring ``lo`` up in the calling thread's network namespace (bubblewrap does the same in the ones it makes)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))
