"""The one order of a track's database: ``--db`` > ``PODIUM_<TRACK>_DB`` > ``PODIUM_DB`` > the default."""

from __future__ import annotations

import pytest

from podium.core.storage.database_choice import DEFAULT_DB_URL, choose_database, masked

EVERY = {"PODIUM_DB": "sqlite:///shared.sqlite3", "PODIUM_DOJO_DB": "sqlite:///dojo.sqlite3"}


@pytest.mark.parametrize(
    ("given", "environ", "url", "source"),
    [
        ("sqlite:///given.sqlite3", EVERY, "sqlite:///given.sqlite3", "--db"),
        (None, EVERY, "sqlite:///dojo.sqlite3", "PODIUM_DOJO_DB"),
        (None, {"PODIUM_DB": "sqlite:///shared.sqlite3"}, "sqlite:///shared.sqlite3", "PODIUM_DB"),
        (None, {"PODIUM_WMEVAL_DB": "sqlite:///wm.sqlite3"}, DEFAULT_DB_URL, "the default"),  # another track's
        ("", {"PODIUM_DOJO_DB": "", "PODIUM_DB": "sqlite:///shared.sqlite3"}, "sqlite:///shared.sqlite3", "PODIUM_DB"),
        (None, {}, DEFAULT_DB_URL, "the default"),
    ],
)
def test_the_specific_setting_beats_the_general(
    given: str | None, environ: dict[str, str], url: str, source: str
) -> None:
    choice = choose_database("dojo", given, environ)
    assert (choice.url, choice.source) == (url, source)


def test_a_setting_that_names_another_database_and_loses_is_named_with_its_password_masked() -> None:
    environ = {"PODIUM_DB": "postgresql+psycopg://ops:hunter2@db.example/all", "PODIUM_DOJO_DB": "sqlite:///d.db"}
    notice = choose_database("dojo", None, environ).notice()
    assert notice is not None and "hunter2" not in notice
    assert notice.startswith("note: dojo uses the database sqlite:///d.db from PODIUM_DOJO_DB; not used: ")
    assert "PODIUM_DB=postgresql+psycopg://ops:***@db.example/all" in notice
    same = {"PODIUM_DB": "sqlite:///d.db", "PODIUM_DOJO_DB": "sqlite:///d.db"}
    assert choose_database("dojo", None, same).notice() is None  # agreeing settings need no word
    assert choose_database("dojo", None, {"PODIUM_DB": "sqlite:///d.db"}).notice() is None


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql+psycopg://ops:p%40ss:w@host:5432/db", "postgresql+psycopg://ops:***@host:5432/db"),
        ("postgresql://ops@host/db", "postgresql://ops@host/db"),  # no password
        ("postgresql://:secret@host/db", "postgresql://:***@host/db"),
        ("sqlite:////srv/podium.sqlite3", "sqlite:////srv/podium.sqlite3"),
        ("sqlite:///./a:b@c.sqlite3", "sqlite:///./a:b@c.sqlite3"),  # a path, not a password
    ],
)
def test_masked_hides_only_a_password(url: str, shown: str) -> None:
    assert masked(url) == shown
