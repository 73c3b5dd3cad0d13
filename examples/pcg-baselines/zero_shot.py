"""Zero-shot baseline (LLMs4PCG 2025 "weak baseline"): one user message, the target letter filled in.

Written for podium from the published description of the official baseline (one user turn; ``<OBJECT>`` replaced
by the bare letter; the first answer returned). The prompt text is ours, not the organisers'. It is a program
against ``llms4pcg`` 2.0.1 and uses nothing else, so it runs unchanged under the official package and under
``podium pcg generate``.
"""

from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

PROMPT = """You are building a structure in a 2D level of the game Science Birds.
The level is a grid 20 columns wide (x = 0 on the left to 19 on the right) and 16 rows high.
Blocks fall straight down from the top and stop on the base or on the first block below them.
There are three blocks: b11 is a 1x1 square, b31 is a horizontal bar 3 wide and 1 high, b13 is a vertical bar
1 wide and 3 high. drop_block('b31', 9) drops a horizontal bar centred on column 9.

Write a sequence of drop_block calls that builds a stable structure shaped like the uppercase letter <OBJECT>.
Drop the lower parts first. Put every call in one Python code block, one call per line, with literal values only."""


class ZeroShot(TrialLoop):
    """Sends the prompt once and returns the model's answer."""

    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        """Ask for the letter in a single user message."""
        prompt = PROMPT.replace("<OBJECT>", target_character)
        return chat_with_llm(ctx, [{"role": "user", "content": prompt}])[0]
