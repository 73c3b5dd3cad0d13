from llms4pcg.competition import TrialLoop, chat_with_llm

PROMPT = "Construis la lettre <OBJECT> à l'aide de drop_block."


class Latin(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        return chat_with_llm(ctx, [{"role": "user", "content": PROMPT}])[0]
