"""Talking JSON to a model server: retries, backoff, timeouts, what each failure means, a per-server limit.

Transient failures are retried: connection refused or reset, timeouts, HTTP 429 and 5xx. The wait doubles from
``first_backoff_s`` up to ``max_backoff_s`` (a server's ``Retry-After`` in seconds is honoured, within the same
cap), for at most ``max_attempts`` requests; then the call fails with the last reason. The defaults are the
official OpenAI client's, which the 2024 and 2025 packages use: 3 requests (2 retries), 5 s to connect, 600 s to
answer. Other answers fail at once, sorted by what they say (``FailureKind``): a refused key (401, 403), a path or
model the server does not have (404, 405) or a body that is not JSON says the server, the model or the key is
wrong, and every further call would fail alike; a 400 that says the conversation is longer than the model's
context says so; anything else is that one request's failure. At most ``concurrency`` requests are open to one
base URL from this process, whatever the number of threads asking: a model server serves a few requests at a time
and queues the rest, and podium's own queue keeps the timing of each request honest.

``probe`` asks once, waiting no longer than connecting may, whether the server answers at all: a run that gave up
on a call uses it to tell a server that is down from one that is slow. A retry's warning names what the request
was for (``request_label``: the team, letter and trial a judge's thread is asking for).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from podium.core.llm.records import FailureKind, ModelCallError

LOG = logging.getLogger("podium.llm")
_LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("podium_llm_request_label", default="")


@contextlib.contextmanager
def request_label(label: str) -> Iterator[None]:
    """Name what this thread's requests are for in their retry warnings (``team_a, letter A, trial 3``)."""
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)


TRANSIENT_STATUS = frozenset({429, *range(500, 600)} - {501})
WRONG_SERVER_STATUS = {
    401: "the server refused the API key",
    403: "the server refused the API key",
    404: "the server has no such path or model",
    405: "the server does not take this request at this path",
    501: "the server does not take this request",
}
CONTEXT_WORDS = re.compile(
    r"context.(length|window|size)|maximum context|n_ctx|too many tokens|prompt is too long", re.IGNORECASE
)
MISSING_MODEL_WORDS = re.compile(r"model\b.*\b(not found|does not exist|not available)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try one request (the defaults: the official OpenAI client's)."""

    max_attempts: int = 3
    first_backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    timeout_s: float | None = 600.0  # to answer a request; None waits for ever
    connect_timeout_s: float = 5.0

    def httpx_timeout(self) -> httpx.Timeout:
        """The timeouts as httpx takes them: connecting, and everything after."""
        return httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s)


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
        self._client = httpx.Client(
            headers=dict(headers or {}), timeout=self.policy.httpx_timeout(), transport=transport
        )

    def post(self, path: str, payload: dict[str, Any]) -> PostResult:
        """POST ``payload`` to ``base_url + path`` and return the JSON answer."""
        return self._request("POST", path, payload)

    def get(self, path: str, timeout_s: float | None = None) -> PostResult:
        """GET ``base_url + path`` and return the JSON answer (``timeout_s``: a shorter wait than the policy's)."""
        return self._request("GET", path, None, timeout_s)

    def probe(self, path: str) -> str | None:
        """One GET of ``base_url + path`` within the connect timeout, no retry: None if it answered, else why not.

        Any HTTP answer counts (the server is there); only no connection, or no answer in time, is a failure.
        """
        url = f"{self.base_url}{path}"
        try:
            self._client.get(url, timeout=httpx.Timeout(self.policy.connect_timeout_s))
        except httpx.TimeoutException:
            return f"{url} did not answer within {self.policy.connect_timeout_s:g} s"
        except httpx.TransportError as error:
            return f"cannot reach {url}: {error or type(error).__name__}"
        return None

    def _request(
        self, method: str, path: str, payload: dict[str, Any] | None, timeout_s: float | None = None
    ) -> PostResult:
        url = f"{self.base_url}{path}"
        backoff = self.policy.first_backoff_s
        for attempt in range(1, self.policy.max_attempts + 1):
            failure, wait = self._attempt(method, url, payload, timeout_s)
            if isinstance(failure, PostResult):
                return PostResult(failure.body, attempt)
            if not failure.transient or attempt == self.policy.max_attempts:
                if failure.transient:
                    raise ModelCallError(
                        f"{failure.message} (gave up after {attempt} attempts)",
                        kind=FailureKind.TRANSIENT,
                        status=failure.status,
                        fix=f"check that the model server at {self.base_url} is up and not overloaded",
                    )
                raise failure
            pause = min(self.policy.max_backoff_s, wait if wait is not None else backoff)
            label = f"{_LABEL.get()}: " if _LABEL.get() else ""
            LOG.warning("%s%s; retrying in %g s (attempt %d of %d)", label, failure.message, pause, attempt + 1,
                        self.policy.max_attempts)  # fmt: skip
            self._sleep(pause)
            backoff = min(self.policy.max_backoff_s, backoff * 2)
        raise AssertionError("unreachable: the loop returns or raises")

    def _attempt(
        self, method: str, url: str, payload: dict[str, Any] | None, timeout_s: float | None = None
    ) -> tuple[PostResult | ModelCallError, float | None]:
        """One request: the answer, or the failure and the server's requested wait (``Retry-After``)."""
        later = FailureKind.TRANSIENT  # a later request may succeed
        waited = timeout_s if timeout_s is not None else self.policy.timeout_s
        timeout = httpx.Timeout(waited, connect=self.policy.connect_timeout_s)
        try:
            with self._limit:
                response = self._client.request(method, url, json=payload, timeout=timeout)
        except httpx.ConnectTimeout:
            return ModelCallError(f"could not connect to {url} within {self.policy.connect_timeout_s:g} s",
                                  kind=later), None  # fmt: skip
        except httpx.TimeoutException:
            return ModelCallError(f"no answer from {url} within {waited:g} s", kind=later), None
        except httpx.TransportError as error:  # refused, reset, DNS: the server is not there (yet)
            return ModelCallError(f"cannot reach {url}: {error or type(error).__name__}", kind=later), None
        if response.status_code != 200:
            refusal = refusal_of(url, response.status_code, response.text)
            return refusal, _retry_after_s(response) if refusal.transient else None
        try:
            body = response.json()
        except ValueError:
            return _not_json(url, "with a body that is not JSON"), None
        if not isinstance(body, dict):
            return _not_json(url, "with JSON that is not an object"), None
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


