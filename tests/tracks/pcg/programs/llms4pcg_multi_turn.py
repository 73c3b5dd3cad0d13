"""A participant's program written against the official llms4pcg 2.0.1, run unchanged by the package and by podium.

Two turns per trial, the context's getters in the messages, ``n=2`` for B, 40,000 tokens for C (the second call
passes the limit: ``ValueError``, no file) and an empty final answer for D (an empty file).
"""

from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop

PROMPT = "Build the letter <OBJECT> with drop_block calls on a 20x16 grid."


class MultiTurn(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        extra = {"C": " BIG", "D": " EMPTY"}.get(target_character, "")
        messages = [
            {
                "role": "system",
                "content": f"Team {ctx.get_team_name()}, trial {ctx.get_trial_number()}, model {ctx.get_model_name()}.",
            },
            {"role": "user", "content": PROMPT.replace("<OBJECT>", target_character) + extra},
        ]
        first = chat_with_llm(ctx, messages, n=2 if target_character == "B" else 1)
        messages.append({"role": "assistant", "content": first[-1]})
        messages.append({"role": "user", "content": f"Make it stable ({ctx.get_total_token_count()} tokens).{extra}"})
        return chat_with_llm(ctx, messages)[0]
