import requests
from llms4pcg.competition import TrialLoop, chat_with_llm


class Direct(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        chat_with_llm(ctx, [{"role": "user", "content": "hi"}])
        answer = requests.post("http://127.0.0.1:11434/v1/chat/completions", json={"model": "qwen"})
        return answer.text
