from __future__ import annotations

import subprocess
import sys
from pathlib import Path


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
    example = Path(__file__).resolve().parents[1] / "examples" / "pcg-2023-unity"
    root = tmp_path / "demo"
    subprocess.run(["cp", "-r", str(example), str(root)], check=True)
    assert podium("pcg", "extract", str(root), "--edition", "2023").returncode == 0
    build = podium("pcg", "build", str(root), "--edition", "2023")
    assert "138 ok, 12 width_boundary" in build.stdout
    score = podium("pcg", "score", str(root), "--edition", "2023", "--format", "csv")
    assert score.returncode == 0
    teams = [line.split(",")[1] for line in score.stdout.splitlines()[1:]]
    assert sorted(teams) == ["v1", "v2", "v3", "v4", "v5"]
