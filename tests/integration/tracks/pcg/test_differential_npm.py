"""Differential test: podium's Python ports against the official npm package ``chatgpt4pcg@1.4.1``.

The npm package is a black box: ``oracle_bridge.js`` only calls its exported functions (one ``node`` process for
every case). Inputs are generated deterministically (fixed seeds, no network): realistic LLM responses and
prompts, and adversarial ones (fences, quotes, spacing, unicode digits and letters, every kind of whitespace,
astral characters, CRLF, very long texts). Every case is compared; all mismatches are reported together.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from podium.core.records import StageFailure
from podium.tracks.pcg.official.levelxml import level_xml_text
from podium.tracks.pcg.rules.build import GridLevel, drop_blocks, parse_drop_calls
from podium.tracks.pcg.rules.extract import ExtractedCode, extract_code
from podium.tracks.pcg.rules.qualify import OBJECT_TOKEN, disallowed_characters
from podium.tracks.pcg.rules.wordcount import count_words

pytestmark = pytest.mark.oracle

REPO = Path(__file__).resolve().parents[4]
PCG_TESTS = REPO / "tests" / "tracks" / "pcg"  # the pcg tests' programs, submissions and bridge
ORACLE_ROOT = REPO / ".oracle"
ORACLE_PACKAGE = ORACLE_ROOT / "node_modules" / "chatgpt4pcg" / "package.json"
BRIDGE = PCG_TESTS / "oracle_bridge.js"
CASES_PER_FAMILY = 2400
LONG_TEXT = 200_000
FENCE = "```"
SHOWN_MISMATCHES = 8


# ---------------------------------------------------------------------------------------------------------------
# Character material
# ---------------------------------------------------------------------------------------------------------------

# words-count 2.0.2 deletes these (docs/rules/pcg.md §1.1); the generator uses them so that deletion is exercised.
WORDS_COUNT_DELETED = ",，.。:：;；[]【】{｛}｝(（)）<《>》$￥!！?？~～'’\"“”*/\\&%@#^、"
ALLOWED_SYMBOLS = "~/\\+-*`'\".!@#$%^&()_=[]{}|<>:;?,—“”‘’"
WHITESPACE = [
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\v",
    "\f",
    "\u00a0",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\u3000",
    "\u1680",
    "\u180e",
    "\u0085",
    "\u2000",
    "\u2003",
    "\u2007",
    "\u200a",
    "\u200b",
    "\u202f",
    "\u205f",
    "\u2060",
]
UNICODE_DIGITS = "٠١٢٣٤٥٦٧٨٩۰۳۹०३९০৩０１２３４５６７８９¹²³₃①⑶"
ASTRAL_DIGITS = ["𝟎", "𝟑", "𝟗", "𝟯", "𝟹", "𑁦", "𝍣"]
ODD_LETTERS = "İıßſKÅﬀﬁΣσςΐΰŉǰẞᾈᾼῼⅠⅰⒶⓐǅǈǋ"

# Code point ranges (inclusive) per character class; surrogates are never produced.
CLASS_RANGES: dict[str, list[tuple[int, int]]] = {
    "cjk": [
        (0x2E80, 0x2EFF),
        (0x2F00, 0x2FDF),
        (0x3000, 0x303F),
        (0x3040, 0x30FF),
        (0x3130, 0x318F),
        (0x3190, 0x319F),
        (0x31C0, 0x31EF),
        (0x31F0, 0x31FF),
        (0x3200, 0x33FF),
        (0x3400, 0x4DBF),
        (0x4E00, 0x9FFF),
        (0xA960, 0xA97F),
        (0xAC00, 0xD7FF),
        (0xF900, 0xFAFF),
        (0x1100, 0x11FF),
    ],
    "cyrillic": [(0x0400, 0x052F)],
    "latin1": [(0x00A0, 0x00FF)],
    "latin_ext": [(0x0100, 0x02AF), (0x1E00, 0x1EFF)],
    "malayalam": [(0x0D00, 0x0D7F)],
    "other_scripts": [(0x0370, 0x03FF), (0x05D0, 0x05EA), (0x0600, 0x06FF), (0x0E00, 0x0E5B), (0x0900, 0x097F)],
    "general_punctuation": [(0x2000, 0x206F)],
    "fullwidth": [(0xFF00, 0xFFEF), (0xFFF9, 0xFFFD)],
    "combining": [(0x0300, 0x036F)],
    "astral": [(0x1F300, 0x1F64F), (0x1F900, 0x1F9FF), (0x20000, 0x2A6DF), (0x1D400, 0x1D7FF), (0x10400, 0x1044F)],
}
# Code points on both sides of every range boundary the word counter and the character check care about.
RANGE_EDGES = sorted(
    {
        chr(point)
        for low, high in [
            *CLASS_RANGES["cjk"],
            (0x00C0, 0x024F),
            (0x0250, 0x02AF),
            (0x1E00, 0x1EFF),
            (0x0400, 0x052F),
            (0x0D00, 0x0D7F),
            (0x2000, 0x206F),
            (0xFF00, 0xFFEF),
        ]
        for point in (low - 1, low, high, high + 1)
        if not 0xD800 <= point <= 0xDFFF
    }
)
SIMPLE_POOLS: dict[str, str | list[str]] = {
    "ascii_letters": string.ascii_letters,
    "digits": string.digits,
    "ascii_punct": string.punctuation,
    "deleted_punct": WORDS_COUNT_DELETED,
    "allowed_symbols": ALLOWED_SYMBOLS,
    "whitespace": WHITESPACE,
    "unicode_digits": UNICODE_DIGITS,
    "astral_digits": ASTRAL_DIGITS,
    "odd_letters": ODD_LETTERS,
    "range_edges": RANGE_EDGES,
    "emoji": ["😀", "👍🏽", "❤️", "🇯🇵", "👨‍👩‍👧", "🧱", "🐦", "✨", "☃"],
}
ALL_CLASSES = [*SIMPLE_POOLS, *CLASS_RANGES]


def pick_char(rng: random.Random, cls: str) -> str:
    if cls in SIMPLE_POOLS:
        return rng.choice(SIMPLE_POOLS[cls])
    low, high = rng.choice(CLASS_RANGES[cls])
    point = rng.randint(low, high)
    return chr(point) if not 0xD800 <= point <= 0xDFFF else "\ud7ff"


def mixed_text(rng: random.Random, runs: int, classes: list[str], *, run_length: int = 6) -> str:
    """Runs of characters drawn from random classes, with random whitespace between some runs."""
    parts: list[str] = []
    for _ in range(runs):
        cls = rng.choice(classes)
        parts.append("".join(pick_char(rng, cls) for _ in range(rng.randint(1, run_length))))
        if rng.random() < 0.5:
            parts.append(rng.choice(WHITESPACE) if rng.random() < 0.3 else " ")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------------------------
# Realistic material: prose, prompts, drop calls, responses
# ---------------------------------------------------------------------------------------------------------------

SENTENCES = [
    "Sure! Here is the code to build the letter {c}:",
    "Let's construct the character “{c}” step by step — first the base, then the stem…",
    "I'll use b31 blocks for the horizontal parts and b13 blocks for the vertical ones.",
    "Note: the grid is 20 columns wide (slots 0–19), and blocks fall until they land.",
    "This structure should be stable 😊.",
    "Voici le caractère « {c} » construit avec des blocs en bois.",
    "这是字母{c}的结构，使用了三种积木。",
    "Вот буква {c}, построенная из блоков.",
    "Explanation:\n1. Place the base.\n2. Add the pillar.\n3. Cap it.",
    "Hope this helps! Let me know if you need any changes.",
    "The `drop_block` function drops a block at the given slot; `ab_drop` is the 2023 name.",
    "Here's the updated version (with fewer blocks):",
    "Ｆｕｌｌ－ｗｉｄｔｈ text and ｄｉｇｉｔｓ ３ and ٣ appear here.",
    "In Python, you'd write `drop_block('b11', 3)` for a tiny square.",
    "Output:\n\n",
    "I cannot draw {c} exactly, but this approximates it:",
    "The function signature is drop_block(block_type: str, x_position: int) -> None.",
    "Tabs\tand\tspaces\tare mixed here.",
    "Ünïcödé ẞtraße — naïve façade, 12.5% more ‘quoted’ text…",
    "한국어 문장도 있습니다. 日本語の文もあります。",
]
LETTERS = string.ascii_uppercase
BLOCK_TYPES = ["b11", "b13", "b31"]
ODD_BLOCK_TYPES = [
    "B11",
    "B31",
    "b33",
    "b12",
    "b1",
    "b111",
    "b|1",
    "b1|",
    "b||",
    "|11",
    "bb1",
    "b 11",
    "b11 ",
    "ｂ11",
    "b１1",
    "b٣1",
    "B13",
    "b21",
    "",
    "b3",
    "İ11",
]
QUOTES = ["'", '"', "|", "`", "‘", "’", "“", "”", "", "''"]
SEPARATORS = [
    ", ",
    ",",
    ",  ",
    ", \t",
    ",\t",
    " , ",
    " ,",
    ",\u00a0",
    ",\u3000",
    ",\n",
    ";",
    " ",
    ",\u180e",
    ",\ufeff",
    ",\u2028",
    ",\u0085",
    ",\v",
    ",\f",
    ",\u200b",
    ",\u1680",
]
ODD_SLOTS = [
    "",
    "-3",
    "-0",
    "+3",
    "03",
    "007",
    "3.0",
    "3.9",
    "1e3",
    "x",
    "x_position=3",
    "99999999999999999999999",
    "20",
    "21",
    "100",
    "٣",
    "３",
    "𝟑",
    "3 ",
    " 3",
    "3\t",
    "0x1",
    "NaN",
    "Infinity",
    "19",
    "0",
    "1_0",
    "４2",
    "2٣",
    "-1",
    "-20",
    "3,4",
    "x+1",
]
CLOSERS = [")", " )", "\t)", "", "))", ");", ")  # comment, with a comma", ") ", ")\r", "]"]


def call_prefixes(prefix: str) -> list[str]:
    return [
        prefix.upper(),
        prefix.title(),
        "my_" + prefix,
        " " + prefix,
        "\t" + prefix,
        "    " + prefix,
        prefix + " ",
        "self." + prefix,
        prefix.replace("_", ""),
        prefix.replace("k", "\u212a").replace("p", "P"),  # Kelvin sign lower-cases to 'k'
        prefix[:-1],
        "# " + prefix,
        "x = " + prefix,
    ]


def canonical_call(rng: random.Random, prefix: str, *, slot_range: tuple[int, int] = (0, 19)) -> str:
    kind = rng.choice(BLOCK_TYPES)
    low, high = slot_range
    if kind == "b31":
        low, high = max(low, 1), min(high, 18)
    quote = rng.choice(["'", "'", "'", '"'])
    separator = rng.choice([", ", ", ", ","])
    return f"{prefix}({quote}{kind}{quote}{separator}{rng.randint(low, high)})"


def mutated_call(rng: random.Random, prefix: str) -> str:
    """A drop call with one to three random deviations from the canonical form."""
    pfx, q1, kind, q2, sep, slot, close = prefix, "'", rng.choice(BLOCK_TYPES), "'", ", ", str(rng.randint(0, 19)), ")"
    for _ in range(rng.randint(1, 3)):
        part = rng.randrange(7)
        if part == 0:
            pfx = rng.choice(call_prefixes(prefix))
        elif part == 1:
            q1 = rng.choice(QUOTES)
        elif part == 2:
            kind = rng.choice(ODD_BLOCK_TYPES)
        elif part == 3:
            q2 = rng.choice(QUOTES)
        elif part == 4:
            sep = rng.choice(SEPARATORS)
        elif part == 5:
            slot = rng.choice(ODD_SLOTS)
        else:
            close = rng.choice(CLOSERS)
    return f"{pfx}({q1}{kind}{q2}{sep}{slot}{close}"


def any_call(rng: random.Random, prefix: str, clean: float) -> str:
    return canonical_call(rng, prefix) if rng.random() < clean else mutated_call(rng, prefix)


def program_lines(rng: random.Random, prefix: str, clean: float) -> list[str]:
    """The body of a code block as an LLM writes it: calls, comments, loops, variables, blank lines."""
    other = "ab_drop" if prefix == "drop_block" else "drop_block"
    lines: list[str] = []
    for _ in range(rng.randint(0, 14)):
        roll = rng.random()
        if roll < 0.62:
            lines.append(any_call(rng, prefix, clean))
        elif roll < 0.68:
            lines.append("# " + rng.choice(["base", "stem", "top of the letter", "左边", "ножка", "🧱 cap"]))
        elif roll < 0.74:
            lines.append(f"for i in range({rng.randint(1, 4)}):")
            lines.append("    " + any_call(rng, prefix, clean))
        elif roll < 0.78:
            lines.append(f"x = {rng.randint(0, 19)}")
            lines.append(f"{prefix}('b11', x)")
        elif roll < 0.82:
            lines.append(any_call(rng, other, clean))
        elif roll < 0.86:
            lines.append("")
        elif roll < 0.9:
            lines.append(f"{prefix}(block_type='b11', x_position={rng.randint(0, 19)})")
        elif roll < 0.94:
            lines.append(any_call(rng, prefix, clean) + "; " + any_call(rng, prefix, clean))
        else:
            lines.append("def build():\n    " + any_call(rng, prefix, clean) + "\nbuild()")
    return lines


def code_block(rng: random.Random, prefix: str, clean: float) -> str:
    tag = rng.choice(["python", "python", "", "py", "Python", "python3", "text", " python", "plaintext"])
    body = "\n".join(program_lines(rng, prefix, clean))
    roll = rng.random()
    if roll < 0.05:
        body += "\n# uses `x` as a variable"  # a backtick makes the block unmatchable
    elif roll < 0.08:
        return f"{FENCE}{tag} {body.replace(chr(10), ' ')} {FENCE}"  # everything on one line
    elif roll < 0.1:
        return f"````{tag}\n{body}\n````"
    return f"{FENCE}{tag}\n{body}\n{FENCE}"


def prose(rng: random.Random, sentences: int, *, unicode_noise: bool = True) -> str:
    letter = rng.choice(LETTERS)
    parts = [rng.choice(SENTENCES).format(c=letter) for _ in range(sentences)]
    if unicode_noise and rng.random() < 0.3:
        parts.insert(rng.randrange(len(parts) + 1), mixed_text(rng, rng.randint(1, 6), ALL_CLASSES))
    return rng.choice(["\n", "\n\n", " "]).join(parts)


def response(rng: random.Random, prefix: str) -> str:
    """An LLM response: prose and fenced blocks, with random adversarial twists."""
    clean = rng.choice([1.0, 0.9, 0.7, 0.3])
    pieces = [prose(rng, rng.randint(0, 3))]
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3, 5])):
        pieces.append(code_block(rng, prefix, clean))
        pieces.append(prose(rng, rng.randint(0, 2)))
    twist = rng.random()
    if twist < 0.08:
        pieces.append(f"{FENCE}python\n" + "\n".join(program_lines(rng, prefix, clean)))  # unclosed final fence
    elif twist < 0.13:
        pieces.insert(1, f"{FENCE}markdown\n" + code_block(rng, prefix, clean) + f"\n{FENCE}")  # nested
    elif twist < 0.17:
        pieces.append("Inline: `" + canonical_call(rng, prefix) + "` and ``" + canonical_call(rng, prefix) + "``")
    elif twist < 0.2:
        pieces.append(FENCE + canonical_call(rng, prefix) + FENCE)
    elif twist < 0.23:
        pieces.append(rng.choice(["``````", "``` ```", "```\n```", "`````", "```` ````"]))
    elif twist < 0.26:
        pieces.append(f"{FENCE}\n" + canonical_call(rng, prefix).upper() + f"\n{FENCE}")
    text = rng.choice(["\n", "\n\n", "", " "]).join(pieces)
    twist = rng.random()
    if twist < 0.1:
        text = text.replace("\n", "\r\n")
    elif twist < 0.15:
        text = text.replace("    ", "\t")
    elif twist < 0.18:
        text = text.replace("\n", rng.choice(["\r", "\u2028", "\u0085"]))
    return text


# ---------------------------------------------------------------------------------------------------------------
# Case families
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    op: str  # the npm function's name
    text: str
    prefix: str = ""  # as the npm function takes it ('drop_block' for extraction, 'drop_block(' for conversion)


def long_text(rng: random.Random, make: Callable[[], str]) -> str:
    parts: list[str] = []
    size = 0
    while size < LONG_TEXT:
        parts.append(make())
        size += len(parts[-1]) + 1
    return "\n".join(parts)


def prompt_like(rng: random.Random) -> str:
    """A 2023-style prompt: instructions, the <OBJECT> token, example calls, lists and punctuation."""
    parts = [
        "You are a Science Birds level designer. Build the uppercase letter <OBJECT> with wooden blocks.",
        "Use only ab_drop(block_type, x) calls, e.g. " + canonical_call(rng, "ab_drop") + ".",
        "Rules:\n- b11 is 1×1; b31 is 3×1; b13 is 1×3.\n- Slots range over [0, 19].",
        "Don't stack more than 16 cells high — that's the limit!",
        "“Stability” matters: the structure mustn't fall… (really).",
        "Example output:\n```\n"
        + "\n".join(canonical_call(rng, "ab_drop") for _ in range(rng.randint(1, 6)))
        + "\n```",
        "Answer with code only; no explanations. #1 priority @ 100% = stability & similarity ^_^ ~ $0 / |x|",
    ]
    rng.shuffle(parts)
    text = "\n\n".join(parts[: rng.randint(1, len(parts))])
    if rng.random() < 0.2:
        text = "\ufeff" + text
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
    return text


def word_count_cases() -> list[Case]:
    rng = random.Random(20230521)
    fixed = [
        "",
        " ",
        "\u00a0",
        "\ufeff",
        "\u180e",
        "\u0085",
        "\u200b",
        "—",
        "…",
        "drop_block('b31', 8)",
        "b31b13",
        "1.5",
        "a - b",
        "Hello World\nfoo",
        "line1\nline2 x",
        "map's",
        "<OBJECT>",
        "a\u3000b c",
        "a\u2028b c",
        "\u3000a b",
        "a\u00a0\u00a0b c\u00a0d",
        "١٢٣ ３４ 123",
        "𝟑 𝐀𝐁 😀 👍🏽",
        "x\u0301y",
        "Ⅻ ⓐ ǅ",
    ]
    cases = [Case("countWords", text) for text in fixed]
    cases.append(Case("countWords", long_text(rng, lambda: prompt_like(rng))))
    cases.append(Case("countWords", long_text(rng, lambda: mixed_text(rng, 20, ALL_CLASSES))))
    while len(cases) < CASES_PER_FAMILY:
        roll = rng.random()
        if roll < 0.45:
            classes = rng.sample(ALL_CLASSES, rng.randint(1, 5))
            text = mixed_text(rng, rng.randint(0, 40), classes)
        elif roll < 0.65:
            text = prompt_like(rng)
        elif roll < 0.8:
            text = response(rng, rng.choice(["drop_block", "ab_drop"]))
        else:
            text = "".join(rng.choice(WHITESPACE + [*WORDS_COUNT_DELETED, "a", "1", "中", "-", "_"]) for _ in range(12))
        cases.append(Case("countWords", text))
    return cases


def disallowed_cases() -> list[Case]:
    rng = random.Random(20230522)
    allowed = string.ascii_letters + string.digits + ALLOWED_SYMBOLS + " \n\r\t"
    fixed = [
        "",
        "°",
        "\ufeffHello <OBJECT>",
        "Hello\ufeff",
        "a\u00a0b",
        "\u00a0\u00b0",
        "a\vb",
        "a\fb",
        "\u0085",
        "a\u0085b",
        "\u180e",
        "\u200b",
        "\u2028",
        "a\u2029",
        "\u3000x\u3000",
        "‘quoted’ “text” — dash",
        "–",
        "…",
        "é",
        "ｘ",
        "😀",
        "𝟑",
        "٣",
        "\x00",
        "\x7f",
        "a\u200ab",
    ]
    cases = [Case("containDisallowedCharacters", text) for text in fixed]
    cases.append(Case("containDisallowedCharacters", long_text(rng, lambda: prompt_like(rng).lstrip("\ufeff"))))
    cases.append(Case("containDisallowedCharacters", cases[-1].text + "°"))
    cases.append(Case("containDisallowedCharacters", "\u00a0" + cases[-2].text + "\ufeff"))
    while len(cases) < CASES_PER_FAMILY:
        roll = rng.random()
        base = "".join(rng.choice(allowed) for _ in range(rng.randint(0, 80)))
        if roll < 0.2:
            text = base
        elif roll < 0.55:
            chars = list(base)
            for _ in range(rng.randint(1, 3)):
                chars.insert(rng.randint(0, len(chars)), pick_char(rng, rng.choice(ALL_CLASSES)))
            text = "".join(chars)
        elif roll < 0.7:
            # only whitespace is disallowed: tolerated at the ends after trim, not in the middle of other leftovers
            ends = "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(0, 3)))
            text = ends + base + "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(0, 3)))
        elif roll < 0.85:
            text = prompt_like(rng)
        else:
            text = mixed_text(rng, rng.randint(1, 10), rng.sample(ALL_CLASSES, rng.randint(1, 4)))
        cases.append(Case("containDisallowedCharacters", text))
    return cases


OBJECT_VARIANTS = [
    "<OBJECT>",
    "<object>",
    "<Object>",
    "< OBJECT>",
    "<OBJECT >",
    "<OBJECT",
    "OBJECT>",
    "＜OBJECT＞",
    "<OBJ\u200bECT>",
    "<<OBJECT>>",
    "<OBJECTS>",
    "<0BJECT>",
    "<OBJECT>\u0301",
    "‹OBJECT›",
    "<ＯBJECT>",
    "&lt;OBJECT&gt;",
]


def object_token_cases() -> list[Case]:
    rng = random.Random(20230523)
    cases = [Case("containObjectTokens", text) for text in ["", *OBJECT_VARIANTS, "x" * LONG_TEXT + "<OBJECT>"]]
    while len(cases) < CASES_PER_FAMILY:
        text = prompt_like(rng) if rng.random() < 0.4 else mixed_text(rng, rng.randint(0, 12), ALL_CLASSES)
        for _ in range(rng.randint(0, 3)):
            at = rng.randint(0, len(text))
            text = text[:at] + rng.choice(OBJECT_VARIANTS) + text[at:]
        if rng.random() < 0.5:
            text = text.replace(OBJECT_TOKEN, rng.choice(OBJECT_VARIANTS))
        cases.append(Case("containObjectTokens", text))
    return cases


def extract_cases() -> list[Case]:
    rng = random.Random(20240124)
    spec_block = (
        "drop_block(\"b31\",8)\ndrop_block(\"B11\", 3)\nDROP_BLOCK('b11', 4)\ndrop_block('b11', x)\n"
        "for i in range(3):\n    drop_block('b13', 10)\n"
    )
    fixed = [
        ("", "drop_block"),
        ("no code at all", "drop_block"),
        (f"{FENCE}python\n{spec_block}{FENCE}", "drop_block"),
        (f"{FENCE}\n# I\nab_drop('b31', 8)\nab_drop('b13', 8)\nab_drop('b31', 8)\n{FENCE}", "ab_drop"),
        (f"{FENCE}\nab_drop('b31', 8)\n{FENCE}", "drop_block"),
        (f"{FENCE}\nmy_drop_block('b11', 3)\n{FENCE}", "drop_block"),
        (f"{FENCE}drop_block('b11',)\n{FENCE}", "drop_block"),
        (f"{FENCE}drop_block(|b11|, 2) drop_block('b|1', 2){FENCE}", "drop_block"),
        (f"{FENCE}drop_block('b11' , 3) drop_block('b11', 3 ) drop_block('b11',\t3){FENCE}", "drop_block"),
        (f"{FENCE}drop_block('b11', -3) drop_block('b11', ٣) drop_block('b11', ３){FENCE}", "drop_block"),
        (f"{FENCE}\ndrop_block('b11', 3)\n{FENCE}\ntext\n{FENCE}python\ndrop_block('b13', 4)\n", "drop_block"),
        (f"{FENCE}\ndrop_block('b11', 3)\n{FENCE}{FENCE}\n# `x`\ndrop_block('b13', 4)\n{FENCE}", "drop_block"),
        ("``````", "drop_block"),
        ("``` ```", "drop_block"),
        ("````\ndrop_block('b11', 3)\n````", "drop_block"),
        (f"{FENCE}drop_block('b11', 99999999999999999999999){FENCE}", "drop_block"),
        ("`drop_block('b11', 3)`", "drop_block"),
        (long_text(rng, lambda: prose(rng, 3)) + f"\n{FENCE}\ndrop_block('b11', 3)\n{FENCE}", "drop_block"),
        (long_text(rng, lambda: code_block(rng, "drop_block", 0.8)), "drop_block"),
        (f"{FENCE}python\n" + long_text(rng, lambda: canonical_call(rng, "drop_block")) + f"\n{FENCE}", "drop_block"),
        (long_text(rng, lambda: "```x"), "drop_block"),
    ]
    cases = [Case("extractCode", text, prefix) for text, prefix in fixed]
    while len(cases) < CASES_PER_FAMILY:
        prefix = "drop_block" if rng.random() < 0.75 else "ab_drop"
        cases.append(Case("extractCode", response(rng, prefix), prefix))
    return cases


def stacked(prefix: str, calls: list[tuple[str, int | str]]) -> str:
    return "".join(f"{prefix}('{kind}', {slot})\n" for kind, slot in calls)


def level_program(rng: random.Random, prefix: str) -> str:
    """Well-formed drop calls clustered around a few columns, like a drawn character: mostly convertible."""
    centre = rng.randint(2, 17)
    calls: list[str] = []
    for _ in range(rng.randint(1, rng.choice([6, 12, 24, 40]))):
        kind = rng.choices(BLOCK_TYPES, weights=[3, 3, 4])[0]
        slot = centre + rng.randint(-4, 4)
        if kind == "b31" and rng.random() < 0.9:
            slot = min(max(slot, 1), 18)
        slot = min(max(slot, 0), 19)
        separator = rng.choice([", ", ", ", ","])
        calls.append(f"{prefix}('{kind}'{separator}{slot})")
    return "".join(call + "\n" for call in calls)


def conversion_fixed(prefix: str) -> list[str]:
    p = prefix
    quirk = stacked(p, [("b11", 4)] * 16 + [("b31", 5)])
    return [
        "",
        "\n",
        stacked(p, [("b31", 8), ("b13", 8), ("b31", 8)]),
        stacked(p, [("b11", 19)]),
        stacked(p, [("b31", 0)]),
        stacked(p, [("b31", 19)]),
        stacked(p, [("b11", 20)]),
        f"{p}('b11', )\n",
        stacked(p, [("b33", 2)]),
        stacked(p, [("b11", 5)] * 16),
        stacked(p, [("b11", 5)] * 17),
        stacked(p, [("b13", 5)] * 5),
        stacked(p, [("b13", 5)] * 6),
        stacked(p, [("b11", 4), ("b11", 4), ("b31", 5), ("b11", 7)]),
        stacked(p, [("b31", 2), ("b31", 17), ("b13", 2), ("b13", 17), ("b31", 10), ("b11", 10)]),
        f"{p.upper()}('B31', 5)\n",
        f"{p}('b11' , 3)\n",
        quirk,
        quirk + stacked(p, [("b11", 5)]),
        stacked(p, [("b11", 3)] * 15 + [("b31", 4)]),
        stacked(p, [("b11", "-3")]),
        stacked(p, [("b11", "-0")]),
        stacked(p, [("b31", "-0")]),
        stacked(p, [("b11", "3.9")]),
        stacked(p, [("b11", "1e1")]),
        stacked(p, [("b11", "٣")]),
        stacked(p, [("b11", "３")]),
        stacked(p, [("b11", "99999999999999999999999")]),
        f"{p}('b11', 3\n",
        f"{p}('b11' 3)\n",
        f"{p}(b11, 3)\n",
        f"{p}('b11')\n",
        f"{p}(\n",
        f"{p}()\n",
        f" {p}('b11', 3)\n",
        f"{p} ('b11', 3)\n",
        f"{p}('b11', 3)\r\n{p}('b31', 5)\r\n",
        f"{p}('b11', 3) # comment, with comma\n",
        f"{p}('b11', 3), {p}('b31', 5)\n",
        f"{p}('b11',\t3)\n",
        f"{p}(')b11', 3)\n",
        f"{p}('b11', 3)\n{p}('b11', 3)",
        f"{p}('İ11', 3)\n",
        f"{p.replace('k', chr(0x212A))}('b11', 3)\n",
        f"{p}(|b11|, 2)\n{p}('b|1', 2)\n",
        f"{p}('b13', 0)\n{p}('b13', 19)\n{p}('b31', 1)\n{p}('b31', 18)\n",
    ]


def conversion_text(rng: random.Random, prefix: str) -> str:
    roll = rng.random()
    if roll < 0.45:
        text = level_program(rng, prefix)
    elif roll < 0.75:
        lines = level_program(rng, prefix).splitlines()
        for _ in range(rng.randint(1, 4)):
            junk = rng.choice(
                [
                    lambda: mutated_call(rng, prefix),
                    lambda: mutated_call(rng, prefix),
                    lambda: prose(rng, 1),
                    lambda: mixed_text(rng, 3, ALL_CLASSES),
                    lambda: "",
                    lambda: canonical_call(rng, prefix).upper(),
                ]
            )()
            lines.insert(rng.randint(0, len(lines)), junk)
        text = "\n".join(lines) + rng.choice(["", "\n"])
    elif roll < 0.9:
        text = response(rng, prefix)  # a raw response: non-call lines are ignored
    else:
        column = rng.randint(0, 19)
        kind = rng.choice(BLOCK_TYPES)
        text = stacked(prefix, [(kind, column)] * rng.randint(1, 18))
        if rng.random() < 0.5:
            text += stacked(prefix, [("b31", min(max(column + rng.choice([-2, -1, 1, 2]), 0), 19))])
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def call_lines(text: str, prefix: str) -> list[str]:
    """The lines the converter reads: those of the lower-cased text that start with ``prefix`` (with its paren)."""
    return [line for line in text.lower().split("\n") if line.startswith(prefix)]


def has_astral_block_type(text: str, prefix: str) -> bool:
    """Whether a call line has a character outside the BMP before its first ','.

    JavaScript indexes strings in UTF-16 code units, so on such a line the block-type substring depends on
    counting those units as podium's converter does.
    """
    for line in call_lines(text, prefix):
        head = line if "," not in line else line[: line.index(",")]
        if any(ord(ch) > 0xFFFF for ch in head):
            return True
    return False


def has_slot_without_closing_paren(text: str, prefix: str) -> bool:
    """Whether a call line with a ',' has no ')' after it, or a ')' before it.

    npm reads the slot from after the first ',' up to the first ')' AFTER it (or the end of the line).
    """
    for line in call_lines(text, prefix):
        comma = line.find(",")
        if comma >= 0 and line.find(")") < comma:
            return True
    return False


def astral_conversion_text(rng: random.Random, prefix: str) -> str:
    lines = level_program(rng, prefix).splitlines()
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(len(lines))
        line = lines[index]
        comma = line.index(",")
        astral = pick_char(rng, rng.choice(["astral", "emoji", "astral_digits"]))
        roll = rng.random()
        if roll < 0.35:  # replace the opening quote
            lines[index] = line[: len(prefix)] + astral + line[len(prefix) + 1 :]
        elif roll < 0.7:  # replace the closing quote
            lines[index] = line[: comma - 1] + astral + line[comma:]
        else:
            at = rng.randint(len(prefix), comma)
            lines[index] = line[:at] + astral + line[at:]
    return "\n".join(lines) + "\n"


def unclosed_slot_text(rng: random.Random, prefix: str) -> str:
    lines = level_program(rng, prefix).splitlines()
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(len(lines))
        line = lines[index]
        roll = rng.random()
        if roll < 0.4:  # a truncated line, as at the end of a cut-off response
            lines[index] = line[:-1]
        elif roll < 0.6:
            lines[index] = line[:-1] + rng.choice(["]", " ", ";", "\r", " # done", ", 4"])
        elif roll < 0.8:  # a ')' before the ',' in the skipped quote position
            lines[index] = line[: len(prefix)] + ")" + line[len(prefix) + 1 :]
        else:
            lines[index] = line[:-1] + "  # (see above)"  # the first ')' after the ',' is in the comment
    return "\n".join(lines) + rng.choice(["", "\n"])


TARGETED_CONVERSION_FAMILIES: dict[str, Callable[[str, str], bool]] = {
    "convertTextToXML/astral-block-type": has_astral_block_type,
    "convertTextToXML/slot-without-closing-paren": has_slot_without_closing_paren,
}


@cache
def conversion_families() -> dict[str, list[Case]]:
    """Conversion cases, with the two targeted families (see the predicates) split off into their own."""
    rng = random.Random(20230320)
    families: dict[str, list[Case]] = {"convertTextToXML": [], **{name: [] for name in TARGETED_CONVERSION_FAMILIES}}

    def add(text: str, prefix: str) -> None:
        call_prefix = prefix + "("
        family = next(
            (name for name, known in TARGETED_CONVERSION_FAMILIES.items() if known(text, call_prefix)),
            "convertTextToXML",
        )
        families[family].append(Case("convertTextToXML", text, call_prefix))

    for prefix in ("drop_block", "ab_drop"):
        for text in conversion_fixed(prefix):
            add(text, prefix)
    add(long_text(rng, lambda: level_program(rng, "drop_block")), "drop_block")
    add(long_text(rng, lambda: canonical_call(rng, "drop_block", slot_range=(1, 18))), "drop_block")
    while len(families["convertTextToXML"]) < CASES_PER_FAMILY:
        prefix = "drop_block" if rng.random() < 0.8 else "ab_drop"
        add(conversion_text(rng, prefix), prefix)
    for text in ["drop_block(😀b11', 3)\n", "drop_block('b11😀, 3)\n", "drop_block('😀11', 3)\n"]:
        add(text, "drop_block")
    while len(families["convertTextToXML/astral-block-type"]) < 300:
        add(astral_conversion_text(rng, "drop_block"), "drop_block")
    while len(families["convertTextToXML/slot-without-closing-paren"]) < 300:
        prefix = rng.choice(["drop_block", "ab_drop"])
        add(unclosed_slot_text(rng, prefix), prefix)
    return families


@cache
def all_families() -> dict[str, list[Case]]:
    return {
        "countWords": word_count_cases(),
        "containDisallowedCharacters": disallowed_cases(),
        "containObjectTokens": object_token_cases(),
        "extractCode": extract_cases(),
        **conversion_families(),
    }


# ---------------------------------------------------------------------------------------------------------------
# The two sides
# ---------------------------------------------------------------------------------------------------------------


def podium_result(case: Case) -> object:
    """podium's answer, in the same normal form as ``oracle_result``."""
    if case.op == "countWords":
        return count_words(case.text)
    if case.op == "containDisallowedCharacters":
        return disallowed_characters(case.text) != ""
    if case.op == "containObjectTokens":
        return OBJECT_TOKEN in case.text
    if case.op == "extractCode":
        extracted = extract_code(case.text, case.prefix)
        if isinstance(extracted, ExtractedCode):
            return extracted.text
        assert isinstance(extracted, StageFailure) and extracted.reason == "Code not found.", extracted
        return None
    if case.op == "convertTextToXML":
        level = drop_blocks(parse_drop_calls(case.text, case.prefix.removesuffix("(")))
        if isinstance(level, GridLevel):
            return ("xml", level_xml_text(level))
        return ("error", level.reason)
    raise AssertionError(f"unknown op {case.op}")


