from llms4pcg.competition import chat_with_llm


def run(ctx, target_character):
    return chat_with_llm(ctx, [])[0]
