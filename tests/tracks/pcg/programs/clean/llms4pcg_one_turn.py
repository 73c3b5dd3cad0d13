from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

PROMPT = "Use drop_block(block_type, x) calls to build a stable structure shaped like <OBJECT>."


class OneTurn(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        messages = [{"role": "user", "content": PROMPT.replace("<OBJECT>", target_character)}]
        return chat_with_llm(ctx, messages)[0]
