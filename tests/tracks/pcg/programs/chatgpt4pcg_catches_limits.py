"""A 2024 program that catches the limits' exceptions and returns what it has, as four of the real 2024 entries do.

C's two calls pass the token limit (``ValueError`` after the second): the program catches it and returns its first
answer. The official package writes that text as the trial's response; so does podium unless ``--strict-limits``.
"""

from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop


class Careful(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        extra = " BIG" if target_character == "C" else ""
        prompt = f"Draw {target_character} for {ctx.get_team_name()}.{extra}"
        best = ""
        try:
            best = chat_with_chatgpt(ctx, [{"role": "user", "content": prompt}])[0]
            if target_character == "C":
                best = chat_with_chatgpt(ctx, [{"role": "user", "content": prompt + " again"}])[0]
        except (TimeoutError, ValueError) as error:
            return f"{best}\n# stopped early: {error}"
        return best
