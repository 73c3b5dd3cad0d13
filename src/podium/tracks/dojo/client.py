"""A solver's side of the dojo's HTTP API: submit a ``solver.py`` to a server (``podium dojo submit --server URL``).

Contestants have a token and a server address, not the server's database, so this is how they submit from their
own machine. It uses the standard library alone (no SQLAlchemy, no HTTP client package), so the command starts
in a fraction of the database path's time. The server's refusals come back as podium's errors of the same kind
(``podium.core.errors``): its message and fix on one line, and the exit code the error tree gives.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

from podium.core.errors import (
    AuthError,
    ConflictError,
    InputError,
    NotFoundError,
    PermissionDenied,
    PodiumError,
)

TIMEOUT_S = 60.0
ATTEMPTS = 4
RETRY_PAUSE_S = 1.0  # then 2 s and 4 s: a server restart takes a few seconds
RETRIED_STATUSES = frozenset({502, 503, 504})  # a proxy or a server that is restarting: the post may not have landed
ERROR_OF_STATUS: dict[int, type[PodiumError]] = {
    400: InputError,
    401: AuthError,
    403: PermissionDenied,
    404: NotFoundError,
    409: ConflictError,
    413: InputError,
    422: InputError,
}


def submissions_url(server: str, slug: str) -> str:
    """Where a problem's submissions are posted, from a server's address.

    ``http://host:8000`` and the pages' address ``http://host:8000/dojo`` both work.
    """
    base = server.rstrip("/")
    if not base.endswith("/dojo"):
        base += "/dojo"
    return f"{base}/api/problems/{urllib.parse.quote(slug, safe='')}/submissions"


def submit_over_http(
    server: str,
    token: str,
    slug: str,
    source: str,
    solution: Any | None,
    *,
    attempts: int = ATTEMPTS,
    pause_s: float = RETRY_PAUSE_S,
) -> dict[str, Any]:
    """POST a submission; the server's receipt, or the server's refusal raised as a podium error.

    Every attempt sends one ``Idempotency-Key``, made once per submission: a post the server stored before the
    connection broke (a restart, a dropped answer) is answered with its first receipt when it is sent again, so
    retrying after a network failure or a 502/503/504 never submits twice. Up to ``attempts`` tries, ``pause_s``
    apart and doubling; a refusal (4xx) is final at once.
    """
    url = submissions_url(server, slug)
    body = json.dumps({"source": source, "solution": solution}).encode("utf-8")
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    failure = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(pause_s * 2 ** (attempt - 1))
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                receipt: dict[str, Any] = json.load(answer)
                return receipt
        except urllib.error.HTTPError as refusal:
            if refusal.code not in RETRIED_STATUSES:
                raise _refusal(refusal) from None
            failure = f"HTTP {refusal.code}"
        except (urllib.error.URLError, OSError) as error:
            failure = str(getattr(error, "reason", error))
    raise PodiumError(
        f"cannot reach the dojo server at {server} ({attempts} attempt(s)): {failure}",
        fix="check the address (--server or PODIUM_DOJO_SERVER) and that `podium serve` runs there; sending again "
        "is safe only as a new submission",
    )


def _refusal(refusal: urllib.error.HTTPError) -> PodiumError:
    try:
        answer = json.loads(refusal.read() or b"{}")
    except ValueError:
        answer = {}
    message = answer.get("error") or answer.get("detail") or refusal.reason
    if not isinstance(message, str):
        message = json.dumps(message)[:500]  # FastAPI's validation details are a list
    kind = ERROR_OF_STATUS.get(refusal.code, PodiumError)
    fix = answer.get("fix") if isinstance(answer.get("fix"), str) else None
    return kind(f"the server refused the submission (HTTP {refusal.code}): {message}", fix=fix)
