"""Thumbnails: small grey PNGs of what the picture shows, made once per content, the same bytes every time."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from podium.tracks.pcg.thumbnails import ThumbnailCache, make_thumbnails, thumbnail_png


def picture(path: Path, *, transparent: bool = False, black_box: tuple[int, int, int, int] = (0, 0, 512, 1024)) -> Path:
    image = Image.new("RGBA", (1024, 1024), (255, 255, 255, 0 if transparent else 255))
    image.paste((0, 0, 0, 255), black_box)
    image.save(path)
    return path


def test_a_thumbnail_is_small_grey_and_shows_the_picture(tmp_path: Path) -> None:
    png = thumbnail_png(picture(tmp_path / "a.png").read_bytes())
    assert len(png) < 400
    with Image.open(io.BytesIO(png)) as thumb:
        assert thumb.size == (96, 96) and thumb.mode == "P"
        grey = thumb.convert("L")
        assert grey.getpixel((10, 48)) == 0 and grey.getpixel((86, 48)) == 255  # left half black, right white
    assert png.startswith(b"\x89PNG")


def test_transparent_parts_show_as_white(tmp_path: Path) -> None:
    png = thumbnail_png(picture(tmp_path / "t.png", transparent=True).read_bytes())
    with Image.open(io.BytesIO(png)) as thumb:
        assert thumb.convert("L").getpixel((86, 48)) == 255


def test_make_thumbnails_caches_by_content_and_skips_unreadable_files(tmp_path: Path) -> None:
    sources = {"a": picture(tmp_path / "a.png"), "b": picture(tmp_path / "b.png", black_box=(0, 0, 1024, 100))}
    (tmp_path / "bad.png").write_bytes(b"not a png")
    sources |= {"bad": tmp_path / "bad.png", "gone": tmp_path / "missing.png"}
    cache_file = tmp_path / "cache" / "thumbs.jsonl"
    first = make_thumbnails(sources, cache=ThumbnailCache(cache_file))
    assert sorted(first) == ["a", "b"] and first["a"] != first["b"]
    assert len(cache_file.read_text().splitlines()) == 2
    picture(tmp_path / "a.png", black_box=(0, 0, 1024, 1024))  # a's content changes: only a is made again
    again = make_thumbnails(sources, cache=ThumbnailCache(cache_file))
    assert again["b"] == first["b"] and again["a"] != first["a"]
    assert len(cache_file.read_text().splitlines()) == 3
    with cache_file.open("a") as handle:
        handle.write('{"digest": "torn')  # a run killed mid-line
    assert make_thumbnails(sources, cache=ThumbnailCache(cache_file)) == again
