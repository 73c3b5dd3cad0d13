"""``json_text`` writes what ``json.dumps(..., indent=N)`` writes, on the documents the stages write and odd ones."""

from __future__ import annotations

import json
import random

import pytest

from podium.tracks.pcg.official.jsontext import json_text


def _random_value(rng: random.Random, depth: int) -> object:
    kinds = ["float", "int", "str", "bool", "none", "vector"] + (["dict", "list"] * 2 if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "float":
        return rng.choice([rng.random(), -rng.random() * 1e-9, 1e300 * 10, -1e300 * 10, float("nan"), 0.0, -0.0, 1e16])
    if kind == "int":
        return rng.choice([0, -1, rng.randrange(-(10**30), 10**30)])
    if kind == "str":
        return "".join(rng.choice(["a", "Z", '"', "\\", "\n", "é", "字", "\x00", "\u2028", "😀"]) for _ in range(5))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "vector":
        return [rng.random() for _ in range(rng.randrange(0, 5))]
    if kind == "dict":
        return {str(_random_value(rng, 5)): _random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]


@pytest.mark.parametrize("indent", [2, 4])
def test_it_writes_what_json_dumps_writes(indent: int) -> None:
    rng = random.Random(2029)
    for _ in range(3000):
        value = _random_value(rng, 0)
        assert json_text(value, indent) == json.dumps(value, indent=indent)
    similarity = {"count": 1, "similarityRate": 0.25, "trials": [{"id": "t_A_1.png", "label": "A", "similarity": 0.25}],
                  "similarities": [{"id": "t_A_1.png", "raws": [], "cls_embedding": (0.5, -1.5)}]}  # fmt: skip
    assert json_text(similarity, indent) == json.dumps(similarity, indent=indent)


def test_keys_that_are_not_strings_and_values_json_cannot_write_are_refused() -> None:
    with pytest.raises(TypeError):
        json_text({1: "a"}, 2)
    with pytest.raises(TypeError):
        json_text({"a": {1, 2}}, 2)
