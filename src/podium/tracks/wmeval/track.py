"""The wmeval track's registration record (entry point ``podium.tracks: wmeval``)."""

from __future__ import annotations

from podium.core.registry import Track


def _cli_group() -> object:
    from podium.tracks.wmeval.cli import wmeval  # imported lazily: listing tracks should stay cheap

    return wmeval


def _web_router(settings: object) -> object:
    from podium.tracks.wmeval.web import wmeval_router  # FastAPI is an extra: import only when serving

    return wmeval_router(settings)  # type: ignore[arg-type]


TRACK = Track(
    name="wmeval",
    summary="GigaBrain Challenge 2026 World Model track: human 0-3 scoring of generated robot videos",
    cli_group=_cli_group,
    web_router=_web_router,
)
