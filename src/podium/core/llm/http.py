"""POSTing JSON to a model server with retries, backoff and a per-server concurrency limit.

Transient failures are retried: connection refused or reset, timeouts, HTTP 429 and 5xx. The wait doubles from
``first_backoff_s`` up to ``max_backoff_s`` (a server's ``Retry-After`` in seconds is honoured, within the same
cap), for at most ``max_attempts`` requests; then the call fails with the last reason. Other answers (a 4xx, or a
body that is not JSON) fail at once. At most ``concurrency`` requests are open to one base URL from this process,
whatever the number of threads asking: a model server serves a few requests at a time and queues the rest, and
podium's own queue keeps the timing of each request honest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from podium.core.llm.records import ModelCallError

TRANSIENT_STATUS = frozenset({429, *range(500, 600)})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try one request."""

    max_attempts: int = 5
    first_backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    timeout_s: float | None = 600.0  # per request; None waits for ever (the 2025 package set no timeout)


@dataclass(frozen=True, slots=True)
class PostResult:
    """A server's JSON answer and how many requests it took."""

    body: dict[str, Any]
    attempts: int


_limits: dict[str, threading.BoundedSemaphore] = {}
_limits_lock = threading.Lock()


def server_limit(base_url: str, concurrency: int) -> threading.BoundedSemaphore:
    """The one semaphore of ``base_url`` in this process (created with the first caller's ``concurrency``)."""
    with _limits_lock:
        if base_url not in _limits:
            _limits[base_url] = threading.BoundedSemaphore(concurrency)
        return _limits[base_url]


class JsonPoster:
    """Posts JSON to one server under its concurrency limit, retrying what is transient."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        policy: RetryPolicy | None = None,
        concurrency: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.policy = policy or RetryPolicy()
        self._limit = server_limit(self.base_url, concurrency)
        self._sleep = sleep
        self._client = httpx.Client(headers=dict(headers or {}), timeout=self.policy.timeout_s, transport=transport)

    def post(self, path: str, payload: dict[str, Any]) -> PostResult:
        """POST ``payload`` to ``base_url + path`` and return the JSON answer."""
        url = f"{self.base_url}{path}"
        backoff = self.policy.first_backoff_s
        for attempt in range(1, self.policy.max_attempts + 1):
            failure, wait = self._attempt(url, payload)
            if isinstance(failure, PostResult):
                return PostResult(failure.body, attempt)
            if not failure.transient or attempt == self.policy.max_attempts:
                if failure.transient:
                    raise ModelCallError(
                        f"{failure.message} (gave up after {attempt} attempts)",
                        transient=True,
                        status=failure.status,
                        fix=f"check that the model server at {self.base_url} is up and not overloaded",
                    )
                raise failure
            self._sleep(min(self.policy.max_backoff_s, wait if wait is not None else backoff))
            backoff = min(self.policy.max_backoff_s, backoff * 2)
        raise AssertionError("unreachable: the loop returns or raises")

    def _attempt(self, url: str, payload: dict[str, Any]) -> tuple[PostResult | ModelCallError, float | None]:
        """One request: the answer, or the failure and the server's requested wait (``Retry-After``)."""
        try:
            with self._limit:
                response = self._client.post(url, json=payload)
        except httpx.TimeoutException:
            return ModelCallError(f"no answer from {url} within {self.policy.timeout_s} s", transient=True), None
        except httpx.TransportError as error:  # refused, reset, DNS: the server is not there (yet)
            return ModelCallError(f"cannot reach {url}: {error or type(error).__name__}", transient=True), None
        if response.status_code != 200:
            detail = response.text.strip().replace("\n", " ")[:300]
            status = response.status_code
            transient = status in TRANSIENT_STATUS
            refusal = ModelCallError(f"{url} answered HTTP {status}: {detail}", transient=transient, status=status)
            return refusal, _retry_after_s(response) if transient else None
        try:
            body = response.json()
        except ValueError:
            return ModelCallError(f"{url} answered with a body that is not JSON", transient=False, status=200), None
        if not isinstance(body, dict):
            return ModelCallError(f"{url} answered with JSON that is not an object", transient=False, status=200), None
        return PostResult(body, 1), None

    def close(self) -> None:
        """Close the connections."""
        self._client.close()


def _retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date or nothing: use our own backoff
