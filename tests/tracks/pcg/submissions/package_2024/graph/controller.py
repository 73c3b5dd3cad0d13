STROKES = {"A": ["/", "\\", "-"], "B": ["|", "D", "D"], "C": ["("], "D": ["|", ")"]}


def plan(character):
    strokes = STROKES.get(character, ["|"])
    return " then ".join(strokes)
