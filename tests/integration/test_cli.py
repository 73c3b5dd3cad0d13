from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def podium(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "podium", *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=60
    )


def test_help_lists_the_pcg_track() -> None:
    result = podium("--help")
    assert result.returncode == 0 and "pcg" in result.stdout


def test_input_errors_print_the_fix_and_exit_2(tmp_path: Path) -> None:
    result = podium("pcg", "extract", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'missing'}: competition root does not exist")
    assert "fix: " in result.stderr and "Traceback" not in result.stderr
    empty = podium("pcg", "score", str(tmp_path))
    assert empty.returncode == 2 and "no team folders found" in empty.stderr


def test_unknown_edition_is_a_usage_error(tmp_path: Path) -> None:
    result = podium("pcg", "build", str(tmp_path), "--edition", "2022")
    assert result.returncode == 2 and "2022" in result.stderr


def test_the_demo_example_scores_the_five_2023_prompts(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "pcg-2023-unity"
    root = tmp_path / "demo"
    subprocess.run(["cp", "-r", str(example), str(root)], check=True)
    assert podium("pcg", "extract", str(root), "--edition", "2023").returncode == 0
    build = podium("pcg", "build", str(root), "--edition", "2023")
    assert "138 ok, 12 width_boundary" in build.stdout
    score = podium("pcg", "score", str(root), "--edition", "2023", "--format", "csv")
    assert score.returncode == 0
    teams = [line.split(",")[1] for line in score.stdout.splitlines()[1:]]
    assert sorted(teams) == ["v1", "v2", "v3", "v4", "v5"]


HEAVY_MODULES = (
    "numpy", "sqlalchemy", "PIL", "Box2D", "fastapi", "torch", "podium.tracks.pcg.cli", "podium.tracks.dojo.cli"
)  # fmt: skip


def test_help_imports_no_track_dependency() -> None:
    probe = (
        "import sys\n"
        "from podium.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert "pcg" in result.stdout and "dojo" in result.stdout
    assert result.stdout.strip().endswith("LOADED []"), result.stdout[-300:]


def _without_box2d(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import Box2D`` fails, as on a machine where its wheel is broken."""
    broken = tmp_path / "shadow" / "Box2D"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('Box2D is broken here (test)')\n")
    return {**os.environ, "PYTHONPATH": f"{broken.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def test_a_track_that_cannot_load_leaves_the_others_working(tmp_path: Path) -> None:
    env = _without_box2d(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "podium", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=60)

    assert run("dojo", "--help").returncode == 0
    listing = run("--help")
    assert listing.returncode == 0 and "pcg" in listing.stdout and "dojo" in listing.stdout
    broken = run("pcg", "simulate", str(tmp_path))
    assert broken.returncode == 3, broken.stderr
    assert broken.stderr.startswith("error: track 'pcg' cannot be loaded: ImportError: Box2D is broken here (test)")
    assert "Traceback" not in broken.stderr and len(broken.stderr.splitlines()) == 2  # the error and its fix


def test_a_broken_plug_in_is_one_line_in_the_listing(tmp_path: Path) -> None:
    # A third-party track whose module does not import: installed metadata only, found on PYTHONPATH.
    info = tmp_path / "site" / "broken_track-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-track\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[podium.tracks]\nbroken = no_such_module_for_podium:TRACK\n")
    env = {**os.environ, "PYTHONPATH": f"{info.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "podium", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=60)

    listing = run("--help")
    assert listing.returncode == 0 and "(unavailable) track 'broken' cannot be loaded" in listing.stdout
    assert run("pcg", "--help").returncode == 0
    used = run("broken", "anything")
    assert used.returncode == 3 and "ModuleNotFoundError" in used.stderr and "Traceback" not in used.stderr


def test_the_server_names_a_track_it_cannot_load_and_serves_the_others(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="needs the web extra")
    info = tmp_path / "site" / "broken_track-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-track\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[podium.tracks]\nbroken = no_such_module_for_podium:TRACK\n")
    env = {**os.environ, "PYTHONPATH": f"{info.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    probe = (
        "from podium.web.app import create_app\n"
        f"app = create_app({{'db': 'sqlite:///{tmp_path / 'db.sqlite3'}'}})\n"
        "from fastapi.testclient import TestClient\n"
        "client = TestClient(app)\n"
        "print(client.get('/dojo/api/problems').status_code, client.get('/wmeval/').status_code)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "200" and result.stdout.split()[1] != "404"  # both tracks are served
    assert result.stderr.startswith("warning: not serving it: track 'broken' cannot be loaded: ModuleNotFoundError")
