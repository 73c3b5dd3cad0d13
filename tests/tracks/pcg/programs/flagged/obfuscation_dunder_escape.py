from llms4pcg.competition import TrialLoop, chat_with_llm


class Escape(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        classes = ().__class__.__bases__[0].__subclasses__()
        return chat_with_llm(ctx, [{"role": "user", "content": str(len(classes))}])[0]
