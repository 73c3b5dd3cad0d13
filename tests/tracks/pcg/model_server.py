"""A real model server for the tests: llama.cpp's OpenAI-compatible server with Gemma 3 270M, and a recording proxy.

``scripts/install-model-server.sh`` (run by ``make test``) installs both into ``.model-server/``. Without them the
tests that need a real server skip, unless ``PODIUM_REQUIRE_MODEL_SERVER=1`` (``make test``) or ``CI`` is set,
where they fail. ``RecordingProxy`` stands between podium and the server and keeps every answer as the server sent
it, so a test can compare what podium logged with what the server said (token usage, finish reasons).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
SERVER_DIR = REPO / ".model-server"
SERVER_PYTHON = SERVER_DIR / "bin" / "python"
MODEL_FILE = SERVER_DIR / "models" / "gemma3-270m-q4_k_m.gguf"
MODEL = "gemma3-270m"  # the alias the server lists and answers to
SERVE_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "serve_model.py"


def require_model_server() -> None:
    """Skip (or fail, where the suite must be complete) when the server is not installed."""
    if SERVER_PYTHON.is_file() and MODEL_FILE.is_file():
        return
    message = "the model server is not installed (bash scripts/install-model-server.sh; `make test` does it)"
    if os.environ.get("PODIUM_REQUIRE_MODEL_SERVER") == "1" or os.environ.get("CI"):
        pytest.fail(f"{message} (required: PODIUM_REQUIRE_MODEL_SERVER=1 or CI is set)")
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class ModelServer:
    """A running llama.cpp server on loopback."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)


@contextmanager
def model_server(
    log_dir: Path, *, n_ctx: int = 512, api_key: str | None = None, max_completion_tokens: int = 0
) -> Iterator[ModelServer]:
    """Start the server as ``make serve-model`` does (2 threads, ``n_ctx`` tokens of context, completions capped
    at ``max_completion_tokens`` where a request names none; 0: no cap) and wait until it lists its model."""
    require_model_server()
    port = free_port()
    log = log_dir / f"llama-server-{port}.log"
    argv = [str(SERVER_PYTHON), str(SERVE_SCRIPT), "--max-completion-tokens", str(max_completion_tokens),
            "--model", str(MODEL_FILE), "--model_alias", MODEL, "--chat_format", "gemma", "--n_ctx", str(n_ctx),
            "--n_threads", "2", "--n_threads_batch", "2", "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    if api_key is not None:
        argv += ["--api_key", api_key]
    with log.open("wb") as output:
        process = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    server = ModelServer(process, port, log)
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the model server exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                # any answer means it is up (401 where it wants a key)
                httpx.get(f"{server.base_url}/models", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the model server did not start: {log.read_text()[-2000:]}") from None
                time.sleep(0.5)
        yield server
    finally:
        server.resume()  # a paused server cannot die
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Exchange:
    """One request through the proxy and the server's answer."""

    method: str
    path: str
    request: Any
    status: int
    answer: Any


@dataclass
class RecordingProxy:
    """Forwards everything to ``upstream`` and records each exchange."""

    upstream: str
    port: int = 0
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chats(self) -> list[Exchange]:
        with self.lock:
            return [e for e in self.exchanges if e.path.endswith("/chat/completions")]


@contextmanager
def recording_proxy(upstream: str) -> Iterator[RecordingProxy]:
    """A proxy on a free loopback port in front of ``upstream`` (a server's root URL)."""
    state = RecordingProxy(upstream.rstrip("/"))
    client = httpx.Client(timeout=httpx.Timeout(600, connect=5))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            self.forward(None)

        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            self.forward(self.rfile.read(int(self.headers.get("content-length", "0"))))

        def forward(self, body: bytes | None) -> None:
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
            answer = client.request(self.command, state.upstream + self.path, content=body, headers=headers)
            try:
                parsed: Any = answer.json()
            except ValueError:
                parsed = answer.text
            with state.lock:
                state.exchanges.append(
                    Exchange(self.command, self.path, json.loads(body) if body else None, answer.status_code, parsed)
                )
            self.send_response(answer.status_code)
            self.send_header("content-type", answer.headers.get("content-type", "application/json"))
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.port = int(httpd.server_address[1])
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        client.close()
