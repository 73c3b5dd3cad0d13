"""What ``podium pcg inspect`` knows about names: the official API, the allowed modules, the risky ones.

The official API is the public surface of ``llms4pcg`` 2.0.1 (2025) and ``chatgpt4pcg`` 1.2.2 (2024), read from
the installed packages: ``competition`` exports ``TrialLoop``, ``TrialContext``, ``run_evaluation`` and the chat
function; ``models.trial_loop`` / ``models.trial_context`` define the two classes; ``utils`` holds ``log``.
A program needs nothing else from them. The allow list is the pure-computation part of the standard library a
prompt program plausibly needs (text, numbers, randomness, data structures); everything else is worth a human's
look, and the modules below say why.
"""

from __future__ import annotations

from enum import StrEnum

from podium.tracks.pcg.editions import package_rules


class Concern(StrEnum):
    """Why a finding deserves the organiser's attention."""

    SYNTAX = "syntax"  # the program does not parse: it cannot run at all
    ENCODING = "encoding"  # the bytes are not the source text Python would read without surprise
    IMPORT = "import"  # a module outside the allow list and the official package
    API = "api"  # a name of the official package outside its public API, or the token budget touched
    FILE = "file"
    PROCESS = "process"
    NETWORK = "network"
    ENVIRONMENT = "environment"  # environment variables: where API keys live
    OBFUSCATION = "obfuscation"  # code built or named at run time, decoded payloads, introspection
    STRUCTURE = "structure"  # not shaped like a program the official runner can use


OFFICIAL_PACKAGES = {package: rules.chat_function or "" for package, rules in package_rules().items()}
"""Each official package and its chat function (from the editions' records)."""

# module (below the package) → names a program may use from it
OFFICIAL_MODULES: dict[str, frozenset[str]] = {
    "": frozenset({"competition", "models", "utils"}),
    "competition": frozenset({"TrialLoop", "TrialContext", "run_evaluation", "chat_with_llm", "chat_with_chatgpt"}),
    "models": frozenset({"trial_loop", "trial_context"}),
    "models.trial_loop": frozenset({"TrialLoop"}),
    "models.trial_context": frozenset({"TrialContext"}),
    "utils": frozenset({"log"}),
}

# The official runner counts tokens through these; a program calling them changes its own budget.
CONTEXT_BUDGET = frozenset({"add_prompt_token_count", "add_output_token_count"})

ALLOWED_MODULES = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "json",
        "math",
        "operator",
        "random",
        "re",
        "statistics",
        "string",
        "textwrap",
        "time",
        "typing",
        "unicodedata",
    }
)

RISKY_MODULES: dict[str, Concern] = {
    **dict.fromkeys(
        [
            "socket",
            "ssl",
            "select",
            "selectors",
            "asyncio",
            "urllib",
            "http",
            "ftplib",
            "smtplib",
            "poplib",
            "imaplib",
            "telnetlib",
            "xmlrpc",
            "socketserver",
            "requests",
            "httpx",
            "aiohttp",
            "urllib3",
            "websockets",
            "openai",
            "ollama",
            "anthropic",
            "grpc",
        ],
        Concern.NETWORK,
    ),
    **dict.fromkeys(
        [
            "subprocess",
            "multiprocessing",
            "concurrent",
            "threading",
            "_thread",
            "pty",
            "signal",
            "ctypes",
            "cffi",
            "resource",
            "sys",
        ],
        Concern.PROCESS,
    ),
    **dict.fromkeys(
        [
            "os",
            "pathlib",
            "shutil",
            "tempfile",
            "glob",
            "fnmatch",
            "io",
            "fileinput",
            "sqlite3",
            "shelve",
            "dbm",
            "mmap",
            "zipfile",
            "tarfile",
        ],
        Concern.FILE,
    ),
    **dict.fromkeys(
        [
            "base64",
            "binascii",
            "codecs",
            "zlib",
            "gzip",
            "bz2",
            "lzma",
            "marshal",
            "pickle",
            "importlib",
            "builtins",
            "inspect",
            "gc",
            "types",
            "runpy",
            "code",
            "codeop",
            "dis",
            "ast",
        ],
        Concern.OBFUSCATION,
    ),
}

# functions of ``os`` by what they reach; any other ``os`` name is file-system use
OS_PROCESS = frozenset(
    [
        "system",
        "popen",
        "fork",
        "forkpty",
        "kill",
        "killpg",
        "execl",
        "execle",
        "execlp",
        "execlpe",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "spawnl",
        "spawnle",
        "spawnlp",
        "spawnlpe",
        "spawnv",
        "spawnve",
        "spawnvp",
        "spawnvpe",
        "posix_spawn",
        "posix_spawnp",
        "startfile",
        "_exit",
        "abort",
    ]
)
OS_ENVIRONMENT = frozenset(["environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"])

# builtins that run text as code, reach names by strings, or expose the interpreter's tables
CODE_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "globals", "locals", "vars", "breakpoint"})
NAME_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
FILE_BUILTINS = frozenset({"open", "input"})

# method names that, whatever the object, read or change files (``Path`` and file objects)
FILE_METHODS = frozenset(
    [
        "read_text",
        "read_bytes",
        "write_text",
        "write_bytes",
        "unlink",
        "rmdir",
        "mkdir",
        "iterdir",
        "rglob",
        "touch",
        "symlink_to",
        "hardlink_to",
        "chmod",
        "readlines",
        "writelines",
    ]
)
# attributes that lead from an object to the interpreter's internals
DUNDER_ESCAPES = frozenset(
    [
        "__globals__",
        "__builtins__",
        "__code__",
        "__closure__",
        "__subclasses__",
        "__bases__",
        "__mro__",
        "__dict__",
        "__class__",
        "__getattribute__",
        "__loader__",
        "__spec__",
        "__import__",
        "__reduce__",
        "__reduce_ex__",
        "__self__",
        "__func__",
    ]
)
# characters that make text display differently from what Python reads (Trojan Source, CVE-2021-42574)
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
