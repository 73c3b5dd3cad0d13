"""SysV shared memory, SysV message queues and POSIX message queues through ctypes."""

import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
IPC_CREAT, IPC_RMID, IPC_NOWAIT = 0o1000, 0, 0o4000
O_RDONLY, O_WRONLY, O_CREAT, O_NONBLOCK = 0, 1, 0o100, 0o4000


def key_of(token):
    return int(token[:7], 16) + 1


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
