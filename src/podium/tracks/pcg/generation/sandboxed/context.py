"""``TrialLoop`` and ``TrialContext`` with the official packages' names, methods and behaviour.

The token counters are the program's own copy, for its getters only: the judge keeps its own count, and a program
that changes this one changes nothing but what it reads back.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from time import perf_counter


class TrialContext:
    """What one trial knows (``chatgpt4pcg`` 1.2.2's getters)."""

    def __init__(self, team_name: str, character: str, trial_number: int, log_file_path: Path) -> None:
        self.__team_name = team_name
        self.__character = character
        self.__trial_number = trial_number
        self.__log_file_path = log_file_path
        self.__start_time = perf_counter()
        self.__prompt_token_count = 0
        self.__output_token_count = 0

    def get_team_name(self) -> str:
        """The team's name."""
        return self.__team_name

    def get_character(self) -> str:
        """The target letter."""
        return self.__character

    def get_trial_number(self) -> int:
        """The trial's number, from 1."""
        return self.__trial_number

    def get_start_time(self) -> float:
        """``time.perf_counter()`` when the trial started."""
        return self.__start_time

    def get_log_file_path(self) -> Path:
        """The run's log, as the official package names it (relative to the run's folder)."""
        return self.__log_file_path

    def get_output_folder_path(self) -> Path:
        """``<team>/raw/<C>``, relative, as the official package says (the judge writes the file, not the program)."""
        return Path(self.__team_name) / "raw" / Path(self.__character)

    def get_output_file_path(self) -> Path:
        """``<team>/raw/<C>/<team>_<C>_<n>.txt``."""
        name = f"{self.get_team_name()}_{self.get_character()}_{self.get_trial_number()}.txt"
        return self.get_output_folder_path() / name

    def add_prompt_token_count(self, count: int) -> None:
        """Add to the program's own copy of the prompt tokens."""
        self.__prompt_token_count += count

    def add_output_token_count(self, count: int) -> None:
        """Add to the program's own copy of the completion tokens."""
        self.__output_token_count += count

    def get_total_token_count(self) -> int:
        """Prompt and completion tokens of this trial so far (as the judge reported them)."""
        return self.__prompt_token_count + self.__output_token_count

    def __str__(self) -> str:
        return (
            f"TrialContext(team_name={self.__team_name}, character={self.__character}, "
            f"trial_number={self.__trial_number}, log_file_path={self.__log_file_path}, "
            f"start_time={self.__start_time}, prompt_token_count={self.__prompt_token_count}, "
            f"output_token_count={self.__output_token_count}{self._more()})"
        )

    def _more(self) -> str:
        return ""


class ModelTrialContext(TrialContext):
    """``llms4pcg`` 2.0.1's context: the 2024 one plus the model's name and server."""

    def __init__(
        self,
        team_name: str,
        character: str,
        trial_number: int,
        log_file_path: Path,
        model_name: str | None = None,
        local_model_base_url: str | None = None,
    ) -> None:
        super().__init__(team_name, character, trial_number, log_file_path)
        self.__model_name = model_name
        self.__local_model_base_url = local_model_base_url

    def get_model_name(self) -> str | None:
        """The model's name on its server."""
        return self.__model_name

    def get_local_model_base_url(self) -> str | None:
        """The server's address as the organisers gave it (unreachable from here: the judge makes every call)."""
        return self.__local_model_base_url

    def _more(self) -> str:
        return f", model_name={self.__model_name}, local_model_base_url={self.__local_model_base_url}"


ModelTrialContext.__name__ = ModelTrialContext.__qualname__ = "TrialContext"  # the name a program prints


class TrialLoop(ABC):
    """What a program subclasses: ``run(ctx, target_character)`` returns the trial's final response."""

    @staticmethod
    @abstractmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        """One trial."""
