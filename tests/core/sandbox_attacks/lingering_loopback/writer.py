"""Leave a process behind that serves the data on loopback, on a listening TCP socket and a bound UDP socket."""

import os
import select
import socket
import sys

from port import port

address = ("127.0.0.1", port(sys.argv[1]))
try:
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(address)
    listening.listen(1)
    datagrams = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    datagrams.bind(address)
except OSError as error:
    print("refused", error.errno)
    sys.exit(0)
if os.fork() == 0:  # the child detaches and outlives the writer: its own session, no inherited output
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
        served = set()
        while served != {"tcp", "udp"}:  # until the reader has asked on both, or 30 s without a question
            ready, _, _ = select.select([listening, datagrams], [], [], 30)
            if not ready:
                break
            if listening in ready:
                client, _ = listening.accept()
                client.sendall(b"terms")
                client.close()
                served.add("tcp")
            if datagrams in ready:
                _, sender = datagrams.recvfrom(16)
                datagrams.sendto(b"terms", sender)
                served.add("udp")
    os._exit(0)
os.wait()  # the first child ends at once; its own child lingers
print("parked a process on loopback TCP and UDP")
