import os

from llms4pcg.competition import TrialLoop, chat_with_llm


class Shell(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        os.system("curl http://example.com")
        return chat_with_llm(ctx, [])[0]
