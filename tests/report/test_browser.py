"""The report in a real headless Chromium (the system's): it loads with no console error and no
request but its own, every chart draws, a screenshot shows something, both colour schemes apply,
and tables sort and page by mouse and keyboard."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageStat
from report_data import DEMO

from onlooker.hosts.recorded.report import report_from_transcripts
from onlooker.report import report_from_store, write_report
from onlooker.report.model import SessionReport
from onlooker.report.render import PAGE_SIZE
from onlooker.store import Store
from onlooker.testing.browser import HeadlessChromium

STORE_BACKENDS = ("sqlite",)  # the page, not the store: test_from_store reads both backends

CHARTS = """[...document.querySelectorAll('figure[data-chart]')].map(f => {
  const svg = f.querySelector('svg'); const box = svg ? svg.getBoundingClientRect() : null;
  return [f.dataset.chart, svg ? svg.querySelectorAll('rect, polyline, line, path, circle, text')
    .length : 0, box ? box.width * box.height : 0]; })"""
COLUMN = """(() => { const t = document.querySelector('table[data-table="{table}"]');
  return [...t.tBodies[0].rows].filter(r => !r.hidden).map(r => r.cells[{column}].textContent.trim()); })()"""


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    with HeadlessChromium() as chromium:
        yield chromium


def test_the_store_report_loads_offline_with_every_chart_drawn(
    browser: HeadlessChromium, filled_store: Store, tmp_path: Path
) -> None:
    page = write_report(report_from_store(filled_store), tmp_path / "r.html")
    load = browser.open(page.as_uri())
    assert load.errors == []
    assert load.requests == [page.as_uri()]  # the hostile <img> in agent text stayed text
    charts = browser.evaluate(CHARTS)
    names = [name for name, _, _ in charts]
    assert {"activity", "severity", "observer", "reviewers", "strip", "scores"} <= set(names)
    for name, marks, area in charts:
        if name == "strip" and area == 0:
            continue  # a closed <details>: drawn, not shown
        assert marks >= 3 and area > 0, name
    markers = browser.evaluate(
        "[...document.querySelectorAll('figure[data-chart=scores] svg text.marker')].map(m => "
        "[m.classList[1], m.getBoundingClientRect().width > 0])"
    )
    assert sorted(markers) == [["marker-applied", True], ["marker-delta", True],
                               ["marker-rolled_back", True]]  # fmt: skip
    lines = browser.evaluate(
        "document.querySelectorAll('figure[data-chart=scores] polyline').length"
    )
    assert lines == 2  # the coder's and the reviewer's
    assert "<script>" in browser.evaluate("document.body.innerText")  # shown as text
    shot = Image.open(io.BytesIO(browser.screenshot())).convert("L")
    assert max(ImageStat.Stat(shot).stddev) > 10 and len(shot.getcolors(1 << 16) or ()) > 20


def test_light_and_dark_schemes_both_apply(
    browser: HeadlessChromium, filled_store: Store, tmp_path: Path
) -> None:
    page = write_report(report_from_store(filled_store), tmp_path / "r.html")
    background = "getComputedStyle(document.body).backgroundColor"
    browser.emulate_dark(False)
    browser.open(page.as_uri())
    light = browser.evaluate(background)
    browser.emulate_dark(True)
    assert browser.evaluate(background) != light
    browser.emulate_dark(False)


def test_tables_sort_by_click_and_by_keyboard(browser: HeadlessChromium, tmp_path: Path) -> None:
    report = report_from_transcripts([DEMO], deadline_minutes=20)
    page = write_report(report, tmp_path / "demo.html")
    assert browser.open(page.as_uri()).errors == []
    severities = COLUMN.replace("{table}", "findings").replace("{column}", "0")
    before = browser.evaluate(severities)
    assert before[0] == "high" and before[-1] == "low"  # the undone edit, told to the agent
    box = browser.evaluate(
        "(() => { const b = document.querySelector('table[data-table=findings] th button');"
        " b.scrollIntoView(); const r = b.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    browser.click(*box)  # ascending: least severe first
    assert browser.evaluate(severities)[0] == "low"
    assert browser.evaluate("document.querySelector('table[data-table=findings] th')"
                            ".getAttribute('aria-sort')") == "ascending"  # fmt: skip
    browser.evaluate("document.querySelector('table[data-table=findings] th button').focus()")
    browser.press("Enter", "Enter", 13)
    assert browser.evaluate(severities)[0] == "high"
    browser.press(" ", "Space", 32)
    assert browser.evaluate(severities)[0] == "low"


def test_the_keyboard_reaches_controls_and_shows_where_it_is(
    browser: HeadlessChromium, tmp_path: Path
) -> None:
    page = write_report(report_from_transcripts([DEMO], deadline_minutes=20), tmp_path / "d.html")
    browser.open(page.as_uri())
    browser.press("Tab", "Tab", 9)
    focused = browser.evaluate(
        "(() => { const e = document.activeElement; const s = getComputedStyle(e);"
        " return [e.tagName, s.outlineStyle, s.outlineWidth]; })()"
    )
    assert focused[0] in ("BUTTON", "A", "SUMMARY") and focused[1] != "none", focused


def test_long_tables_show_one_page_and_page_on(
    browser: HeadlessChromium, filled_store: Store, tmp_path: Path
) -> None:
    report = report_from_store(filled_store)
    (shop,) = report.projects
    many = tuple(
        SessionReport(f"s{n:03d}", "shop", None, None, tool_calls=n) for n in range(PAGE_SIZE + 7)
    )
    crowded = type(report)(report.title, report.generated_at, report.source,
                           (type(shop)(**{**{f: getattr(shop, f) for f in shop.__slots__},
                                          "sessions": many}),))  # fmt: skip
    page = write_report(crowded, tmp_path / "many.html")
    assert browser.open(page.as_uri()).errors == []
    ids = COLUMN.replace("{table}", "sessions").replace("{column}", "0")
    assert len(browser.evaluate(ids)) == PAGE_SIZE
    browser.evaluate("document.querySelector('.pager button[data-step=\"1\"]').click()")
    assert browser.evaluate(ids) == [f"s{n:03d}" for n in range(PAGE_SIZE, PAGE_SIZE + 7)]
