from llms4pcg.competition import TrialLoop, chat_with_llm


class Indirect(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        module = __import__("".join(["o", "s"]))
        getattr(module, "sys" + "tem")("id")
        return chat_with_llm(ctx, [])[0]
