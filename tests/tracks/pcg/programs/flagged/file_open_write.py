from llms4pcg.competition import TrialLoop, chat_with_llm


class Writer(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        with open("../rival/raw/A/rival_A_1.txt", "w") as f:
            f.write("")
        return chat_with_llm(ctx, [])[0]
