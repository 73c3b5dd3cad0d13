"""``podium pcg generate``: one team's responses from its program or prompt, on the official layout.

The API key of an OpenAI-style server comes from the environment (``PODIUM_LLM_API_KEY`` or ``OPENAI_API_KEY``),
never from an option or a file: options end up in shell histories and run folders.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click
from click.core import ParameterSource

from podium.core.errors import ConfigError, PodiumError
from podium.core.execution.sandbox import BACKENDS, open_sandbox
from podium.core.execution.sandbox.packages import InstallOptions
from podium.core.llm import open_model, parse_model_spec
from podium.core.llm.transport import RetryPolicy
from podium.core.reporting.tables import console_json
from podium.core.storage.files import read_bytes
from podium.tracks.pcg.edition_option import edition_option
from podium.tracks.pcg.editions import CHARACTERS, Edition
from podium.tracks.pcg.generation.competition import choose_config_edition, generate_competition, open_config_model
from podium.tracks.pcg.generation.config import GenerateConfig, load_config
from podium.tracks.pcg.generation.edition_choice import EditionChoice, choose_edition, describe_facts, run_facts
from podium.tracks.pcg.generation.records import GenerateVerdict, TeamRun, TrialKey
from podium.tracks.pcg.generation.submission import load_program
from podium.tracks.pcg.generation.team import GenerateSettings, Submission, generate_team
from podium.tracks.pcg.official.text import decode_utf8

_SHOWN_FAILURES = 20


def register(pcg: click.Group) -> None:
    """Add ``generate`` to the ``pcg`` group."""

    @pcg.command()
    @click.argument("root", type=click.Path(path_type=Path, file_okay=False))
    @click.option("--team", help="The team's folder name under ROOT.")
    @click.option(
        "--config", "config_file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="A TOML file listing every team and model (instead of --team/--program/--prompt/--model).",
    )  # fmt: skip
    @click.option(
        "--program",
        type=click.Path(path_type=Path, exists=True),
        help="A program (editions that take programs, 2024 on): a .py file, a folder or a .zip.",
    )
    @click.option("--entry", help="The program's file inside the submission (default: the one that uses TrialLoop).")
    @click.option("--workdir", help="The folder the program starts in, inside the submission (default: its top).")
    @click.option(
        "--requirement",
        "extra_requirements",
        multiple=True,
        help="A requirement the submission needs beyond its requirements.txt (repeatable), e.g. numpy==1.26.4.",
    )
    @click.option(
        "--find-links",
        multiple=True,
        type=click.Path(path_type=Path, file_okay=False, exists=True),
        help="A local folder of wheels for requirements (repeatable).",
    )
    @click.option("--no-index", is_flag=True, help="Install requirements from --find-links folders only.")
    @click.option(
        "--prompt",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="A prompt file (editions that take prompts: 2023).",
    )
    @click.option("--model", "model_spec", help="BACKEND:MODEL (default: the edition's model; 2025 has none).")
    @click.option("--base-url", help="The model server (e.g. http://localhost:11434/v1 for Ollama's OpenAI API).")
    @edition_option()
    @click.option("--trials", type=int, default=10, show_default=True, help="Trials per character.")
    @click.option("--characters", default=",".join(CHARACTERS), help="Comma-separated letters, in run order.")
    @click.option("--master-seed", type=int, help="Derive a seed per trial from it (2025 on; off: no seed, as 2.0.1).")
    @click.option(
        "--attempts", type=click.IntRange(1, 20), default=RetryPolicy().max_attempts, show_default=True,
        help="Tries per model call on a transient failure (refused, reset, timeout, 429, 5xx), backing off from 1 s.",
    )  # fmt: skip
    @click.option(
        "--timeout", type=click.FloatRange(min=0.1), default=None,
        help="Seconds a model call may wait for its answer [default: the edition's official client's: 60 s in "
        "2024, 600 s otherwise].",
    )  # fmt: skip
    @click.option(
        "--connect-timeout", type=click.FloatRange(min=0.1), default=RetryPolicy().connect_timeout_s,
        show_default=True, help="Seconds to connect to the model server.",
    )  # fmt: skip
    @click.option(
        "--no-model-check", is_flag=True,
        help="Do not ask the server for its models before the run (for servers that list none).",
    )  # fmt: skip
    @click.option(
        "--sandbox", "backend", type=click.Choice(BACKENDS), default="bubblewrap", show_default=True,
        help="rlimits is weaker and not isolated: only for checking your own program.",
    )  # fmt: skip
    @click.option(
        "--official-n", is_flag=True,
        help="Send a program's n as the official client does and take the choices the server answers (by default "
        "a server that answers fewer, as llama.cpp and Ollama's /v1 do, is asked for the rest one at a time, "
        "choice i with seed + i; against api.openai.com the official way is the default).",
    )  # fmt: skip
    @click.option(
        "--strict-limits", is_flag=True,
        help="Fail a trial whose program caught the time or token limit's exception and returned a text (by "
        "default that text is written, as the official packages do).",
    )  # fmt: skip
    @click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
    def generate(
        root: Path,
        team: str | None,
        config_file: Path | None,
        program: Path | None,
        entry: str | None,
        workdir: str | None,
        extra_requirements: tuple[str, ...],
        find_links: tuple[Path, ...],
        no_index: bool,
        prompt: Path | None,
        model_spec: str | None,
        base_url: str | None,
        edition: Edition,
        trials: int,
        characters: str,
        master_seed: int | None,
        attempts: int,
        timeout: float | None,
        connect_timeout: float,
        no_model_check: bool,
        backend: str,
        official_n: bool,
        strict_limits: bool,
        as_json: bool,
    ) -> None:
        """Ask a model for a team's responses: ROOT/TEAM/raw/C/TEAM_C_n.txt, keeping those that exist."""
        if config_file is not None:
            if team or program or prompt or model_spec or entry or workdir or extra_requirements:
                raise ConfigError(
                    "--config lists the teams and models",
                    fix="drop --team/--program/--prompt/--model/--entry/--workdir/--requirement (set them per team)",
                )
            config, choice = choose_config_edition(load_config(config_file))
            click.echo(f"podium: edition {config.edition.year} ({choice.reason})", err=True)
            _warn_if_diversity_cannot_be_scored(config.edition, config.trials)
            policy = RetryPolicy(attempts, timeout_s=timeout or config.edition.generation.http_timeout_s,
                                 connect_timeout_s=connect_timeout)  # fmt: skip
            install = InstallOptions(tuple(p.resolve() for p in find_links), no_index)
            fill = False if official_n else None
            checks = _Checks(not no_model_check, strict_limits, fill, choice)
            _run_config(root, config, backend, as_json, install, policy, checks)
            return
        if team is None:
            raise ConfigError("name the team (--team NAME), or give --config FILE")
        if (program is None) == (prompt is None):
            raise ConfigError("give exactly one of --program FILE and --prompt FILE")
        explicit = click.get_current_context().get_parameter_source("edition") is not ParameterSource.DEFAULT
        if explicit:
            _check_kind(edition, program, prompt)  # before reading a program an edition given cannot take
        loaded = None
        if program is not None:
            loaded = load_program(program, entry=entry, workdir=workdir, requirements=extra_requirements)
        choice = choose_edition([(team, loaded)] if loaded else [], edition, explicit)
        edition = choice.edition
        rules = edition.generation
        _warn_if_diversity_cannot_be_scored(edition, trials)
        if master_seed is not None and not rules.master_seed:
            sent = "no seed" if rules.seed is None else f"seed {rules.seed}"
            raise ConfigError(
                f"--master-seed is not for {edition.year} runs", fix=f"{edition.year} sends {sent}, as officially"
            )
        _check_kind(edition, program, prompt)
        spec = model_spec or rules.default_model
        if spec is None:
            raise ConfigError(
                f"{edition.year} runs name their model", fix="add --model openai:qwen2.5:32b-instruct-fp16 ..."
            )
        parsed = parse_model_spec(spec)
        policy = RetryPolicy(attempts, timeout_s=timeout or rules.http_timeout_s, connect_timeout_s=connect_timeout)
        model = open_model(
            parsed, base_url=base_url, env=os.environ, policy=policy, fill_choices=False if official_n else None
        )
        facts = run_facts(choice, model, base_url)
        click.echo(f"podium: {describe_facts(facts)}", err=True)
        if not no_model_check:
            model.check()  # a wrong address, back-end or model name stops here, not after every trial failed
        if prompt is not None:
            submission = Submission(team, prompt=decode_utf8(read_bytes(prompt), prompt).text)
            sandbox = None
        else:
            assert loaded is not None
            submission = Submission(team, loaded)
            sandbox = open_sandbox(backend, allow_weaker=backend == "rlimits")
        letters = tuple(c.strip() for c in characters.split(",") if c.strip())
        settings = GenerateSettings(
            root.resolve(), rules, model, parsed.model, base_url, letters, trials, master_seed,
            install=InstallOptions(tuple(p.resolve() for p in find_links), no_index), strict_limits=strict_limits,
            facts=facts,
        )  # fmt: skip
        with click.progressbar(length=len(letters) * trials, label=team, file=sys.stderr) as bar:
            run = generate_team(submission, settings, sandbox, on_outcome=lambda outcome: bar.update(1))
        _print(run, as_json)
        _fail_if_the_server_failed_trials([run])


