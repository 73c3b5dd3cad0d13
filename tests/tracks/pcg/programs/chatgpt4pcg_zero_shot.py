"""A participant's program written against the official chatgpt4pcg 1.2.2, run unchanged by the package and podium.

One call per trial (two for C, whose 40,000 tokens pass the limit: ``ValueError``, no file), an empty answer for D.
"""

from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop


class ZeroShot(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        extra = {"C": " BIG", "D": " EMPTY"}.get(target_character, "")
        prompt = f"Draw <OBJECT> for {ctx.get_team_name()}.{extra}".replace("<OBJECT>", target_character)
        answers = chat_with_chatgpt(ctx, [{"role": "user", "content": prompt}], n=3 if target_character == "A" else 1)
        if target_character == "C":
            answers = chat_with_chatgpt(ctx, [{"role": "user", "content": prompt + answers[0]}])
        return answers[-1]
