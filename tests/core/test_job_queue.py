"""The queue's heartbeats: one thread per process renews each held claim at its queue's pace, until dropped or lost."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from podium.core.job_queue import Claim, _Heartbeats


@dataclass
class CountingQueue:
    """Stands in for a ``JobQueue``: counts renewals; the claim is lost after ``lost_after`` of them."""

    heartbeat_s: float
    lost_after: int = 1_000
    beats: list[float] = field(default_factory=list)

    def heartbeat(self, claim: Claim) -> bool:
        self.beats.append(time.monotonic())
        return len(self.beats) < self.lost_after


def hold(heartbeats: _Heartbeats, queue: CountingQueue, job: int) -> object:
    return heartbeats.hold(queue, Claim(job, "w1", 1, None))  # type: ignore[arg-type]


def test_each_claim_is_renewed_at_its_queues_pace_until_dropped_or_lost() -> None:
    heartbeats = _Heartbeats()
    fast, slow, lost = CountingQueue(0.02), CountingQueue(0.2), CountingQueue(0.02, lost_after=2)
    keys = [hold(heartbeats, queue, job) for job, queue in enumerate((fast, slow, lost))]
    time.sleep(0.5)
    heartbeats.drop(keys[0])
    dropped_at = len(fast.beats)
    time.sleep(0.2)
    assert 10 <= dropped_at <= 26 and len(fast.beats) <= dropped_at + 1  # none after the drop (one in flight)
    assert 2 <= len(slow.beats) <= 4
    assert len(lost.beats) == 2  # renewing failed: the claim was taken over, so it is not renewed again


def test_a_forked_child_renews_its_own_claims() -> None:
    from podium.core import job_queue as module

    parents = module._HEARTBEATS.hold(CountingQueue(60), Claim(1, "w1", 1, None))  # type: ignore[arg-type]
    pid = os.fork()
    if pid == 0:  # the child: the parent's thread is not here; a new one must start
        code = 1
        try:
            queue = CountingQueue(0.02)
            module._HEARTBEATS.hold(queue, Claim(2, "w1", 1, None))  # type: ignore[arg-type]
            time.sleep(0.3)
            code = 0 if len(queue.beats) >= 5 else 2
        finally:
            os._exit(code)
    module._HEARTBEATS.drop(parents)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
