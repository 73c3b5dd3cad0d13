"""Read numbers parked as the unread bytes of open or half-closed TCP connections, from /proc/net/tcp alone."""

import contextlib
import socket
import sys

from queues import port

token = sys.argv[1]
found = []
with open("/proc/net/tcp") as table:
    for line in list(table)[1:]:
        fields = line.split()
        local, state, queues = fields[1], fields[3], fields[4]
        if state in ("01", "08") and int(local.split(":")[1], 16) == port(token):  # the accepted side
            # tx_queue:rx_queue; in CLOSE_WAIT the peer's FIN counts one in the receive queue
            found.append(int(queues.split(":")[1], 16) - (state == "08"))
found = sorted(count for count in found if count)
if "--unlink" in sys.argv:  # tell the process holding them to go
    with contextlib.suppress(OSError):
        socket.create_connection(("127.0.0.1", port(token)), timeout=2).close()
print("found", *found) if found else print("nothing")
