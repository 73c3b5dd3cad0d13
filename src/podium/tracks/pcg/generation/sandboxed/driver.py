"""The sandboxed process's main: set up the program's imports, import it, then run each trial the judge hands out.

The program runs as ``python ENTRY`` would run it from its working folder: the entry's own folder first on
``sys.path``, then the folders of its installed requirements, then the standard library. The official names
(``chatgpt4pcg``, ``llms4pcg``, ``openai``) resolve to the stand-ins' folder before anything else, whatever the
submission bundles; nothing else of that folder is importable.

The entry is imported under its file's stem (its ``if __name__ == "__main__":`` block does not run); its
``TrialLoop`` subclass is the class its ``run_evaluation`` call names (the judge reads that from the source and
passes it as LOOP), else the one subclass it defines or imports. A program that calls ``run_evaluation`` while it
is imported is served then. What a trial ends with goes back to the judge: the response, or the exception
(``TimeoutError`` and ``ValueError`` end a trial as the official packages end it; anything else is reported with its
traceback).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

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
    if hello["package"] == "llms4pcg":  # its context also tells the model's name and server
        model, url = hello.get("model_name"), hello.get("base_url")
        return ModelTrialContext(
            team, character, number, log_path, None if model is None else str(model), None if url is None else str(url)
        )
    return TrialContext(team, character, number, log_path)


def _trial_loop(module: ModuleType, named: str) -> type[TrialLoop] | str:
    """The program's ``TrialLoop`` subclass, or why there is not exactly one."""
    if named:
        value = getattr(module, named, None)
        if inspect.isclass(value) and issubclass(value, TrialLoop) and value is not TrialLoop:
            return value
        return f"run_evaluation names {named}, which is not a TrialLoop subclass the program defines or imports"
    loops = [v for v in vars(module).values() if inspect.isclass(v) and issubclass(v, TrialLoop) and v is not TrialLoop]
    found = [value for value in loops if value.__module__ == module.__name__] or loops
    if len(found) != 1:
        names = ", ".join(sorted(c.__name__ for c in found)) or "none"
        return f"the program must define exactly one TrialLoop subclass; found {names}"
    return found[0]


class _StandIns:
    """A finder answering the official top-level names from the stand-ins' folder, before any other place."""

    def __init__(self, folder: str) -> None:
        self._folder = folder
        self.names = _packages_in(folder)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.names:
            return None  # their sub-modules are found through the package's own __path__
        return importlib.machinery.PathFinder.find_spec(name, [self._folder])


def _packages_in(folder: str) -> frozenset[str]:
    """The stand-ins' packages: one per official package the judge wrote, and openai's (no list to keep here)."""
    return frozenset(n for n in os.listdir(folder) if not n.startswith("_") and os.path.isdir(os.path.join(folder, n)))


def _import_entry(entry: str, stand_ins: frozenset[str]) -> ModuleType:
    """Import the entry file under its stem (``submission`` when the stem is not a name Python allows, or taken)."""
    stem = os.path.basename(entry)[:-3]
    usable = stem.isidentifier() and stem not in sys.modules and stem not in stand_ins | {"_podium"}
    name = stem if usable else "submission"
    spec = importlib.util.spec_from_file_location(name, entry)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(stand_ins: str, args: list[str]) -> int:
    """Import the program and serve the trials.

    ``args``: the entry relative to the working folder, the LOOP name (may be empty), the requirement folders.
    """
    entry, loop, folders = os.path.abspath(args[0]), args[1], args[2:]
    sys.path[0:1] = [os.path.dirname(entry), *folders]
    finder = _StandIns(stand_ins)
    sys.meta_path.insert(0, finder)
    try:
        module = _import_entry(entry, finder.names)
    except BaseException as error:
        if isinstance(error, SystemExit) and _served:
            return 0
        detail = traceback.format_exc()[-_TRACEBACK_CHARS:]
        link().ask({"op": "abort", "reason": f"the program failed while it was imported: {detail}"})
        return 1
    if _served:
        return 0
    fn = _trial_loop(module, loop)
    if isinstance(fn, str):
        link().ask({"op": "abort", "reason": fn})
        return 1
    serve(fn)
    return 0
