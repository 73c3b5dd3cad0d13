"""Benchmark of the CPU model server the PCG tests use: tokens per second of the portable build and a native one.

``scripts/install-model-server.sh`` builds llama-cpp-python 0.3.36 with portable flags (``-DGGML_NATIVE=OFF
-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON``) so that the wheel can be cached and run on any x86-64 CPU of the last
decade. This measures what that costs against a build for this CPU only (``-DGGML_NATIVE=ON``), installed with
``PODIUM_MODEL_SERVER_DIR=DIR PODIUM_LLAMA_CMAKE_ARGS=-DGGML_NATIVE=ON bash scripts/install-model-server.sh``.

For each build and each thread count (1 and 2), the server is started on loopback with Gemma 3 270M Q4_K_M and
``--n_ctx 2048``; after one warm-up request, ``--runs`` requests (default 5) each ask for 128 tokens at temperature
0 after a 30-token prompt (``ignore_eos`` is not an OpenAI field, so a request that stops early counts the tokens it
made). Reported per row: the median of the runs' generated tokens per second (completion tokens over the request's
wall time, prompt included), its range, and the median time to fill a 480-token prompt (prompt evaluation speed).

Run: ``.venv/bin/python benchmarks/bench_model_server.py [--native DIR] [--runs N]``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from machine import cpu_model  # benchmarks/machine.py, beside this script

REPO = Path(__file__).resolve().parents[1]
MODEL_NAME = "gemma3-270m-q4_k_m.gguf"
SHORT = "Write a short story about a robot who builds towers out of wooden blocks in a windy field."
LONG = "Describe the letter A as a stack of blocks. " * 48  # about 480 tokens


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ask(client: httpx.Client, url: str, prompt: str, max_tokens: int) -> tuple[float, int, int]:
    payload = {"model": "m", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
               "temperature": 0, "seed": 1}  # fmt: skip
    started = time.perf_counter()
    answer = client.post(f"{url}/v1/chat/completions", json=payload)
    answer.raise_for_status()
    usage = answer.json()["usage"]
    return time.perf_counter() - started, usage["prompt_tokens"], usage["completion_tokens"]


def measure(server_dir: Path, threads: int, runs: int) -> tuple[float, float, float, float, int]:
    """Median tokens/s, its range, the median 480-token prompt fill in seconds, and the prompt's token count."""
    port = free_port()
    argv = [str(server_dir / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(server_dir / "models" /
            MODEL_NAME), "--chat_format", "gemma", "--n_ctx", "2048", "--n_threads", str(threads),
            "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=600) as client:
            for _ in range(240):
                try:
                    client.get(f"{url}/v1/models")
                    break
                except httpx.HTTPError:
                    time.sleep(0.5)
            ask(client, url, SHORT, 16)  # warm-up: weights paged in
            speeds, fills, prompt_tokens = [], [], 0
            for _ in range(runs):
                seconds, _, completion = ask(client, url, SHORT, 128)
                speeds.append(completion / seconds)
                seconds, prompt_tokens, _ = ask(client, url, LONG, 1)
                fills.append(seconds)
    finally:
        process.terminate()
        process.wait()
    return statistics.median(speeds), min(speeds), max(speeds), statistics.median(fills), prompt_tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--portable", type=Path, default=REPO / ".model-server")
    parser.add_argument("--native", type=Path, default=None, help="A server installed with -DGGML_NATIVE=ON.")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    builds = [("portable (AVX2, FMA, F16C)", args.portable)]
    if args.native is not None:
        builds.append(("native (-DGGML_NATIVE=ON)", args.native))
    print(f"# {cpu_model()}, {datetime.now(UTC):%Y-%m-%d}, llama-cpp-python 0.3.36, Gemma 3 270M Q4_K_M, "
          f"median of {args.runs} runs")  # fmt: skip
    print("| build | threads | generated tokens/s (median, range) | prompt fill (median) |")
    print("|---|---|---|---|")
    for threads in (1, 2):
        for name, folder in builds:
            speed, low, high, fill, tokens = measure(folder, threads, args.runs)
            print(f"| {name} | {threads} | {speed:.1f} ({low:.1f}–{high:.1f}) | {fill:.2f} s for {tokens} tokens |")


if __name__ == "__main__":
    main()
