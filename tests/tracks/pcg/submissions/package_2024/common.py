"""Shared base class of our architectures."""
from chatgpt4pcg.models.trial_loop import TrialLoop
from chatgpt4pcg.models.trial_context import TrialContext
from pcg_prompt_kit import GRID, fence


class Architecture(TrialLoop):
    """Adds the grid description every prompt of ours starts with."""

    @staticmethod
    def header(ctx: TrialContext) -> str:
        return f"Team {ctx.get_team_name()} builds on a {GRID} grid, trial {ctx.get_trial_number()}. " + fence("drop_block only")
