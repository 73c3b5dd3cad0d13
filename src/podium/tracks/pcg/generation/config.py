"""A competition's generation, declared in one TOML file: every team's program or prompt, and the models.

::

    version = 1
    edition = 2025                 # 2023 | 2024 | 2025
    trials = 10                    # optional (10)
    characters = "A,B,C"           # optional (A..Z)
    master_seed = 6280             # optional, where the edition allows it (2025): a seed per trial
    teams_in_parallel = 2          # optional (2)
    find_links = ["wheels"]        # optional: local folders of wheels for the teams' requirements
    no_index = false               # optional: true installs from find_links only

    [[models]]
    spec = "openai:qwen2.5:32b-instruct-fp16"
    base_url = "http://localhost:11434/v1"
    folder = "qwen2.5-32b"         # optional: the model's root under ROOT (default: the model name, ':' as '_')

    [[teams]]
    name = "team_a"
    program = "submissions/team_a.zip"  # a .py, a folder or a .zip; or prompt = "...txt" (2023)
    entry = "tot/tot.py"                # optional: the program's file inside the submission
    workdir = ""                        # optional: the folder it starts in (default: the top)
    requirements = ["numpy==1.26.4"]    # optional: beyond the submission's requirements.txt

Paths are relative to this file.

2025 runs every team once per model, each model in its own official root ``ROOT/<FOLDER>/`` (see
``docs/design/pcg-2025-models.md``); 2023 and 2024 have one model and write ``ROOT`` itself. The file names no
secret: API keys come from the environment.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podium.core.errors import ConfigError, InputError
from podium.core.execution.sandbox.packages import InstallOptions
from podium.core.storage.files import read_bytes
from podium.tracks.pcg.editions import CHARACTERS, DEFAULT_EDITION, Edition, edition

_TOP = {"version", "edition", "trials", "characters", "master_seed", "teams_in_parallel", "find_links", "no_index",
        "models", "teams"}  # fmt: skip
_TEAM = {"name", "program", "prompt", "entry", "workdir", "requirements"}


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One model of the run and the folder its official root gets."""

    spec: str
    base_url: str | None
    folder: str | None  # None: the run's root itself (editions with one model)


@dataclass(frozen=True, slots=True)
class TeamEntry:
    """One team's submission and how to run it."""

    name: str
    program: Path | None
    prompt: Path | None
    entry: str | None = None
    workdir: str | None = None
    requirements: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """The whole run."""

    edition: Edition
    trials: int
    characters: tuple[str, ...]
    master_seed: int | None
    teams_in_parallel: int
    models: tuple[ModelEntry, ...]
    teams: tuple[TeamEntry, ...]
    install: InstallOptions = InstallOptions()
    edition_given: bool = True  # the file names its edition (else the default, which the programs may override)


def load_config(path: Path) -> GenerateConfig:
    """Read and check a generation config; ConfigError names the field and the fix."""
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"not a TOML file: {error}", path=path) from None
    unknown = set(data) - _TOP
    if unknown or data.get("version") != 1:
        raise ConfigError(f"{path}: version must be 1 and the keys among {sorted(_TOP)}; found {sorted(data)}")
    edition_rules = edition(_int(data, "edition", DEFAULT_EDITION))
    characters = tuple(c.strip() for c in str(data.get("characters", ",".join(CHARACTERS))).split(",") if c.strip())
    models = tuple(_model(entry) for entry in _tables(data, "models"))
    if not models and edition_rules.generation.default_model is not None:
        models = (ModelEntry(edition_rules.generation.default_model, None, None),)
    if not models:
        raise ConfigError(
            f"{path}: {edition_rules.year} runs name their models", fix='add [[models]] spec = "openai:..."'
        )
    if not edition_rules.models_summed and len(models) > 1:
        raise ConfigError(f"{path}: {edition_rules.year} runs one model", fix="list one [[models]] entry")
    if edition_rules.models_summed:
        models = tuple(ModelEntry(m.spec, m.base_url, m.folder or _folder(m.spec)) for m in models)
    else:
        models = tuple(ModelEntry(m.spec, m.base_url, None) for m in models)
    if len({m.folder for m in models}) != len(models):
        raise ConfigError(f"{path}: two models share a folder", fix="give each [[models]] its own folder")
    teams = tuple(_team(entry, path.parent, edition_rules) for entry in _tables(data, "teams"))
    if not teams or len({t.name for t in teams}) != len(teams):
        raise ConfigError(f"{path}: list each team once under [[teams]]")
    master_seed = data.get("master_seed")
    if master_seed is not None and (not isinstance(master_seed, int) or not edition_rules.generation.master_seed):
        raise ConfigError(
            f"{path}: master_seed is a whole number, for editions that derive seeds (not {edition_rules.year})"
        )
    return GenerateConfig(
        edition_rules,
        _int(data, "trials", 10),
        characters,
        master_seed,
        _int(data, "teams_in_parallel", 2),
        models,
        teams,
        _install(data, path.parent),
        edition_given="edition" in data,
    )


