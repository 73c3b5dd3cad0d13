"""Ask a process a writer left behind for its data, over loopback TCP and UDP; ``found`` only if both answer."""

import socket
import sys

from port import port

address = ("127.0.0.1", port(sys.argv[1]))
answers = {}
try:
    with socket.create_connection(address, timeout=2) as client:
        answers["tcp"] = client.recv(16).decode()
except OSError:
    pass
try:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(2)
        client.connect(address)  # connected, a closed port answers at once (ICMP port unreachable)
        client.send(b"read")
        answers["udp"] = client.recv(16).decode()
except OSError:
    pass
if not answers:
    print("nothing")
elif len(answers) == 2:
    print("found", answers)
else:
    print("partly", answers)
