import codecs

from llms4pcg.competition import TrialLoop, chat_with_llm


class Rot(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        name = codecs.decode("bf", "rot13")
        globals()["helper"] = name
        return chat_with_llm(ctx, [])[0]
