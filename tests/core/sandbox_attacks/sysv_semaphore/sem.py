"""SysV semaphores through ctypes: a semaphore's value is a number any process of the IPC namespace can read."""

import ctypes

libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT, IPC_RMID, GETVAL, SETVAL = 0o1000, 0, 12, 16


def key_of(token):
    return int(token[:7], 16) + 2  # not the ipc channel's key


def number_of(token):
    return 1000 + int(token[-4:], 16) % 30000  # semaphore values go up to 32767
