"""Test modules mirror the package, so a module's tests are found from its path and a test's subject from its own.

The tests of ``src/podium/<path>/<name>.py`` (or of the package ``src/podium/<path>/<name>/``) are
``tests/<path>/test_<name>.py``. A test of several modules, a whole flow, a browser session or a red team's attacks
lives under ``tests/integration/<area>/`` instead. ``tests/tools/`` mirrors the repository's ``tools/`` (the
classifier's training tools, not installed) the same way. Every folder holding test modules is a package, since
tests import each other's helpers as ``tests.…``.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
INTEGRATION = Path("integration")
# a folder of tests and the source folder it mirrors (both relative: to tests/ and to the repository); first match
MIRRORS = ((Path("tools"), Path("tools")), (Path(), Path("src/podium")))


def homes(root: Path, name: str) -> list[Path]:
    """The folders under ``root`` (relative to it) that hold a module ``<name>.py`` or a package ``<name>/``."""
    modules = [path.parent for path in root.rglob(f"{name}.py")]
    packages = [init.parent.parent for init in root.rglob(f"{name}/__init__.py")]
    return sorted({folder.relative_to(root) for folder in modules + packages})


def offence(test: Path, repo: Path = REPO) -> str | None:
    """What is wrong with the place of the test module ``test`` (relative to ``tests/``), with the fix; or None."""
    if test.is_relative_to(INTEGRATION):
        return None
    tests_root, source_root = next((t, s) for t, s in MIRRORS if test.is_relative_to(t))
    folder, name = test.parent.relative_to(tests_root), test.stem.removeprefix("test_")
    source = source_root / folder
    if not (repo / source / "__init__.py").is_file():
        problem = f"{source.as_posix()}/ is not a package"
    elif (repo / source / f"{name}.py").is_file() or (repo / source / name / "__init__.py").is_file():
        return None
    else:
        problem = f"no {source.as_posix()}/{name}.py or {name}/"
    beside = [f"tests/{(tests_root / home / test.name).as_posix()}" for home in homes(repo / source_root, name)]
    fix = f"move it beside its module ({' or '.join(beside)})" if beside else "rename it after the module it tests"
    return (
        f"tests/{test.as_posix()}: {problem}: {fix}; split it if it tests several modules, or move it to "
        f"tests/{(INTEGRATION / folder).as_posix()}/ if it is cross-cutting"
    )


def modules_of_tests() -> list[Path]:
    """Every test module, relative to ``tests/``."""
    return sorted(path.relative_to(TESTS) for path in TESTS.rglob("test_*.py"))


def test_every_test_module_mirrors_its_module_or_is_an_integration_test() -> None:
    offenders = [found for test in modules_of_tests() if (found := offence(test))]
    assert not offenders, "test modules out of place:\n" + "\n".join(offenders)


def test_every_folder_of_test_modules_is_a_package() -> None:
    inits = sorted({TESTS / test.parent / "__init__.py" for test in modules_of_tests()})
    assert [init.relative_to(REPO).as_posix() for init in inits if not init.is_file()] == []


def test_the_rule_passes_mirrored_tests_and_names_the_fix_for_the_others(tmp_path: Path) -> None:
    for module in ("src/podium/__init__.py", "src/podium/core/__init__.py", "src/podium/core/clock.py",
                   "src/podium/core/llm/__init__.py", "src/podium/core/storage/__init__.py",
                   "src/podium/core/storage/backup.py", "tools/__init__.py", "tools/kit/__init__.py",
                   "tools/kit/letters.py"):  # fmt: skip
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).touch()
    for fine in ("core/test_clock.py", "core/test_llm.py", "core/storage/test_backup.py", "tools/kit/test_letters.py",
                 "integration/core/test_sql_services.py"):  # fmt: skip
        assert offence(Path(fine), tmp_path) is None, fine
    assert offence(Path("tracks/pcg/test_anything.py"), tmp_path) is not None  # no such package
    assert offence(Path("core/test_backup.py"), tmp_path) == (
        "tests/core/test_backup.py: no src/podium/core/backup.py or backup/: move it beside its module "
        "(tests/core/storage/test_backup.py); split it if it tests several modules, or move it to "
        "tests/integration/core/ if it is cross-cutting"
    )
    assert offence(Path("test_letters.py"), tmp_path) is not None  # tools/ is mirrored under tests/tools/ only
    behaviour = offence(Path("core/test_sandbox_isolation.py"), tmp_path)
    assert behaviour is not None and "rename it after the module it tests" in behaviour
    assert "tests/integration/core/" in behaviour
    nowhere = offence(Path("nowhere/test_clock.py"), tmp_path)
    assert nowhere is not None and "src/podium/nowhere/ is not a package" in nowhere
    assert "tests/core/test_clock.py" in nowhere
