"""Inline SVG charts: well-formed XML, marks where the data puts them, values on hover, same data same bytes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from podium.core.reporting.charts import Bar, IntervalRow, bar_chart, histogram, interval_chart

SVG = "{http://www.w3.org/2000/svg}"


def svg_of(figure: str) -> ET.Element:
    start, end = figure.index("<svg"), figure.index("</svg>") + len("</svg>")
    return ET.fromstring(figure[start:end].replace("<svg ", "<svg xmlns='http://www.w3.org/2000/svg' ", 1))


def test_interval_chart_places_points_and_ranges_in_order() -> None:
    rows = [IntervalRow("a<b", 40.0, 30.0, 50.0), IntervalRow("c", 10.0, 5.0, 20.0), IntervalRow("d", 5.0)]
    figure = interval_chart(rows, "caption & more")
    root = svg_of(figure)
    circles = root.findall(f"{SVG}circle")
    assert [float(c.get("cy", "")) for c in circles] == sorted(float(c.get("cy", "")) for c in circles)
    assert float(circles[0].get("cx", "")) > float(circles[1].get("cx", "")) > float(circles[2].get("cx", ""))
    ranges = [line for line in root.findall(f"{SVG}line") if line.get("class") == "range"]
    assert len(ranges) == 2  # the row without an interval has none
    assert float(ranges[0].get("x1", "")) < float(circles[0].get("cx", "")) < float(ranges[0].get("x2", ""))
    assert circles[0].findtext(f"{SVG}title") == "a<b: 40.0 (95 % interval 30.0 – 50.0)"
    assert "caption &amp; more" in figure and "a&lt;b" in figure
    assert figure == interval_chart(rows, "caption & more")


def test_bar_heights_follow_values() -> None:
    root = svg_of(bar_chart([Bar("I", 0.1), Bar("L", 0.3, "10 trials"), Bar("U", 0.0)], "c"))
    heights = [float(r.get("height", "")) for r in root.findall(f"{SVG}rect")]
    assert heights[1] == max(heights) and heights[2] == 0 and 2.9 < heights[1] / heights[0] < 3.1
    assert root.findall(f"{SVG}rect")[1].findtext(f"{SVG}title") == "L: 0.30 (10 trials)"


def test_histogram_counts_every_value_once_with_the_top_edge_in_the_last_bin() -> None:
    root = svg_of(histogram([0.0, 0.05, 0.5, 1.0, 1.0, 1.0], "c", bins=4))
    titles = [r.findtext(f"{SVG}title") for r in root.findall(f"{SVG}rect")]
    assert titles == ["0.00–0.25: 2", "0.25–0.50: 0", "0.50–0.75: 1", "0.75–1.00: 3"]
