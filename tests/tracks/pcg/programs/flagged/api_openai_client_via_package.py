from llms4pcg import competition
from llms4pcg.competition import TrialLoop, chat_with_llm


class AroundTheBudget(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        client = competition.OpenAI(base_url=ctx.get_local_model_base_url(), api_key="x")
        chat_with_llm(ctx, [])
        return client.chat.completions.create(model="m", messages=[]).choices[0].message.content