@dataclass(frozen=True, slots=True)
class _Checks:
    """How a --config run treats its model servers and its programs' limits, and the edition it follows."""

    check_models: bool
    strict_limits: bool
    fill_choices: bool | None
    choice: EditionChoice


def _run_config(
    root: Path,
    config: GenerateConfig,
    backend: str,
    as_json: bool,
    install: InstallOptions,
    policy: RetryPolicy,
    checks: _Checks,
) -> None:
    if install.find_links or install.no_index:  # the command line's wheelhouses add to the file's
        install = InstallOptions(
            (*config.install.find_links, *install.find_links), install.no_index or config.install.no_index
        )
        config = dataclasses.replace(config, install=install)
    programs = config.edition.generation.takes_programs
    sandbox = open_sandbox(backend, allow_weaker=backend == "rlimits") if programs else None
    runs = generate_competition(
        config, root.resolve(), sandbox, lambda entry: open_config_model(entry, policy, checks.fill_choices),
        policy=policy, check_models=checks.check_models, strict_limits=checks.strict_limits, choice=checks.choice,
    )  # fmt: skip
    if as_json:
        click.echo(console_json([_summary(run) for run in runs]))
    else:
        for run in runs:
            _print(run, as_json=False)
    _fail_if_the_server_failed_trials(runs)


