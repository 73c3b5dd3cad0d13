"""Benchmark of ``generate``: what podium adds per model call and per trial, with a model server that answers at once.

The server is a ``ThreadingHTTPServer`` on loopback returning a fixed OpenAI-style answer, so every millisecond
measured is podium's (and the HTTP round trip), not a model's. Rows, each over ``--repeats`` runs (default 5),
median and range:

- ``direct call``: ``OpenAIChat.chat`` from the judge's process, no sandbox (the floor of one model call);
- ``call from the sandbox``: one trial of a program making ``--calls`` (default 200) ``chat_with_llm`` calls, whole
  run time divided by the calls (channel, stand-ins, rules, log and transcript lines, the HTTP call);
- ``team run 26 x 10``: ``generate_team`` for one program making one call per trial, 260 trials, in one sandboxed
  process, from an empty folder (writes the 260 files, the log and the transcript). Target: under 10 s on 2 cores.

Run: ``.venv/bin/python benchmarks/bench_pcg_generate.py [--repeats N] [--calls N]`` (as root, bubblewrap installed).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from machine import cpu_model

from podium.core.execution.sandbox import open_sandbox
from podium.core.llm import ChatMessage, ChatRequest, open_model
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.generation.records import GenerateVerdict
from podium.tracks.pcg.generation.submission import Program
from podium.tracks.pcg.generation.team import GenerateSettings, Submission, generate_team

ANSWER = json.dumps(
    {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "```\ndrop_block('b11', 10)\n```"}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62},
    }
).encode()

PROGRAM = """
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop

class Loop(TrialLoop):
    @staticmethod
    def run(ctx, c):
        for _ in range({calls}):
            answer = chat_with_llm(ctx, [{{"role": "user", "content": "Build the letter " + c}}])
        return answer[0]
"""


class Instant(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle and the client's delayed ACK add 40 ms a call,
        # which real model servers (Ollama, vLLM) do not
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def timed(repeats: int, once: Callable[[], float]) -> list[float]:
    return [once() for _ in range(repeats)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Instant)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    model = open_model("openai:bench", base_url=url)
    sandbox = open_sandbox("bubblewrap")
    request = ChatRequest((ChatMessage("user", "Build the letter A"),), temperature=1, n=1)

    def direct() -> float:
        started = time.perf_counter()
        for _ in range(args.calls):
            model.chat(request)
        return (time.perf_counter() - started) / args.calls

    def run(calls: int, characters: tuple[str, ...], trials: int) -> float:
        with tempfile.TemporaryDirectory() as folder:
            settings = GenerateSettings(Path(folder), edition(2025).generation, model, "bench", url, characters, trials)
            submission = Submission("team", Program.of_file("program.py", PROGRAM.format(calls=calls).encode()))
            started = time.perf_counter()
            result = generate_team(submission, settings, sandbox)
            elapsed = time.perf_counter() - started
            assert result.count(GenerateVerdict.OK) == len(characters) * trials, result.outcomes[:3]
            return elapsed

    rows = {
        "direct call (ms)": [1000 * t for t in timed(args.repeats, direct)],
        "call from the sandbox (ms)": [1000 * run(args.calls, ("A",), 1) / args.calls for _ in range(args.repeats)],
        "team run 26 x 10 (s)": [run(1, tuple(chr(c) for c in range(65, 91)), 10) for _ in range(args.repeats)],
    }
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {cpu_model()}, repeats {args.repeats}, calls {args.calls}")
    for name, values in rows.items():
        print(f"{name:28} median {statistics.median(values):8.3f}   range {min(values):.3f}-{max(values):.3f}")
    server.shutdown()


if __name__ == "__main__":
    main()
