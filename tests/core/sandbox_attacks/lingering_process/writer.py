"""Leave a process behind that serves the data on an abstract UNIX socket, after the writer itself has ended."""

import os
import socket
import sys

name = f"\0podium-parked-{sys.argv[1]}"
try:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(1)
except OSError as error:
    print("refused", error.errno)
    sys.exit(0)
if os.fork() == 0:  # the child detaches and outlives the writer: its own session, no inherited output
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
        server.settimeout(30)  # long enough for the reader; then it goes
        try:
            while True:
                client, _ = server.accept()
                if client.recv(16) == b"quit":
                    break
                client.sendall(b"terms")
                client.close()
        except OSError:
            pass
    os._exit(0)
os.wait()  # the first child ends at once; its own child lingers
print("parked a process on an abstract socket")