def refusal_of(url: str, status: int, text: str) -> ModelCallError:
    """What an answer other than 200 means (``FailureKind``), in the server's words, shortened."""
    detail = " ".join(re.sub(r"<[^>]*>", " ", text).split())  # an HTML error page read as its words
    words = f"{url} answered HTTP {status}: {detail[:300]}"
    if status in TRANSIENT_STATUS:
        return ModelCallError(words, kind=FailureKind.TRANSIENT, status=status)
    if status in WRONG_SERVER_STATUS:
        return ModelCallError(f"{WRONG_SERVER_STATUS[status]}: {words}", kind=FailureKind.SERVER, status=status,
                              fix=_SERVER_FIX)  # fmt: skip
    if status in (400, 413) and CONTEXT_WORDS.search(detail):
        return ModelCallError(
            f"the conversation does not fit the model's context window (HTTP {status}: {detail[:200]})",
            kind=FailureKind.CONTEXT,
            status=status,
            fix="use a shorter conversation, or serve the model with a larger context",
        )
    if MISSING_MODEL_WORDS.search(detail):
        return ModelCallError(f"the server does not have the model: {words}", kind=FailureKind.SERVER, status=status,
                              fix=_SERVER_FIX)  # fmt: skip
    return ModelCallError(words, kind=FailureKind.REQUEST, status=status)


_SERVER_FIX = (
    "check the server's address (an OpenAI-compatible server's base URL ends in /v1, e.g. http://localhost:8000/v1; "
    "Ollama's native API has none), the back-end (openai: or ollama:), the model name and the API key "
    "(PODIUM_LLM_API_KEY or OPENAI_API_KEY)"
)


def _not_json(url: str, what: str) -> ModelCallError:
    return ModelCallError(f"{url} answered {what}: is it a model server?", kind=FailureKind.SERVER, status=200,
                          fix=_SERVER_FIX)  # fmt: skip