def _install(data: dict[str, Any], base: Path) -> InstallOptions:
    links, no_index = data.get("find_links", []), data.get("no_index", False)
    if (
        not isinstance(links, list)
        or not all(isinstance(link, str) for link in links)
        or not isinstance(no_index, bool)
    ):
        raise ConfigError('find_links is a list of folders (["wheels"]) and no_index true or false')
    folders = tuple((base / link).resolve() for link in links)
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise ConfigError(f"find_links folder {missing[0]} does not exist", fix="make it, or correct the path")
    return InstallOptions(folders, no_index)


def _int(data: dict[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{key} must be a positive whole number, not {value!r}")
    return value


def _tables(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    tables = data.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{key} must be a list of tables ([[{key}]])")
    return tables


def _model(entry: dict[str, Any]) -> ModelEntry:
    if set(entry) - {"spec", "base_url", "folder"} or not isinstance(entry.get("spec"), str):
        raise ConfigError(f"a [[models]] entry has spec, and optionally base_url and folder: {entry}")
    folder = entry.get("folder")
    if folder is not None and (not isinstance(folder, str) or "/" in folder or folder in ("", ".", "..", "result")):
        raise ConfigError(f"model folder {folder!r} must be a plain folder name")
    return ModelEntry(entry["spec"], entry.get("base_url"), folder)


def _folder(spec: str) -> str:
    return spec.partition(":")[2].replace(":", "_").replace("/", "_")


def _team(entry: dict[str, Any], base: Path, edition_rules: Edition) -> TeamEntry:
    if set(entry) - _TEAM or not isinstance(entry.get("name"), str):
        fields = ", ".join(sorted(_TEAM))
        raise ConfigError(f"a [[teams]] entry has name and program (or prompt, 2023), and may have {fields}: {entry}")
    wanted = "program" if edition_rules.generation.takes_programs else "prompt"
    unwanted = {"program", "prompt"} - {wanted}
    if not isinstance(entry.get(wanted), str) or unwanted & set(entry):
        raise ConfigError(f"team {entry['name']!r}: {edition_rules.year} submissions are a {wanted}")
    options = {key: entry.get(key) for key in ("entry", "workdir")}
    requirements = entry.get("requirements", [])
    if (
        not all(v is None or isinstance(v, str) for v in options.values())
        or not isinstance(requirements, list)
        or not all(isinstance(r, str) for r in requirements)
    ):
        raise ConfigError(f"team {entry['name']!r}: entry and workdir are paths, requirements a list of strings")
    if wanted == "prompt" and (any(options.values()) or requirements):
        raise ConfigError(f"team {entry['name']!r}: entry, workdir and requirements are for programs")
    file = base / entry[wanted]
    return TeamEntry(
        entry["name"],
        file if wanted == "program" else None,
        file if wanted == "prompt" else None,
        options["entry"],
        options["workdir"],
        tuple(requirements),
    )
