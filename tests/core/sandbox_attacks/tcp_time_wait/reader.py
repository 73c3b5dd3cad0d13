"""Read back numbers parked as TIME_WAIT connections: no import beyond sys, only /proc/net/tcp."""

import sys

# below the ephemeral ports (32768-60999), so no other process's connection holds it (it once did, under load)
port = 20000 + int(sys.argv[1], 16) % 10000
found = []
with open("/proc/net/tcp") as table:
    for line in list(table)[1:]:
        fields = line.split()
        remote, state = fields[2], fields[3]
        address, remote_port = remote.split(":")
        if state == "06" and int(remote_port, 16) == port and address.startswith("DE"):
            found.append(int(address[2:4], 16))  # 127.0.N.222, little-endian hex: DE N 00 7F
print("found", *sorted(set(found))) if found else print("nothing")
