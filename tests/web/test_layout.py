"""The shared page layout escapes what it is given."""

from __future__ import annotations

from podium.web.layout import page


def test_the_layout_escapes_title_site_and_links() -> None:
    shown = page("<b>x</b>", "<p>body</p>", site="A & B", nav=[("Home's", "/?a=1&b='2'")])
    assert "<title>&lt;b&gt;x&lt;/b&gt; · A &amp; B</title>" in shown and "<p>body</p>" in shown
    assert "<a href='/?a=1&amp;b=&#x27;2&#x27;'>Home&#x27;s</a>" in shown and "<h1>&lt;b&gt;x&lt;/b&gt;</h1>" in shown
