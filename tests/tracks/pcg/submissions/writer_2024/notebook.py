import json
import os

from chatgpt4pcg.competition import chat_with_chatgpt, run_evaluation
from chatgpt4pcg.models.trial_loop import TrialLoop
from chatgpt4pcg.utils import log
from pcg_prompt_kit import fence

os.makedirs("results", exist_ok=True)
with open(os.path.join("results", "config.json"), "w") as f:
    json.dump({"temperature_note": "fixed by the organisers", "strategy": "notebook"}, f, indent=2)


class Notebook(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        history = "results/history.txt"
        earlier = open(history).read().splitlines() if os.path.exists(history) else []
        mine = [line for line in earlier if line.startswith(target_character + " ")]
        prompt = f"Build {target_character}. Earlier attempts: {len(mine)}; all letters so far: {len(earlier)}."
        answer = chat_with_chatgpt(ctx, [{"role": "user", "content": fence(prompt)}])[0]
        with open(history, "a") as f:
            f.write(f"{target_character} {ctx.get_trial_number()} {len(answer)}\n")
        log(ctx.get_log_file_path(), f"notebook holds {len(earlier) + 1} lines")
        return answer


if __name__ == "__main__":
    run_evaluation("notebook", Notebook)
