"""The code podium puts inside a participant's sandbox, beside the program: its end of the channel and the API.

These modules are copied into the sandbox as the package ``_podium`` (``podium.tracks.pcg.generation.box`` lays the
box out), where thin modules named like the official packages (``chatgpt4pcg.competition``,
``llms4pcg.models.trial_context``, ...) re-export them, so a program written against ``chatgpt4pcg`` 1.2.2 or
``llms4pcg`` 2.0.1 imports what it always imported. They run under the system's Python with the standard library
only, and podium itself never imports them. They are untrusted the moment they run: the program shares their
process and can change anything in them, so they decide nothing. Every rule (limits, model, tokens, which trial
runs) is the parent's; this side only carries requests and raises what the parent says to raise.
"""
