"""A dojo run sees the Python interpreter of the host and its season's allow-list, not the rest of ``/usr``.

Every file a run can read is one a later run could find in the page cache, so a dojo program's box holds only the
binary, the standard library and the shared libraries they load (``root.py``). The program still imports what
solvers import, extension modules with libraries of their own included; a season may allow a host path more.
"""

from __future__ import annotations

import json
import os

import pytest

from podium.core.execution.sandbox import FilterProfile, Limits, RunRequest, RunStatus, Sandbox

PYTHON = ("python3", "-s", "-S", "-P", "-B", "solver.py")
LIMITS = Limits(cpu_time_s=5.0, wall_time_s=15.0)

PROBE = """
import json, os, sys
seen = {path: os.path.exists(path) for path in sys.argv[1:]}
import decimal, fractions, hashlib, itertools, lzma, math, sqlite3, ctypes, bz2, zlib, functools
hashlib.sha256(b'x').hexdigest()
sqlite3.connect(':memory:').execute('select 1').fetchone()
print(json.dumps({'seen': seen, 'digits': str(decimal.Decimal(2).sqrt())[:8], 'ls': os.listdir('/usr')}))
"""
OUTSIDE = ("/usr/share", "/usr/bin/env", "/usr/local", "/usr/include", "/usr/lib/python3/dist-packages")
INSIDE = ("/usr/bin/python3", "/usr/lib")


def _probe(sandbox: Sandbox, paths: tuple[str, ...], host_paths: tuple[str, ...] | None) -> dict[str, object]:
    argv = (*PYTHON[:-1], "probe.py", *paths)
    result = sandbox.run(
        RunRequest(
            argv=argv,
            files={"probe.py": PROBE.encode()},
            limits=LIMITS,
            profile=FilterProfile.SOLVER,
            host_paths=host_paths,
        )
    )
    assert result.status is RunStatus.OK, (result.detail, result.stderr_tail.decode(errors="replace"))
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_a_solver_box_holds_the_interpreter_and_nothing_else_of_usr(sandbox: Sandbox) -> None:
    present = tuple(path for path in OUTSIDE if os.path.exists(path))
    assert present, "the host has none of the paths this test looks for"
    answer = _probe(sandbox, (*present, *INSIDE), host_paths=())
    assert answer["seen"] == {**dict.fromkeys(present, False), **dict.fromkeys(INSIDE, True)}
    assert answer["digits"] == "1.414213"
    assert "share" not in answer["ls"]  # type: ignore[operator]


def test_the_whole_layout_is_what_a_request_without_an_allow_list_gets(sandbox: Sandbox) -> None:
    present = tuple(path for path in OUTSIDE if os.path.exists(path) and not path.startswith("/usr/local"))
    answer = _probe(sandbox, present, host_paths=None)
    assert answer["seen"] == dict.fromkeys(present, True)


def test_a_season_allow_list_adds_a_host_path(sandbox: Sandbox) -> None:
    allowed = "/usr/share/zoneinfo" if os.path.isdir("/usr/share/zoneinfo") else "/usr/share"
    if not os.path.isdir(allowed):
        pytest.skip(f"the host has no {allowed}")
    answer = _probe(sandbox, (allowed, "/usr/bin/env"), host_paths=(allowed,))
    assert answer["seen"] == {allowed: True, "/usr/bin/env": False}
