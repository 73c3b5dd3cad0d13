"""Ask a process a writer left behind for its data, on the abstract UNIX socket it serves."""

import socket
import sys

name = f"\0podium-parked-{sys.argv[1]}"
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(name)
        client.sendall(b"read")
        print("found", client.recv(16).decode())
    if "--unlink" in sys.argv:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(name)
            client.sendall(b"quit")
except OSError:
    print("nothing")
