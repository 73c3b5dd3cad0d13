"""A plain (non-editable) install works: the wheel carries every runtime file, and podium runs from it.

The wheel is built offline from this checkout, installed without its dependencies into a fresh virtual
environment, and given the test environment's dependencies through a path file (never this checkout's
``src/``); then ``podium pcg evaluate`` runs on the bundled example from another folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# the installed wheel must be what runs: no source tree put first on the path by the caller
CLEAN_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
EXAMPLE = REPO / "examples" / "pcg-2023-unity"

# Runtime files that are not Python modules; a wheel without them installs but fails at run time.
RUNTIME_FILES = (
    "podium/py.typed",
    "podium/tracks/pcg/classifiers/letter_cnn.npz",
    "podium/tracks/pcg/agreement.json",
    "podium/tracks/pcg/report.js",
    "podium/tracks/pcg/rules/native/box2d_run.cpp",
    "podium/tracks/pcg/rules/native/profile_clock.cpp",
    "podium/tracks/dojo/migrations/script.py.mako",
    "podium/tracks/dojo/migrations/versions/0001_initial.py",
    "podium/tracks/wmeval/migrations/script.py.mako",
    "podium/tracks/wmeval/migrations/versions/0001_initial.py",
    "podium/tracks/wmeval/rubric.txt",
    "podium/tracks/wmeval/annotate.js",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    shutil.copytree(REPO, build / "src-tree", ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "build"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), "."],
        cwd=build / "src-tree",
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("podium-*.whl")
    return found


def test_the_wheel_carries_every_runtime_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in RUNTIME_FILES if name not in names]
    assert not missing, f"{wheel.name} lacks {missing}"
    assert not [n for n in names if n.startswith(("tests/", "tools/", "benchmarks/"))], "only the package ships"


@pytest.mark.slow
def test_podium_evaluates_the_example_from_an_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=300, env=CLEAN_ENV)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, env=CLEAN_ENV,
    ).stdout.strip()  # fmt: skip
    # the dependencies (NumPy, Box2D, ...) from the test environment; its editable podium is not on that path
    (Path(site) / "podium-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    where = subprocess.run(
        [str(python), "-c", "import podium; print(podium.__file__)"],
        check=True, capture_output=True, text=True, env=CLEAN_ENV,
    ).stdout.strip()  # fmt: skip
    assert Path(where).is_relative_to(venv), f"podium imported from {where}, not from the installed wheel"

    root = tmp_path / "competition"
    shutil.copytree(EXAMPLE, root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [str(venv / "bin" / "podium"), "pcg", "evaluate", str(root), "--edition", "2023", "--workers", "2"],
        cwd=elsewhere, capture_output=True, text=True, timeout=600, check=False, env=CLEAN_ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert (root / "result" / "prompt_scores_ranks.csv").is_file()
    assert (root / "result" / "report.html").is_file()
    assert len(list((root / "v1" / "similarity").glob("*.json"))) == 3
