"""Start the bundled CPU model server: llama.cpp's OpenAI-compatible server, with a cap on each completion.

Run with the server's own interpreter (``make serve-model`` does)::

    .model-server/bin/python scripts/serve_model.py --max-completion-tokens 512 [llama_cpp.server options]

The official clients send no ``max_tokens``, so a model that does not stop on its own writes until its context is
full: on 2 CPU cores that holds the server for minutes per call. A chat request that names no ``max_tokens`` gets
``--max-completion-tokens`` (0: no cap, the server as released); one that names it keeps its own. Every other
option is ``python -m llama_cpp.server``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class CapCompletions:
    """ASGI middleware: a POST to ``.../chat/completions`` without ``max_tokens`` gets ``cap``."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], cap: int) -> None:
        self.app, self.cap = app, cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].endswith("/chat/completions"):
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            request = json.loads(body)
        except ValueError:
            request = None  # the server answers a body that is not JSON itself
        if isinstance(request, dict) and request.get("max_tokens") is None:
            request["max_tokens"] = self.cap
            body = json.dumps(request).encode()
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # the disconnect, when it comes
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def main() -> None:
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--max-completion-tokens", type=int, default=512)
    known, rest = ours.parse_known_args()
    sys.argv = [sys.argv[0], *rest]
    import llama_cpp.server.__main__ as server  # the server's own interpreter has it

    released = server.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        app = released(*args, **kwargs)
        if known.max_completion_tokens > 0:
            app.add_middleware(CapCompletions, cap=known.max_completion_tokens)
        return app

    server.create_app = create_app
    server.main()


if __name__ == "__main__":
    main()