def oracle_result(case: Case, answer: dict[str, object]) -> object:
    if "error" in answer:
        return ("error", answer["error"])
    value = answer["value"]
    if case.op == "extractCode":
        return value or None  # null (or any other falsy outcome) means no code was found
    if case.op == "convertTextToXML":
        return ("xml", value)
    return value


def oracle_missing_reason() -> str | None:
    if shutil.which("node") is None and not Path("/usr/bin/node").exists():
        return "node is not installed"
    if not ORACLE_PACKAGE.is_file():
        return f"the npm oracle is not installed ({ORACLE_PACKAGE} is missing)"
    return None


@pytest.fixture(scope="module")
def oracle_answers() -> dict[str, list[object]]:
    """Run every case of every family through the npm package in one node process."""
    missing = oracle_missing_reason()
    if missing is not None:
        message = f"{missing}; run `make oracle` (bash scripts/install-oracle.sh) to install chatgpt4pcg@1.4.1"
        if os.environ.get("PODIUM_REQUIRE_ORACLE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    families = all_families()
    cases = [case for family in families.values() for case in family]
    payload = json.dumps([{"op": c.op, "text": c.text, "prefix": c.prefix} for c in cases])
    node = shutil.which("node") or "/usr/bin/node"
    completed = subprocess.run(
        [node, str(BRIDGE), str(ORACLE_ROOT)],
        input=payload.encode("utf-8"),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode("utf-8", "replace")
    answers = json.loads(completed.stdout.decode("utf-8"))
    assert len(answers) == len(cases)
    results: dict[str, list[object]] = {}
    position = 0
    for name, family in families.items():
        results[name] = [oracle_result(case, answer) for case, answer in zip(family, answers[position:], strict=False)]
        position += len(family)
    return results


def shorten(value: object, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars in repr)"


def compare(family: str, oracle: list[object]) -> tuple[list[str], Counter[str]]:
    """Mismatch descriptions and the distribution of the oracle's outcomes (to check the generator's reach)."""
    mismatches: list[str] = []
    outcomes: Counter[str] = Counter()
    for case, expected in zip(all_families()[family], oracle, strict=True):
        try:
            actual = podium_result(case)
        except Exception as error:  # noqa: BLE001 - a crash is one more mismatch to report
            actual = f"podium raised {error!r}"
        if isinstance(expected, tuple):
            outcomes[expected[0] if expected[0] == "xml" else str(expected[1])] += 1
        else:
            outcomes[type(expected).__name__ if not isinstance(expected, bool) else str(expected)] += 1
        if actual != expected:
            mismatches.append(
                f"op={case.op} prefix={case.prefix!r}\n  input:  {shorten(case.text)}\n"
                f"  npm:    {shorten(expected)}\n  podium: {shorten(actual)}"
            )
    return mismatches, outcomes


def assert_agrees(family: str, oracle: list[object]) -> Counter[str]:
    mismatches, outcomes = compare(family, oracle)
    total = len(all_families()[family])
    assert not mismatches, (
        f"{len(mismatches)} of {total} {family} cases disagree with chatgpt4pcg@1.4.1; the first ones:\n"
        + "\n".join(mismatches[:SHOWN_MISMATCHES])
    )
    return outcomes


@pytest.mark.parametrize("family", ["countWords", "containDisallowedCharacters", "containObjectTokens"])
def test_qualification_functions_agree(family: str, oracle_answers: dict[str, list[object]]) -> None:
    assert len(all_families()[family]) >= 2000
    outcomes = assert_agrees(family, oracle_answers[family])
    if family != "countWords":
        assert min(outcomes["True"], outcomes["False"]) >= 200, outcomes


def test_extract_code_agrees(oracle_answers: dict[str, list[object]]) -> None:
    assert len(all_families()["extractCode"]) >= 2000
    outcomes = assert_agrees("extractCode", oracle_answers["extractCode"])
    assert min(outcomes["str"], outcomes["NoneType"]) >= 300, outcomes


def test_convert_text_to_xml_agrees(oracle_answers: dict[str, list[object]]) -> None:
    assert len(all_families()["convertTextToXML"]) >= 2000
    outcomes = assert_agrees("convertTextToXML", oracle_answers["convertTextToXML"])
    assert outcomes["xml"] >= 600, outcomes
    for message in ("BlockType does not exist.", "Width boundary is intruded.", "Height boundary is intruded."):
        assert outcomes[message] >= 50, outcomes


@pytest.mark.parametrize("family", list(TARGETED_CONVERSION_FAMILIES))
def test_convert_text_to_xml_targeted_families(family: str, oracle_answers: dict[str, list[object]]) -> None:
    """Two families where podium once disagreed: slots without a closing ')' and characters above U+FFFF
    before the ',' (the converter counts UTF-16 code units)."""
    assert len(all_families()[family]) >= 300
    assert_agrees(family, oracle_answers[family])