def _check_kind(edition: Edition, program: Path | None, prompt: Path | None) -> None:
    """An edition's submissions are programs or prompts: ConfigError for the other kind."""
    if program is not None and not edition.generation.takes_programs:
        raise ConfigError(f"{edition.year} submissions are prompts", fix="use --prompt FILE, or another --edition")
    if prompt is not None and edition.generation.takes_programs:
        raise ConfigError(f"{edition.year} submissions are programs", fix="use --program FILE, or another --edition")


def _warn_if_diversity_cannot_be_scored(edition: Edition, trials: int) -> None:
    """Say before the run that one trial per letter scores no diversity (it compares pairs of trials)."""
    if edition.diversity is not None and trials < 2:
        click.echo(
            f"warning: with --trials {trials}, {edition.year}'s diversity (over pairs of a letter's trials) is 0 for "
            "every letter, so every team's trial scores are 0: ask for at least 2 trials to score anything",
            err=True,
        )


def _fail_if_the_server_failed_trials(runs: list[TeamRun]) -> None:
    """A run in which an asked trial got no response because of the model server ends with an error (exit 1).

    After the summary, it lists every such trial and says how to rerun: the responses already written are kept.
    """
    failed = {run.team: [o.key for o in run.outcomes if o.verdict is GenerateVerdict.MODEL_ERROR] for run in runs}
    failed = {team: keys for team, keys in failed.items() if keys}
    if not failed:
        return
    stopped = next((run for run in runs if run.server_down is not None), None)
    first = next(o for run in runs for o in run.outcomes if o.verdict is GenerateVerdict.MODEL_ERROR)
    why = stopped.server_down if stopped is not None else first.reason
    fix = (stopped.server_fix if stopped is not None else None) or "check the model server (and --base-url)"
    count = sum(len(keys) for keys in failed.values())
    missing = "; ".join(f"{team}: {trial_list(keys)}" for team, keys in failed.items())
    raise PodiumError(
        f"{count} trial(s) got no response because of the model server ({why}); missing: {missing}",
        fix=f"{fix}, then run the same command again ({_rerun_command()}): the responses already written are kept "
        "and only the missing trials are asked",
    )


def trial_list(keys: list[TrialKey]) -> str:
    """Trials as ``A 1-3, B 2`` (a letter, then its trial numbers with runs shortened)."""
    by_letter: dict[str, list[int]] = {}
    for key in keys:
        by_letter.setdefault(key.character, []).append(key.number)
    parts = []
    for letter, numbers in by_letter.items():
        runs: list[list[int]] = []
        for number in sorted(numbers):
            if runs and number == runs[-1][-1] + 1:
                runs[-1].append(number)
            else:
                runs.append([number])
        parts.append(f"{letter} " + " ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs))
    return ", ".join(parts)


def _rerun_command() -> str:
    program = os.path.basename(sys.argv[0])
    if program in ("podium", "__main__.py"):
        return shlex.join(["podium", *sys.argv[1:]])
    return "podium pcg generate with the same options"


def _summary(run: TeamRun) -> dict[str, object]:
    return {
        "team": run.team,
        "counts": dict(Counter(o.verdict.value for o in run.outcomes)),
        "log": str(run.log),
        "transcript": str(run.transcript),
        "processes": run.processes,
        "server_down": run.server_down,
        "trials": [
            {"character": o.key.character, "trial": o.key.number, "verdict": o.verdict.value, "reason": o.reason,
             "calls": o.calls, "total_tokens": o.total_tokens}
            for o in run.outcomes
        ],
    }  # fmt: skip


def _print(run: TeamRun, as_json: bool) -> None:
    counts = Counter(o.verdict.value for o in run.outcomes)
    failures = [o for o in run.outcomes if o.verdict not in (GenerateVerdict.OK, GenerateVerdict.SKIPPED)]
    if as_json:
        click.echo(console_json(_summary(run)))
        return
    click.echo(f"{run.team}: " + ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())))
    for outcome in failures[:_SHOWN_FAILURES]:
        key = outcome.key
        click.echo(f"  {key.character} {key.number}: {outcome.verdict.value}: {outcome.reason}")
    if len(failures) > _SHOWN_FAILURES:
        click.echo(f"  ... and {len(failures) - _SHOWN_FAILURES} more (see the log)")
    click.echo(f"log: {run.log}\ntranscript: {run.transcript}")
