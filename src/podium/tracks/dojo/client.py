"""A solver's side of the dojo's HTTP API: submit a ``solver.py`` to a server (``podium dojo submit --server URL``).

Contestants have a token and a server address, not the server's database, so this is how they submit from their
own machine. It uses the standard library alone (no SQLAlchemy, no HTTP client package), so the command starts
in a fraction of the database path's time. The server's refusals come back as podium's errors of the same kind
(``podium.core.errors``): its message and fix on one line, and the exit code the error tree gives.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
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


def submit_over_http(server: str, token: str, slug: str, source: str, solution: Any | None) -> dict[str, Any]:
    """POST a submission; the server's receipt, or the server's refusal raised as a podium error."""
    url = submissions_url(server, slug)
    body = json.dumps({"source": source, "solution": solution}).encode("utf-8")
    request = urllib.request.Request(
        url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            receipt: dict[str, Any] = json.load(answer)
            return receipt
    except urllib.error.HTTPError as refusal:
        raise _refusal(refusal) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise PodiumError(
            f"cannot reach the dojo server at {server}: {reason}",
            fix="check the address (--server or PODIUM_DOJO_SERVER) and that `podium serve` runs there",
        ) from None


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
