"""Leave a process behind holding loopback TCP connections, with data left unread in each.

Half of them stay established; the other half are half-closed (FIN_WAIT2 on one side, CLOSE_WAIT on the other).

Nobody has to connect to read it: ``/proc/net/tcp`` lists each connection's receive queue, so the number of bytes
waiting on each is the data.
"""

import contextlib
import os
import socket
import sys

from queues import numbers, port

token = sys.argv[1]
address = ("127.0.0.1", port(token))
ready_read, ready_write = os.pipe()
if os.fork() == 0:  # the child detaches and outlives the writer: its own session, no inherited output
    os.setsid()
    if os.fork() == 0:
        os.close(ready_read)
        held = []
        try:
            listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind(address)
            listening.listen(16)
            for count in numbers(token):
                client = socket.create_connection(address)
                served, _ = listening.accept()
                client.sendall(b"x" * count)  # never read: it waits in the accepted socket's receive queue
                if len(held) % 4:  # every other pair half-closed: FIN_WAIT2 here, CLOSE_WAIT with the bytes there
                    client.shutdown(socket.SHUT_WR)
                held += [client, served]
            os.write(ready_write, b"parked")
        except OSError as error:
            os.write(ready_write, f"refused {error.errno}".encode())
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
        listening.settimeout(30)  # until the reader says it is done, or 30 s
        with contextlib.suppress(OSError):
            listening.accept()
    os._exit(0)
os.close(ready_write)
os.wait()  # the first child ends at once; its own child lingers
said = os.read(ready_read, 64).decode()
print(f"{said} {numbers(token)}" if said == "parked" else said or "refused")
