"""An example LLMs4PCG 2025 participant program: ask for the letter, then ask the model to check its own answer.

Written against the official ``llms4pcg`` 2.0.1 API only, so it runs unchanged under the official package and
under ``podium pcg generate`` (see the README section "Run your program locally as it will be judged").
"""

from llms4pcg.competition import chat_with_llm, run_evaluation
from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop

PROMPT = """You build the upper-case letter <OBJECT> in Science Birds, on a grid 20 columns wide and 16 rows high.
Blocks fall from the top of a column: drop_block('b11', x) drops a 1x1 square, drop_block('b31', x) a horizontal
3x1 bar centred on column x, drop_block('b13', x) a vertical 1x3 bar. The structure must stand on its own.
Answer with one fenced code block holding only drop_block calls, one per line."""

CHECK = """Check your structure: does it read as the letter <OBJECT>, and does every block rest on something?
Answer with the corrected drop_block calls in one fenced code block."""


class AskThenCheck(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        messages = [{"role": "user", "content": PROMPT.replace("<OBJECT>", target_character)}]
        first = chat_with_llm(ctx, messages)[0]
        messages += [
            {"role": "assistant", "content": first},
            {"role": "user", "content": CHECK.replace("<OBJECT>", target_character)},
        ]
        return chat_with_llm(ctx, messages)[0]


if __name__ == "__main__":
    # the official way to run it (pip install llms4pcg==2.0.1); podium imports the module and never runs this block
    run_evaluation(
        "my_team", AskThenCheck, model_name="qwen2.5:32b-instruct-fp16", local_model_base_url="http://localhost:11434/v1"
    )
