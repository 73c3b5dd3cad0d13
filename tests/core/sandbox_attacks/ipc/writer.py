"""Park data in a SysV shared memory segment, a SysV message queue and a POSIX message queue."""

import ctypes
import sys

from ipc import IPC_CREAT, O_CREAT, O_WRONLY, Message, key_of, libc

token = sys.argv[1]
parked = []
segment = libc.shmget(key_of(token), 4096, IPC_CREAT | 0o666)
if segment >= 0:
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, b"shm terms\0", 10)
    libc.shmdt(address)
    parked.append("shm")
queue = libc.msgget(key_of(token), IPC_CREAT | 0o666)
message = Message(1, b"msg terms")
if queue >= 0 and libc.msgsnd(queue, ctypes.byref(message), 64, 0) == 0:
    parked.append("msg")
mq = libc.mq_open(f"/podium-parked-{token}".encode(), O_CREAT | O_WRONLY, 0o666, None)
if mq >= 0 and libc.mq_send(mq, b"mq terms", 8, 0) == 0:
    parked.append("mq")
print("parked", *parked) if parked else print("refused")
