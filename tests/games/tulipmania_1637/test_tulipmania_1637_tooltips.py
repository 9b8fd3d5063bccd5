"""Tulipmania's pieces have tooltips (issue 20): every colour chip and tulip names its colour, every
price-board space says which kind of price it is and its value, the priority tag says what it does."""

from __future__ import annotations

import re

import pytest

from app.games.registry import ENGINES
from app.web.render import render_seat_html

ENGINE = ENGINES["tulipmania-1637"]


@pytest.mark.parametrize(
    ("locale", "current", "tulip"),
    [("en", "Current price: ƒ125", "red tulip"), ("zh_Hans", "当前价格：ƒ125", "红色郁金香")],
)
def test_every_named_or_valued_piece_has_a_tooltip(locale: str, current: str, tulip: str) -> None:
    state = ENGINE.setup(5, {}, 2)
    html = render_seat_html(ENGINE, state, 0, locale)
    chips = re.findall(r'<span class="tm-chip tm-\w+"([^>]*)>', html)
    assert chips and all('title="' in attributes for attributes in chips)
    cells = re.findall(r'<g class="tm-cell tm-\w+">\s*(<title>[^<]+</title>)?', html)
    assert cells and all(cells), "every price-board space"
    assert f"<title>{current}</title>" in html
    tulips = re.findall(r'<svg class="tm-tulip[^>]*>(<title>[^<]*</title>)?', html)
    assert tulips and all(tulips) and f"<title>{tulip}</title>" in html
    assert re.search(
        r'<span class="tm-role-card tm-role-priority" title="[^"]+">.*?(priority|优先)</span>', html
    )
