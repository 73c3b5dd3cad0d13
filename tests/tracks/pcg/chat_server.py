"""A deterministic OpenAI-compatible chat server on loopback, for the generation tests: a real HTTP server.

``POST /v1/chat/completions`` answers from the conversation alone, so two clients that send the same requests get
the same answers: the reply to a conversation is a fenced ``drop_block`` line derived from a hash of its messages,
one per choice (choice ``i`` differs by its index). A last user message containing ``EMPTY`` gets an empty reply;
one containing ``BIG`` reports 20,000 prompt tokens (two such calls pass 25,000). Every request body is recorded,
in order. ``fail_next`` makes the next requests fail with HTTP 503, 401, a 400 context overflow or a reset
connection, to test retries and refusals.
``GET /v1/models`` lists ``models``: the names the tests use, as a real server lists what it serves.
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVED = ("m", "gpt-3.5-turbo", "gpt-3.5-turbo-0125", "qwen2.5:32b-instruct-fp16", "gemma2:27b-instruct-fp16",
          "phi3:14b-medium-128k-instruct-fp16")  # fmt: skip


def reply_text(messages: list[dict[str, Any]], index: int) -> str:
    """The reply to ``messages`` (choice ``index``)."""
    last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    if "EMPTY" in last:
        return ""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    column = int(digest[:2], 16) % 20
    return f"Here you go ✓ {digest[:8]}/{index}\n```\ndrop_block('b11', {column})\ndrop_block(\"b31\", {index})\n```"


@dataclass
class ChatServer:
    """The server's state: what it was asked, and what it should do next."""

    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_next: list[str] = field(default_factory=list)  # "503", "401", "context", "reset" or "ok", one per request
    delay_s: float = 0.0
    models: tuple[str, ...] = SERVED
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        with self.lock:
            failure = self.fail_next.pop(0) if self.fail_next else None
            if failure in (None, "ok"):
                self.requests.append(body)
        if failure == "503":
            return 503, {"error": "overloaded"}
        if failure == "401":
            return 401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}
        if failure == "context":  # llama.cpp's and OpenAI's words
            message = "This model's maximum context length is 512 tokens. However, you requested 700 tokens"
            return 400, {"error": {"message": message, "code": "context_length_exceeded"}}
        if failure == "reset":
            return 0, None
        if self.delay_s:
            time.sleep(self.delay_s)
        messages, n = body["messages"], body.get("n", 1)
        last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        prompt = 20_000 if "BIG" in last else sum(len(m["content"]) for m in messages) // 4 + 1
        texts = [reply_text(messages, i) for i in range(n)]
        completion = sum(len(t) // 4 for t in texts)
        return 200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body["model"],
            "choices": [
                {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                for i, t in enumerate(texts)
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }


def _handler(state: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms delayed-ACK stalls

        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            if self.path.rstrip("/") != "/v1/models":
                self.send_error(404)
                return
            listing = {"object": "list", "data": [{"id": m, "object": "model"} for m in state.models]}
            data = json.dumps(listing).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length))
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            status, answer = state.answer(body)
            if status == 0:  # a reset: close with RST, no answer
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve_chat() -> Iterator[ChatServer]:
    """A running server on a free loopback port."""
    state = ChatServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def summary(request: dict[str, Any]) -> dict[str, Any]:
    """What the tests compare of a request: messages, model, temperature, n, seed."""
    return {key: request.get(key) for key in ("messages", "model", "temperature", "n", "seed")}
