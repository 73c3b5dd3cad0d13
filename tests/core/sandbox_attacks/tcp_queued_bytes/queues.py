"""Where the tcp_queued_bytes channel lives: a loopback port per token, and numbers as unread bytes."""

import zlib

CONNECTIONS = 8


def port(token):
    return 20000 + zlib.crc32(b"queued " + token.encode()) % 20000


def numbers(token):
    """What is parked: one byte count per connection, each different (so each can be told apart)."""
    seed = zlib.crc32(token.encode())
    return [1 + (seed >> (4 * i)) % 16 + 16 * i for i in range(CONNECTIONS)]
