import base64

from llms4pcg.competition import TrialLoop, chat_with_llm


class Hidden(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        exec(base64.b64decode("aW1wb3J0IG9z").decode())
        return chat_with_llm(ctx, [])[0]
