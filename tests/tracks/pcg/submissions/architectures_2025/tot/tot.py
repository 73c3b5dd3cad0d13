import glob
import os
from pathlib import Path

from llms4pcg.competition import chat_with_llm, run_evaluation
from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop
from pcg_prompt_kit import numbered

from thoughts import best_of  # tot/thoughts.py, beside this file

# paths are relative to the submission's top folder, where we start the program
SYSTEM = "".join(open(p, encoding="utf-8").read() for p in sorted(glob.glob("prompts/*.txt")))
TASK = Path("tot/prompts/task.txt").read_text(encoding="utf-8")
EXAMPLES = {Path(p).stem: Path(p).read_text() for p in sorted(glob.glob(os.path.join("level_db", "*.txt")))}


class ToT(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        example = EXAMPLES[target_character]
        messages = [
            {"role": "system", "content": SYSTEM + f"Model: {ctx.get_model_name()}."},
            {"role": "user", "content": TASK.replace("<OBJECT>", target_character) + "\n" + numbered(example.splitlines())},
        ]
        ideas = chat_with_llm(ctx, messages, n=3)
        messages.append({"role": "assistant", "content": best_of(ideas)})
        messages.append({"role": "user", "content": "Write the final drop_block code."})
        return chat_with_llm(ctx, messages)[0]


if __name__ == "__main__":
    run_evaluation("thoughtful", fn=ToT, num_trials=10, model_name="qwen2.5:32b-instruct-fp16")
