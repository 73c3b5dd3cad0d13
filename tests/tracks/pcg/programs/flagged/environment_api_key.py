import os as o

from llms4pcg.competition import TrialLoop, chat_with_llm


class Key(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        key = o.environ.get("OPENAI_API_KEY", "")
        return chat_with_llm(ctx, [{"role": "user", "content": key}])[0]
