"""Every JSON the dojo gives, from the command line and the HTTP API, has JSON's own types.

A number is a number and a yes/no is a boolean: the season leaderboard's ``median_L`` once came out of the command
line as ``"31"`` while the API said ``31``. One walk over every JSON output of a revealed season checks it.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.cli import dojo as dojo_cli
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.worker import work
from tests.needs import need_module
from tests.tracks.dojo.test_platform import GOLF, LOOP, STAGE_ONLY
from tests.tracks.dojo.test_users import T0, open_season

LOOKS_NUMERIC = re.compile(r"-?\d+(\.\d+)?")
TERMS = ("visible_terms", "terms")  # sequence terms are decimal strings on purpose: integers of any size
HEX = ("_hex", "_hash", "_commit", "head")  # digests and salts in hex may happen to hold only digits


def disguised(value: Any, where: str = "$") -> list[str]:
    """Every string that is a number or a yes/no in disguise, by its path."""
    if isinstance(value, dict):
        kept = {key: item for key, item in value.items() if key not in TERMS and not key.endswith(HEX)}
        return [found for key, item in kept.items() for found in disguised(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [found for i, item in enumerate(value) for found in disguised(item, f"{where}[{i}]")]
    if isinstance(value, str) and (LOOKS_NUMERIC.fullmatch(value) or value in ("yes", "no")):
        return [f"{where} = {value!r}"]
    return []


def test_every_json_output_of_the_cli_and_the_api_has_json_types(tmp_path: Path, bubblewrap: Sandbox) -> None:
    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    url = sqlite_url(tmp_path / "dojo.sqlite3")
    platform, clock = open_season(url, bubblewrap)
    ann, ann_token = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    _, ops_token = platform.add_user("ops", Role.OPERATOR)
    for user, source in ((ann, GOLF), (bob, LOOP), (bob, STAGE_ONLY)):
        platform.submit(user, "fib", source)

    def cli(*args: str) -> Any:
        result = CliRunner().invoke(dojo_cli, [*args, "--db", url], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    waiting = cli("queue", "--format", "json")  # before the workers take it
    work(platform, bubblewrap)
    clock.set(T0 + timedelta(hours=5))
    platform.tick()
    platform.tick()  # frozen, then revealed

    outputs = {
        "user list": cli("user", "list", "--format", "json"),
        "submissions": cli("submissions", "--format", "json"),
        "queue": waiting,
        "leaderboard --problem": cli("leaderboard", "--problem", "fib", "--format", "json"),
        "leaderboard --season": cli("leaderboard", "--season", "s1", "--format", "json"),
        "scoreboard": cli("scoreboard", "--season", "s1", "--format", "json"),
    }
    problem_dir = tmp_path / "fib"
    problem_dir.mkdir()
    (problem_dir / "setter.py").write_bytes(b"a,b=0,1\nfor _ in range(300):print(a);a,b=b,a+b\n")
    (tmp_path / "solver.py").write_bytes(GOLF)
    judged = CliRunner().invoke(dojo_cli, ["judge", str(tmp_path / "solver.py"), "--problem", str(problem_dir),
                                           "--json"], catch_exceptions=False)  # fmt: skip
    outputs["judge --json"] = json.loads(judged.output)

    ann_header, ops_header = {"authorization": f"Bearer {ann_token}"}, {"authorization": f"Bearer {ops_token}"}
    with TestClient(create_app({"db": url}, only={"dojo"}), base_url="http://testserver/dojo") as client:
        for path in ("/api/problems", "/api/problems/fib", "/api/me/submissions", "/api/problems/fib/leaderboard",
                     "/api/problems/fib/tags", "/api/problems/fib/payloads", "/api/seasons/s1/leaderboard",
                     "/api/audit/head", "/api/submissions/1", "/api/seasons/s1/scoreboard"):  # fmt: skip
            answer = client.get(path, headers=ann_header)
            assert answer.status_code == 200, (path, answer.text)
            outputs[path] = answer.json()
        outputs["/api/users"] = client.get("/api/users", headers=ops_header).json()

    assert all(outputs.values()), [name for name, out in outputs.items() if not out]
    assert outputs["leaderboard --season"][0]["median_L"] == outputs["/api/seasons/s1/leaderboard"][0]["median_L"]
    found = [f"{name}: {where}" for name, out in outputs.items() for where in disguised(out)]
    assert found == []
