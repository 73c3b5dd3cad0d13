"""Park 20 numbers as the addresses of TCP connections that stay in TIME_WAIT after the run ends."""

import socket
import sys

# below the ephemeral ports (32768-60999), so no other process's connection holds it (it once did, under load)
port = 20000 + int(sys.argv[1], 16) % 10000
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("0.0.0.0", port))
server.listen(32)
for number in range(1, 21):
    client = socket.create_connection((f"127.0.{number}.222", port), timeout=2)
    accepted, _ = server.accept()
    client.close()  # the side that closes first keeps the connection in TIME_WAIT
    accepted.close()
print("parked", *range(1, 21))
