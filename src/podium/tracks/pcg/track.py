"""The PCG track's registration record (entry point ``podium.tracks: pcg``)."""

from __future__ import annotations

from podium.core.registry import Track


def _cli_group() -> object:
    from podium.tracks.pcg.cli import pcg  # imported lazily: listing tracks should stay cheap

    return pcg


TRACK = Track(
    name="pcg",
    summary="ChatGPT4PCG / LLMs4PCG: character-like Science Birds levels from LLM responses",
    cli_group=_cli_group,
)
