"""podium's stand-ins for the official packages, as one read-only folder every participant's sandbox can read.

The official packages are not installed in the sandbox (they would bring the OpenAI client, and with it a way to
the network that only the closed network namespace would stop); podium's own small modules stand in for them under
the same import paths. Each official module becomes a line or two re-exporting ``_podium``'s names::

    start.py                                 the sandboxed process's first file (sandboxed/start.py)
    _podium/{__init__,link,context,api,driver}.py      podium.tracks.pcg.generation.sandboxed, copied
    chatgpt4pcg/competition.py, utils.py, models/trial_context.py, models/trial_loop.py     (2024 names)
    llms4pcg/...                                                                           (2025 names)
    openai/types/chat/__init__.py        only the message type names, for programs' type hints

The folder is published once per content (``core.execution.sandbox.readable``) and bound read-only into every run,
outside the program's own working folder, so a submission's files stay exactly the submission's. The driver takes
it off ``sys.path`` and answers only the official names from it (``sandboxed/driver.py``).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from podium.core.execution.sandbox.readable import publish, readable_root
from podium.tracks.pcg.editions import GenerationRules, package_rules

STAND_IN_PACKAGE = "_podium"
START = "start.py"
_SOURCES = ("__init__.py", "link.py", "context.py", "api.py", "driver.py")


def _package_shims(rules: GenerationRules) -> dict[str, str]:
    """One official package's modules, named as its edition names its chat function and trial context."""
    context = "TrialContext" if rules.context_class == "TrialContext" else f"{rules.context_class} as TrialContext"
    return {
        "competition.py": f"from _podium.api import {rules.chat_function}, log, run_evaluation\n"
        f"from _podium.context import {context}, TrialLoop\n",
        "models/trial_context.py": f"from _podium.context import {context}\n",
        "models/trial_loop.py": f"from _podium.context import {context}, TrialLoop\n",
    }


_SHIMS = {package: _package_shims(rules) for package, rules in package_rules().items()}
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
# and its error classes, so that a program's `except openai.RateLimitError:` still reads (nothing raises them: a
# failed model call fails the trial in the judge)
_OPENAI_ERRORS = (
    "class OpenAIError(Exception): pass\n"
    "class APIError(OpenAIError): pass\n"
    "class APIConnectionError(APIError): pass\n"
    "class APITimeoutError(APIConnectionError): pass\n"
    "class APIStatusError(APIError): pass\n"
    "class BadRequestError(APIStatusError): pass\n"
    "class AuthenticationError(APIStatusError): pass\n"
    "class RateLimitError(APIStatusError): pass\n"
    "class InternalServerError(APIStatusError): pass\n"
)
_OPENAI_SHIMS = {
    "openai/__init__.py": '"""podium: only the OpenAI client\'s message types and errors exist in the sandbox."""\n'
    + _OPENAI_ERRORS,
    "openai/types/__init__.py": "",
    "openai/types/chat/__init__.py": "".join(f"{name} = dict\n" for name in _OPENAI_TYPES),
}
OFFICIAL_NAMES = frozenset({"openai", *_SHIMS})
"""The top-level names the stand-ins answer, whatever a submission bundles or declares."""


def stand_in_files() -> dict[str, bytes]:
    """Every file of the stand-ins' folder, by relative path."""
    package = resources.files("podium.tracks.pcg.generation.sandboxed")
    files = {START: package.joinpath(START).read_bytes()}
    files.update({f"{STAND_IN_PACKAGE}/{name}": package.joinpath(name).read_bytes() for name in _SOURCES})
    for official, shims in _SHIMS.items():
        for path, text in {**_COMMON_SHIMS, **shims}.items():
            files[f"{official}/{path}"] = text.encode()
    files.update({path: text.encode() for path, text in _OPENAI_SHIMS.items()})
    return files


def stand_ins_folder() -> Path:
    """The published stand-ins' folder for this version of podium (made on first use)."""
    files = stand_in_files()
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path}\0{len(files[path])}\0".encode() + files[path])

    def fill(folder: Path) -> None:
        for path, data in files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(data)

    return publish(readable_root("pcg-stand-ins"), digest.hexdigest()[:32], fill)
