"""The closed set of verdicts of the PCG track, with the official messages where one exists."""

from __future__ import annotations

from podium.core.records import Verdict


class PcgVerdict(Verdict):
    """Why an item of the PCG pipeline passed or failed a stage."""

    OK = "ok"
    # resumability: the output is current, so the item was not judged again (stage logs only)
    SKIPPED = "skipped"
    # qualification (2023)
    TOO_MANY_WORDS = "too_many_words"
    DISALLOWED_CHARACTERS = "disallowed_characters"
    NO_OBJECT_TOKEN = "no_object_token"
    # extraction
    CODE_NOT_FOUND = "code_not_found"
    # text -> XML conversion (the official converter's three errors)
    UNKNOWN_BLOCK_TYPE = "unknown_block_type"
    WIDTH_BOUNDARY = "width_boundary"
    HEIGHT_BOUNDARY = "height_boundary"
    # simulation
    EMPTY_LEVEL = "empty_level"
    # any stage
    UNREADABLE_INPUT = "unreadable_input"
    MALFORMED_INPUT = "malformed_input"


OFFICIAL_MESSAGES: dict[PcgVerdict, str] = {
    PcgVerdict.CODE_NOT_FOUND: "Code not found.",
    PcgVerdict.UNKNOWN_BLOCK_TYPE: "BlockType does not exist.",
    PcgVerdict.WIDTH_BOUNDARY: "Width boundary is intruded.",
    PcgVerdict.HEIGHT_BOUNDARY: "Height boundary is intruded.",
}
