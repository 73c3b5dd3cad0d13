"""The sandboxed process's main: import the program, then run each trial the judge hands out, in its order.

``python3 -m _podium.driver MODULE`` imports the program as ``MODULE`` (as an organiser's script would import it;
its ``if __name__ == "__main__":`` block does not run), finds its ``TrialLoop`` subclass and serves trials until
the judge says there are none left. A program that calls ``run_evaluation`` while it is imported is served then.
What a trial ends with goes back to the judge: the response, or the exception (``TimeoutError`` and ``ValueError``
end a trial as the official packages end it; anything else is reported with its traceback).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from pathlib import Path
from types import ModuleType

from .context import ModelTrialContext, TrialContext, TrialLoop
from .link import link

_TRACEBACK_CHARS = 4000
_served = False


def serve(fn: type[TrialLoop]) -> None:
    """Run every trial the judge hands out with ``fn``."""
    global _served
    _served = True
    hello = link().ask({"op": "hello"})
    log_path = Path(str(hello["log_file"]))
    while True:
        trial = link().ask({"op": "next"})["trial"]
        if trial is None:
            return
        ctx = _context(hello, str(trial["character"]), int(trial["number"]), log_path)
        try:
            response = fn.run(ctx, ctx.get_character())
        except (TimeoutError, ValueError) as error:
            link().ask({"op": "failed", "error": type(error).__name__, "message": str(error)})
            continue
        except Exception:
            link().ask({"op": "crashed", "traceback": traceback.format_exc()[-_TRACEBACK_CHARS:]})
            continue
        if isinstance(response, str):
            link().ask({"op": "done", "response": response})
        else:
            link().ask({"op": "crashed", "traceback": f"run() returned {type(response).__name__}, not str"})


def _context(hello: dict[str, object], character: str, number: int, log_path: Path) -> TrialContext:
    team = str(hello["team"])
    if hello["edition"] == 2025:
        model, url = hello.get("model_name"), hello.get("base_url")
        return ModelTrialContext(
            team, character, number, log_path, None if model is None else str(model), None if url is None else str(url)
        )
    return TrialContext(team, character, number, log_path)


def _trial_loop(module: ModuleType) -> type[TrialLoop] | str:
    """The program's one ``TrialLoop`` subclass, or why there is not exactly one."""
    found = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, TrialLoop)
        and value is not TrialLoop
        and value.__module__ == module.__name__
    ]
    if len(found) != 1:
        names = ", ".join(sorted(c.__name__ for c in found)) or "none"
        return f"the program must define exactly one TrialLoop subclass; found {names}"
    return found[0]


def main(argv: list[str]) -> int:
    """Import the program named by ``argv[1]`` and serve the trials."""
    try:
        module = importlib.import_module(argv[1])
    except BaseException as error:
        if isinstance(error, SystemExit) and _served:
            return 0
        detail = traceback.format_exc()[-_TRACEBACK_CHARS:]
        link().ask({"op": "abort", "reason": f"the program failed while it was imported: {detail}"})
        return 1
    if _served:
        return 0
    fn = _trial_loop(module)
    if isinstance(fn, str):
        link().ask({"op": "abort", "reason": fn})
        return 1
    serve(fn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
