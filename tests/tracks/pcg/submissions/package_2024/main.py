from chatgpt4pcg.competition import chat_with_chatgpt, run_evaluation
from chatgpt4pcg.models.trial_context import TrialContext

from common import Architecture
from graph import controller


class GraphOfStrokes(Architecture):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        plan = controller.plan(target_character)
        messages = [
            {"role": "system", "content": Architecture.header(ctx)},
            {"role": "user", "content": f"Draw the letter {target_character} as strokes: {plan}."},
        ]
        first = chat_with_chatgpt(ctx, messages)[0]
        messages += [{"role": "assistant", "content": first}, {"role": "user", "content": "Now only the code."}]
        return chat_with_chatgpt(ctx, messages)[0]


if __name__ == "__main__":
    run_evaluation("graph_team", GraphOfStrokes, num_trials=10)
