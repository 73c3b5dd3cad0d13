"""Many annotators scoring at once over HTTP: the load test's driver, shared with ``benchmarks/bench_wmeval.py``.

``seed_load`` fills a database with GT and team rows (no media: scoring reads only the tables), ``annotators``
accounts and their assignment. ``score_concurrently`` starts one thread per annotator, lets them go at once
(a barrier) and has each post a score for every item of their queue through the API, timing each request.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

import httpx
from sqlalchemy import Engine, insert

from podium.core.clock import Clock
from podium.tracks.wmeval.assign import AssignOptions, assign
from podium.tracks.wmeval.schema import gt, teams, videos
from podium.tracks.wmeval.store import add_account

AT = "2026-06-01T00:00:00.000000+00:00"


def seed_load(
    engine: Engine, clock: Clock, annotators: int = 50, teams_n: int = 2, tasks: int = 10, episodes: int = 15
) -> dict[str, str]:
    """GT and video rows, ``annotators`` accounts, 5 annotators per task; the annotators' tokens by name."""
    with engine.begin() as db:
        for t in range(1, tasks + 1):
            for e in range(episodes):
                db.execute(insert(gt).values(task=f"task{t}", episode=f"episode_{e}", video_path="g.mp4",
                                             last_frame_path="g.png", playable=True, reason="", probe_json="{}",
                                             created_at=AT))  # fmt: skip
        for n in range(teams_n):
            team_id = db.execute(insert(teams).values(name=f"team{n}", created_at=AT)).inserted_primary_key[0]
            for t in range(1, tasks + 1):
                for e in range(episodes):
                    db.execute(insert(videos).values(team_id=team_id, task=f"task{t}", episode=f"episode_{e}",
                               original_path="o.mp4", video_path="v.mp4", last_frame_path="v.png", playable=True,
                               reason="", probe_json="{}", created_at=AT))  # fmt: skip
    tokens = {}
    for a in range(annotators):
        _, tokens[f"ann{a:02d}"] = add_account(engine, clock, f"ann{a:02d}", "annotator")
    assign(engine, clock, AssignOptions(annotators_per_task=5, cap=10, gold=0, seed=1))
    return tokens


@dataclass
class LoadResult:
    """Every request's latency and every failure."""

    latencies_s: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def p(self, q: float) -> float:
        ordered = sorted(self.latencies_s)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def score_concurrently(base: str, tokens: dict[str, str], timeout_s: float = 120, think_s: float = 0.0) -> LoadResult:
    """Every annotator scores their whole queue at once (one thread each); bounded by ``timeout_s``.

    ``think_s`` > 0 makes each annotator pause a random 0 to 2·think_s seconds before each score (watching the
    videos), so submissions arrive as they would from fifty people at work; 0 is the stress case, every annotator
    posting again the moment the last answer came.
    """
    result = LoadResult()
    lock = threading.Lock()
    start = threading.Barrier(len(tokens))

    def annotate(name: str, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=f"{base}/wmeval", headers=headers, timeout=30) as client:
            try:
                mine = client.get("/api/queue").json()
                pause = random.Random(name)
                start.wait(timeout=60)
                for n, item in enumerate(mine):
                    if think_s:
                        time.sleep(pause.uniform(0, 2 * think_s))
                    began = time.perf_counter()
                    answer = client.post(f"/api/items/{item['item']}/score", json={"score": n % 4, "note": name})
                    took = time.perf_counter() - began
                    with lock:
                        result.latencies_s.append(took)
                        if answer.status_code != 200:
                            result.failures.append(f"{name} {item['item']}: {answer.status_code} {answer.text}")
            except Exception as error:  # a thread's failure is a result, reported by the caller
                with lock:
                    result.failures.append(f"{name}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=annotate, args=item, daemon=True) for item in tokens.items()]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.1, timeout_s - (time.perf_counter() - began)))
    result.wall_s = time.perf_counter() - began
    if any(t.is_alive() for t in threads):
        result.failures.append(f"not done within {timeout_s} s")
    return result
