"""The program's end of the sandbox channel: one JSON line out, one JSON line back."""

from __future__ import annotations

import json
import os
import socket
from typing import Any

CHANNEL_FD_ENV = "PODIUM_CHANNEL_FD"


class ChannelClosed(SystemExit):
    """The judge closed the channel (the run is over for this process); ends the program."""


class Link:
    """Requests to the judge, answered in order."""

    def __init__(self, fd: int) -> None:
        self._socket = socket.socket(fileno=fd)
        self._stream = self._socket.makefile("rwb")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its answer."""
        self._stream.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
        self._stream.flush()
        line = self._stream.readline()
        if not line:
            raise ChannelClosed("podium: the judge closed the channel")
        answer = json.loads(line)
        if not isinstance(answer, dict) or "channel_error" in answer:
            raise RuntimeError(f"podium: the judge refused the request: {answer}")
        return answer


_link: Link | None = None


def link() -> Link:
    """The one link of this process (opened on first use)."""
    global _link
    if _link is None:
        _link = Link(int(os.environ[CHANNEL_FD_ENV]))
    return _link
