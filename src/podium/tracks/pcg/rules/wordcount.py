"""Word counting exactly as the npm package ``words-count`` 2.0.2 (default options) counts.

The 2023 rules limit prompts to 900 words "counted by our tool", which is this algorithm. It is not a split on
whitespace: punctuation is deleted (not replaced by a space), only the FIRST whitespace run becomes a space,
pieces split on U+0020 alone, and each piece counts its runs of digits, runs of Latin/Cyrillic/Malayalam
letters and single CJK characters (at least 1 per piece). See ``docs/rules/pcg.md`` §1.1 for the worked examples.
"""

from __future__ import annotations

import re

from podium.tracks.pcg.official.jsnum import JS_WS_CLASS, js_trim

_DELETED_PUNCTUATION = ",，.。:：;；[]【】{｛}｝(（)）<《>》$￥!！?？~～'’\"“”*/\\&%@#^、"
_DELETED = re.compile("[" + re.escape(_DELETED_PUNCTUATION) + "\uff00-\uffef\u2000-\u206f]")
_FIRST_WHITESPACE_RUN = re.compile(JS_WS_CLASS + "+")
_LETTER_RANGES = "a-zA-Z\u00c0-\u024f\u0250-\u02af\u1e00-\u1eff\u0400-\u052f\u0d00-\u0d7f"
_CJK_RANGES = (
    "\u2e80-\u2eff\u2f00-\u2fdf\u3000-\u303f\u31c0-\u31ef\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\u3040-\u30ff\u31f0-\u31ff\u3190-\u319f\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff"
)
_WORD = re.compile(f"[0-9]+|[{_LETTER_RANGES}]+|[{_CJK_RANGES}]")


def count_words(text: str) -> int:
    """Return the number of words ``words-count`` 2.0.2 reports for ``text``."""
    if not js_trim(text):
        return 0
    text = _DELETED.sub("", text)
    text = _FIRST_WHITESPACE_RUN.sub(" ", text, count=1)
    count = 0
    for piece in text.split(" "):
        if not js_trim(piece):
            continue
        count += max(1, len(_WORD.findall(piece)))
    return count
