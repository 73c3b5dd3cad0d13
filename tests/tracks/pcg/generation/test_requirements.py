"""Installing a team's requirements for the sandbox's interpreter: for real, with pip, from a wheelhouse made here."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.execution.sandbox.packages import InstallOptions
from podium.tracks.pcg.generation import requirements
from podium.tracks.pcg.generation.requirements import RequirementError, prepare_environment
from tests.tracks.pcg.wheelhouse import REQUIREMENT, make_wheelhouse


@pytest.fixture
def wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> InstallOptions:
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")  # this machine's pip settings play no part
    return InstallOptions((make_wheelhouse(tmp_path / "wheels"),), no_index=True)


def test_an_install_is_published_readable_by_anyone_and_reused(
    wheels: InstallOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = prepare_environment(["chatgpt4pcg~=1.2.1", REQUIREMENT, "openai==1.55.0"], wheels)
    assert first.installed == ("pcg-prompt-kit==0.1.0",)
    assert first.answered_by_podium == ("chatgpt4pcg~=1.2.1", "openai==1.55.0")
    assert first.folder is not None and (first.folder / "pcg_prompt_kit" / "__init__.py").stat().st_mode & 0o004
    assert first.folder.stat().st_mode & 0o777 == 0o755 and first.python.startswith("3.")
    monkeypatch.setattr(requirements, "install", lambda *args: pytest.fail("installed again"))
    again = prepare_environment([REQUIREMENT, "llms4pcg==2.0.1"], wheels)  # same set to install: same folder
    assert (again.folder, again.key) == (first.folder, first.key)


def test_only_official_packages_install_nothing(wheels: InstallOptions) -> None:
    environment = prepare_environment(["llms4pcg==2.0.1"], wheels)
    assert environment.folder is None and environment.installed == () and environment.key == ""
    assert "installed nothing; answered by podium's stand-ins: llms4pcg==2.0.1" in environment.summary()


def test_a_new_wheel_in_the_wheelhouse_is_a_new_environment(wheels: InstallOptions) -> None:
    before = prepare_environment([REQUIREMENT], wheels)
    (wheels.find_links[0] / "other-0.1-py3-none-any.whl").write_bytes(b"not really a wheel")
    after = prepare_environment([REQUIREMENT], wheels)
    assert after.key != before.key and after.installed == before.installed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no-such-package-podium==9.9", "requirement no-such-package-podium==9.9 cannot be installed"),
        ("--index-url=https://evil.example/simple", "is not a package requirement podium installs"),
        ("git+https://github.com/x/y.git", "is not a package requirement podium installs"),
        ("./vendored/pkg", "is not a package requirement podium installs"),
    ],
)
def test_a_requirement_that_cannot_be_installed_says_which_and_how_to_fix_it(
    wheels: InstallOptions, spec: str, message: str
) -> None:
    with pytest.raises(RequirementError, match=message) as raised:
        prepare_environment([REQUIREMENT, spec], wheels)
    assert raised.value.fix is not None and "--find-links" in raised.value.fix


def test_a_source_only_package_is_never_built(tmp_path: Path, wheels: InstallOptions) -> None:
    """An sdist's setup.py would run on the judge: wheels only, so the install fails and nothing ran."""
    import io
    import tarfile

    marker = tmp_path / "setup-ran"
    setup = (
        f"open({str(marker)!r}, 'w').write('ran')\nfrom setuptools import setup\nsetup(name='evilpkg', version='1.0')\n"
    )
    with tarfile.open(wheels.find_links[0] / "evilpkg-1.0.tar.gz", "w:gz") as archive:
        for name, text in {
            "evilpkg-1.0/setup.py": setup,
            "evilpkg-1.0/PKG-INFO": "Name: evilpkg\nVersion: 1.0\n",
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    with pytest.raises(RequirementError, match="evilpkg"):
        prepare_environment(["evilpkg==1.0"], wheels)
    assert not marker.exists()
