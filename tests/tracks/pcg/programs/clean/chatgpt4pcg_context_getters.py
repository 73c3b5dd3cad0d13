import random
import re

from chatgpt4pcg.competition import chat_with_chatgpt, run_evaluation
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop


class Retry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        rng = random.Random(ctx.get_trial_number())
        style = rng.choice(["tall", "wide"])
        messages = [{"role": "user", "content": f"Draw a {style} {target_character} with drop_block."}]
        answer = ""
        while ctx.get_total_token_count() < 20000:
            answer = chat_with_chatgpt(ctx, messages, n=1)[0]
            if re.search(r"drop_block", answer):
                break
            messages += [{"role": "assistant", "content": answer}, {"role": "user", "content": "Use drop_block."}]
        return answer


if __name__ == "__main__":
    run_evaluation("retry", Retry)
