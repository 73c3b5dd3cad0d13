"""A local wheelhouse made at test time, offline: one small pure-Python package of our own, ``pcg-prompt-kit``.

The realistic submissions under ``submissions/`` depend on it the way real entries depend on ``python-dotenv`` or
``numpy``: declared in a ``requirements.txt`` or only in the README. A wheel is a zip with the package, its
``METADATA``, ``WHEEL`` and a ``RECORD`` of hashes (PEP 427), so writing one needs nothing but the standard library.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

NAME, VERSION = "pcg_prompt_kit", "0.1.0"
REQUIREMENT = "pcg-prompt-kit==0.1.0"
MODULE = '''"""Prompt helpers (a test fixture's dependency)."""

GRID = "20x16"


def fence(text):
    return "<<" + text + ">>"


def numbered(lines):
    return "\\n".join(f"{i + 1}. {line}" for i, line in enumerate(lines))
'''


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def wheel_files() -> dict[str, bytes]:
    """The wheel's members, RECORD last."""
    info = f"{NAME}-{VERSION}.dist-info"
    files = {
        f"{NAME}/__init__.py": MODULE.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: pcg-prompt-kit\nVersion: {VERSION}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: podium-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    return files


def make_wheelhouse(folder: Path) -> Path:
    """``folder`` holding the one wheel; the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"{NAME}-{VERSION}-py3-none-any.whl", "w") as wheel:
        for path, data in wheel_files().items():
            wheel.writestr(path, data)
    return folder


def unpacked(folder: Path) -> Path:
    """The package as an importable folder (for the official package's runs: ``PYTHONPATH``)."""
    for path, data in wheel_files().items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    return folder
