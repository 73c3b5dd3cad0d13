from llms4pcg.competition import TrialLoop, chat_with_llm


class Broken(TrialLoop:
    @staticmethod
    def run(ctx, target_character):
        return chat_with_llm(ctx, [])[0]
