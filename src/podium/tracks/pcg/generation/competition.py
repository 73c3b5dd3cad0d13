"""Every team of a competition, under every model, several teams at a time (``podium pcg generate --config``).

Each (model, team) pair is one ``generate_team`` job in a thread: the work is waiting on the sandboxed program and
the model server, not the judge's CPU, and the sandbox and the model clients are safe to share between threads.
A server's own concurrency limit (``podium.core.llm.transport``) keeps the number of open requests to it bounded
however many teams run at once.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from podium.core.errors import PodiumError
from podium.core.execution.sandbox import Sandbox
from podium.core.llm import ChatModel, open_model, parse_model_spec
from podium.core.llm.transport import RetryPolicy
from podium.core.storage.files import read_bytes
from podium.tracks.pcg.generation.config import GenerateConfig, ModelEntry, TeamEntry
from podium.tracks.pcg.generation.edition_choice import EditionChoice, choose_edition, run_facts
from podium.tracks.pcg.generation.records import TeamRun
from podium.tracks.pcg.generation.session import ServerHealth
from podium.tracks.pcg.generation.submission import load_program
from podium.tracks.pcg.generation.team import GenerateSettings, Submission, generate_team
from podium.tracks.pcg.official.text import decode_utf8

ModelOpener = Callable[[ModelEntry], ChatModel]


def open_config_model(entry: ModelEntry, policy: RetryPolicy, fill_choices: bool | None = None) -> ChatModel:
    """The model of a config entry, its API key from the environment (``fill_choices``: ``open_model``'s)."""
    return open_model(entry.spec, base_url=entry.base_url, env=os.environ, policy=policy, fill_choices=fill_choices)


def submission_of(team: TeamEntry) -> Submission:
    """A team's submission, read from its file or folder; one that cannot be read fails only that team."""
    try:
        if team.program is not None:
            program = load_program(team.program, entry=team.entry, workdir=team.workdir, requirements=team.requirements)
            return Submission(team.name, program)
        assert team.prompt is not None
        return Submission(team.name, prompt=decode_utf8(read_bytes(team.prompt), team.prompt).text)
    except PodiumError as error:
        return Submission(team.name, unusable=f"{error.describe()}" + (f" (fix: {error.fix})" if error.fix else ""))


def choose_config_edition(config: GenerateConfig) -> tuple[GenerateConfig, EditionChoice]:
    """The config under the edition its teams' programs import (``edition_choice.py``); the choice."""
    loaded = [(team.name, submission_of(team).program) for team in config.teams]
    choice = choose_edition([(name, p) for name, p in loaded if p is not None], config.edition, config.edition_given)
    return dataclasses.replace(config, edition=choice.edition), choice


def generate_competition(
    config: GenerateConfig,
    root: Path,
    sandbox: Sandbox | None,
    opener: ModelOpener | None = None,
    *,
    policy: RetryPolicy | None = None,
    check_models: bool = True,
    strict_limits: bool = False,
    choice: EditionChoice | None = None,
) -> list[TeamRun]:
    """Run every (model, team) pair; the runs in the config's order (models, then teams).

    Every model is first checked on its server (``ChatModel.check``): a wrong address, back-end or model name
    stops the command before any team runs, instead of failing each of its trials.
    """
    policy = policy or RetryPolicy(timeout_s=config.edition.generation.http_timeout_s)
    opener = opener or (lambda entry: open_config_model(entry, policy))
    models = {entry: opener(entry) for entry in config.models}
    if check_models:
        for model in models.values():
            model.check()
    submissions = {team.name: submission_of(team) for team in config.teams}  # every file read before any run
    # one health per server, shared by its teams: a server found down costs one timeout, not one per team
    health = {entry: ServerHealth(model.probe, entry.base_url or model.name) for entry, model in models.items()}

    def one(entry: ModelEntry, team: TeamEntry) -> TeamRun:
        settings = GenerateSettings(
            root if entry.folder is None else root / entry.folder,
            config.edition.generation,
            models[entry],
            parse_model_spec(entry.spec).model,
            entry.base_url,
            config.characters,
            config.trials,
            config.master_seed,
            install=config.install,
            server=health[entry],
            strict_limits=strict_limits,
            facts=run_facts(choice or EditionChoice(config.edition, "given"), models[entry], entry.base_url),
        )
        return generate_team(submissions[team.name], settings, sandbox)

    with concurrent.futures.ThreadPoolExecutor(config.teams_in_parallel) as pool:
        futures = [pool.submit(one, entry, team) for entry in config.models for team in config.teams]
        return [future.result() for future in futures]
