"""A run follows the edition whose official package its programs import; a conflict is an error."""

from __future__ import annotations

import pytest

from podium.core.errors import ConfigError
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.generation.edition_choice import choose_edition, imported_packages
from podium.tracks.pcg.generation.submission import Program

V2024 = Program.of_file("cot.py", b"from chatgpt4pcg.competition import chat_with_chatgpt\nimport os\n")
V2025 = Program.of_file("tot.py", b"import llms4pcg.competition as c\n")
NEITHER = Program.of_file("plain.py", b"import json\n")
BOTH = Program.of_file("both.py", b"import chatgpt4pcg\nfrom llms4pcg import competition\n")


def test_the_package_a_program_imports_decides_the_edition() -> None:
    assert imported_packages(V2024) == {"chatgpt4pcg"} and imported_packages(NEITHER) == set()
    chosen = choose_edition([("cot", V2024)], edition(2025), explicit=False)  # 2025 is the default
    assert chosen.edition.year == 2024 and chosen.reason == "the program imports chatgpt4pcg"
    assert chosen.edition.generation.seed == 42  # what a 2024 entry run under 2025's rules would not send
    assert choose_edition([("cot", V2024)], edition(2024), explicit=True).edition.year == 2024
    assert choose_edition([("plain", NEITHER)], edition(2024), explicit=True).edition.year == 2024
    assert choose_edition([], edition(2025), explicit=False).reason == "the default"


def test_an_edition_given_against_the_package_or_mixed_packages_are_errors() -> None:
    with pytest.raises(ConfigError, match="--edition 2025 was given, but the program imports chatgpt4pcg") as error:
        choose_edition([("cot", V2024)], edition(2025), explicit=True)
    assert error.value.fix is not None and "--edition 2024" in error.value.fix
    with pytest.raises(ConfigError, match="cot imports chatgpt4pcg; tot imports llms4pcg"):
        choose_edition([("cot", V2024), ("tot", V2025)], edition(2025), explicit=False)
    with pytest.raises(ConfigError, match="both: imports both chatgpt4pcg and llms4pcg"):
        choose_edition([("both", BOTH)], edition(2025), explicit=False)
