"""The files of a participant's sandbox: the program, podium's ``_podium`` package and the official module names.

The official packages are not installed in the sandbox (they would bring the OpenAI client, and with it a way to
the network that only the closed network namespace would stop); podium's own small modules stand in for them under
the same import paths. Each official module becomes a line or two re-exporting ``_podium``'s names::

    /box/_podium/{__init__,link,context,api,driver}.py      podium.tracks.pcg.generation.sandboxed, copied
    /box/chatgpt4pcg/competition.py, utils.py, models/trial_context.py, models/trial_loop.py     (2024 names)
    /box/llms4pcg/...                                                                           (2025 names)
    /box/openai/types/chat/__init__.py        only the message type names, for programs' type hints
    /box/<MODULE>.py                                                                            the program
"""

from __future__ import annotations

import keyword
from importlib import resources

from podium.core.errors import InputError

BOX_PACKAGE = "_podium"
_SOURCES = ("__init__.py", "link.py", "context.py", "api.py", "driver.py")

_SHIMS: dict[str, dict[str, str]] = {
    "chatgpt4pcg": {
        "competition.py": "from _podium.api import chat_with_chatgpt, log, run_evaluation\n"
        "from _podium.context import TrialContext, TrialLoop\n",
        "models/trial_context.py": "from _podium.context import TrialContext\n",
        "models/trial_loop.py": "from _podium.context import TrialContext, TrialLoop\n",
    },
    "llms4pcg": {
        "competition.py": "from _podium.api import chat_with_llm, log, run_evaluation\n"
        "from _podium.context import ModelTrialContext as TrialContext, TrialLoop\n",
        "models/trial_context.py": "from _podium.context import ModelTrialContext as TrialContext\n",
        "models/trial_loop.py": "from _podium.context import ModelTrialContext as TrialContext, TrialLoop\n",
    },
}
_COMMON_SHIMS = {
    "__init__.py": "",
    "models/__init__.py": "",
    "utils.py": "from _podium.api import log\n",
}
# the message types the packages' signatures name, for programs that import them in their type hints; the client
# itself is absent (every call goes through the judge)
_OPENAI_TYPES = (
    "ChatCompletionMessageParam",
    "ChatCompletionSystemMessageParam",
    "ChatCompletionUserMessageParam",
    "ChatCompletionAssistantMessageParam",
)
_OPENAI_SHIMS = {
    "openai/__init__.py": '"""podium: only the message types of the OpenAI client exist in the sandbox."""\n',
    "openai/types/__init__.py": "",
    "openai/types/chat/__init__.py": "".join(f"{name} = dict\n" for name in _OPENAI_TYPES),
}
RESERVED_MODULES = frozenset({BOX_PACKAGE, "openai", *_SHIMS})


def module_name(file_name: str) -> str:
    """The name a program file is imported as (its stem), or InputError when Python cannot import it by that name."""
    stem, dot, suffix = file_name.rpartition(".")
    if not dot or suffix != "py" or not stem.isidentifier() or keyword.iskeyword(stem) or stem in RESERVED_MODULES:
        raise InputError(
            f"a program is imported by its file name, and {file_name!r} cannot be",
            fix="name the program like a Python module (my_program.py), not chatgpt4pcg.py, llms4pcg.py or _podium.py",
        )
    return stem


def box_files(program_name: str, program: bytes) -> dict[str, bytes]:
    """Every file of the sandbox's working folder for ``program`` (whichever official package it imports)."""
    package = resources.files("podium.tracks.pcg.generation.sandboxed")
    files = {f"{BOX_PACKAGE}/{name}": package.joinpath(name).read_bytes() for name in _SOURCES}
    for official, shims in _SHIMS.items():
        for path, text in {**_COMMON_SHIMS, **shims}.items():
            files[f"{official}/{path}"] = text.encode()
    files.update({path: text.encode() for path, text in _OPENAI_SHIMS.items()})
    files[f"{module_name(program_name)}.py"] = program
    return files
