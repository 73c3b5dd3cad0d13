"""Read data parked in SysV shared memory, a SysV message queue or a POSIX message queue."""

import ctypes
import sys

from ipc import IPC_NOWAIT, IPC_RMID, O_NONBLOCK, O_RDONLY, Message, key_of, libc

token, found = sys.argv[1], []
unlink = "--unlink" in sys.argv
segment = libc.shmget(key_of(token), 0, 0)
if segment >= 0:
    address = libc.shmat(segment, None, 0)
    found.append(ctypes.string_at(address).decode())
    libc.shmdt(address)
    if unlink:
        libc.shmctl(segment, IPC_RMID, None)
queue = libc.msgget(key_of(token), 0)
if queue >= 0:
    message = Message()
    if libc.msgrcv(queue, ctypes.byref(message), 64, 0, IPC_NOWAIT) >= 0:
        found.append(message.mtext.decode())
    if unlink:
        libc.msgctl(queue, IPC_RMID, None)
name = f"/podium-parked-{token}".encode()
mq = libc.mq_open(name, O_RDONLY | O_NONBLOCK)
if mq >= 0:
    buffer = ctypes.create_string_buffer(8192)
    size = libc.mq_receive(mq, buffer, 8192, None)
    if size >= 0:
        found.append(buffer.raw[:size].decode())
    if unlink:
        libc.mq_unlink(name)
print("found", *found) if found else print("nothing")
