"""The shared page layout escapes what it is given."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from podium.web.layout import countdown, page, time_left


def test_the_layout_escapes_title_site_and_links() -> None:
    shown = page("<b>x</b>", "<p>body</p>", site="A & B", nav=[("Home's", "/?a=1&b='2'")])
    assert "<title>&lt;b&gt;x&lt;/b&gt; · A &amp; B</title>" in shown and "<p>body</p>" in shown
    assert "<a href='/?a=1&amp;b=&#x27;2&#x27;'>Home&#x27;s</a>" in shown and "<h1>&lt;b&gt;x&lt;/b&gt;</h1>" in shown


def test_time_left_reads_as_the_page_script_writes_it() -> None:
    assert time_left(3 * 3600 + 5 * 60 + 7) == "in 3 h 5 min 7 s"
    assert time_left(2 * 86400 + 3600 + 59) == "in 2 d 1 h 0 min"  # seconds are noise days ahead
    assert time_left(42) == "in 42 s" and time_left(0) == time_left(-5) == "now (reload the page)"


def test_a_countdown_names_its_moment_for_the_script() -> None:
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    shown = countdown(now + timedelta(minutes=90), now)
    assert "data-until='2026-06-01T13:30:00Z'" in shown and ">in 1 h 30 min 0 s</time>" in shown
