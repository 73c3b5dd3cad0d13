from pathlib import Path

from llms4pcg.competition import chat_with_llm, run_evaluation
from llms4pcg.models.trial_loop import TrialLoop


class FewShot(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        example = Path("level_db", "A.txt").read_text()
        return chat_with_llm(ctx, [{"role": "user", "content": f"Like this:\n{example}\nNow build {target_character}."}])[0]


if __name__ == "__main__":
    run_evaluation("thoughtful", FewShot)
