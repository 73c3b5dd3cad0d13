"""Zero-shot multi-turn baseline (LLMs4PCG 2025 "strong baseline"): plan the letter, then write the drops.

Written for podium from the published description of the official baseline: a first user turn, the model's
answer kept in the conversation, a second user turn appended, and the last answer returned; ``<OBJECT>`` is
replaced by the bare letter. The prompt texts are ours, not the organisers'. The official example reads its turns
from ``prompts/*.txt`` in file-system order; this one carries them in order in the program, so it needs no file
access and cannot send them in another order.
"""

from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

TURNS = (
    """You are building a structure in a 2D level of the game Science Birds.
The level is a grid 20 columns wide (x = 0 on the left to 19 on the right) and 16 rows high.
Blocks fall straight down from the top and stop on the base or on the first block below them.
There are three blocks: b11 is a 1x1 square, b31 is a horizontal bar 3 wide and 1 high, b13 is a vertical bar
1 wide and 3 high.

Describe how to build the uppercase letter <OBJECT> with these blocks: which columns its strokes occupy, how tall
each part is, and which blocks hold up the others so that the structure stays standing.""",
    """Now write the structure you described as drop_block calls, for example drop_block('b13', 4) drops a vertical
bar centred on column 4. Drop the lower parts first. Put every call in one Python code block, one call per line,
with literal values only.""",
)


class ZeroShotMultiTurn(TrialLoop):
    """Sends each turn in order, keeping the model's answers in the conversation; returns the last answer."""

    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        """Plan the letter in the first turn, ask for the drops in the second."""
        messages = []
        answer = ""
        for turn in TURNS:
            messages.append({"role": "user", "content": turn.replace("<OBJECT>", target_character)})
            answer = chat_with_llm(ctx, messages)[0]
            messages.append({"role": "assistant", "content": answer})
        return answer
