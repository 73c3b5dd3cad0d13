"""The operator commands' role choices are the values of the platform's roles."""

from __future__ import annotations

from podium.tracks.dojo.operator_cli import ROLES
from podium.tracks.dojo.records import Role


def test_the_cli_role_choices_are_the_platforms_roles() -> None:
    assert sorted(ROLES) == sorted(role.value for role in Role)
