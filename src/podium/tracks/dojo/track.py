"""The Sequence Dojo track's registration record (entry point ``podium.tracks: dojo``)."""

from __future__ import annotations

from podium.core.registry import Track


def _cli_group() -> object:
    from podium.tracks.dojo.cli import dojo  # imported lazily: listing tracks should stay cheap

    return dojo


def _web_router(settings: object) -> object:
    from podium.tracks.dojo.web import dojo_router  # FastAPI is an extra: import only when serving

    return dojo_router(settings)  # type: ignore[arg-type]


TRACK = Track(
    name="dojo",
    summary="Sequence Dojo: shortest programs that print a setter's integer sequence, judged in a sandbox",
    cli_group=_cli_group,
    web_router=_web_router,
)
