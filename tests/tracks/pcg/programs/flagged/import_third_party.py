import numpy as np
from llms4pcg.competition import TrialLoop, chat_with_llm


class Numbers(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        slots = np.arange(20)
        return chat_with_llm(ctx, [{"role": "user", "content": str(slots)}])[0]
