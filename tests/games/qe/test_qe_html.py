"""Q.E. pages: every seat's rendered HTML (render_seat_html, all regions) shows only what ruling 6
lets that seat know, in English and Chinese, through random games to the end."""

from __future__ import annotations

import random
from html.parser import HTMLParser
from typing import Any

import pytest

from app.games import base
from app.games.base import State
from app.games.qe import ENGINE, rules
from app.web.app import form_to_action
from app.web.render import render_seat_html

SECRET_PREFIX = "987654321"


def shows(html: str, amount: int) -> bool:
    """Whether the page shows the amount, plain (log) or grouped by the ``digits`` filter."""
    return str(amount) in html or f"{amount:,}" in html


def fresh(players: int, first: int = 0) -> State:
    seed = next(s for s in range(200) if rules.setup(players, {}, s)["first_auctioneer"] == first)
    return ENGINE.setup(players, {}, seed)


def test_secret_winning_bid_appears_only_on_the_winners_and_auctioneers_pages() -> None:
    state = ENGINE.apply(fresh(4), 0, {"type": "open_bid", "amount": "5"})
    for seat, amount in ((1, "987654321987"), (2, "987654321555"), (3, "0")):
        state = ENGINE.apply(state, seat, {"type": "bid", "amount": amount})
    for locale in ("en", "zh_Hant", "zh_Hans"):
        pages = {seat: render_seat_html(ENGINE, state, seat, locale) for seat in (None, 0, 1, 2, 3)}
        assert [seat for seat, html in pages.items() if shows(html, 987654321987)] == [0, 1]
        assert [seat for seat, html in pages.items() if shows(html, 987654321555)] == [0, 2]
        assert "987,654,321,987" in pages[1]


def test_industry_token_never_changes_another_seats_page_before_the_end() -> None:
    state = fresh(5)
    twin = base.copy_state(state)
    twin["tokens"][0], twin["tokens"][1] = state["tokens"][1], state["tokens"][0]
    for seat in (None, 2, 3, 4):
        assert render_seat_html(ENGINE, state, seat) == render_seat_html(ENGINE, twin, seat)
    assert render_seat_html(ENGINE, state, 0) != render_seat_html(ENGINE, twin, 0)


def visible_to(
    state: State, bidders: dict[int, int], peeks: dict[int, set[int]]
) -> dict[int, set[int | None]]:
    """Ruling 6 for each distinctive bid: bidder; auctioneer once evaluated; if it won, peekers,
    and everyone once the game is over."""
    allowed: dict[int, set[int | None]] = {amount: {seat} for amount, seat in bidders.items()}
    for record in [*state["auctions"], *([state["auction"]] if state["auction"] else [])]:
        for step in record["steps"]:
            for amount in step:
                if amount in allowed and record["auctioneer"] is not None:
                    allowed[amount].add(record["auctioneer"])
        amount = record.get("amount")
        if record.get("winner") is not None and amount in allowed:
            allowed[amount] |= peeks.get(record["number"], set())
            if state["finished"]:
                allowed[amount] |= {*range(state["players"]), None}
    return allowed


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_seats_page_shows_a_secret_it_may_not_see_through_a_whole_game(players: int) -> None:
    rng = random.Random(players)
    state = ENGINE.setup(players, {}, players)
    bidders: dict[int, int] = {}
    peeks: dict[int, set[int]] = {}
    while not state["finished"]:
        peekers = [s for s in range(players) if rules.peek_allowed(state, s)]
        action: dict[str, Any]
        if peekers and rng.random() < 0.5:
            seat, action = rng.choice(peekers), {"type": "peek"}
            peeks.setdefault(state["auctions"][-1]["number"], set()).add(seat)
        else:
            seat = rng.choice(ENGINE.to_act(state))
            action = ENGINE.bot_action(state, seat, rng)
            if action["type"] == "bid" and rng.random() < 0.4:
                amount = int(SECRET_PREFIX + str(rng.randrange(100000, 1000000)))
                action = {"type": "bid", "amount": str(amount)}
                bidders[amount] = seat
        state = ENGINE.apply(state, seat, action)
        allowed = visible_to(state, bidders, peeks)
        for viewer in [None, *range(players)]:
            html = render_seat_html(ENGINE, state, viewer, rng.choice(["en", "zh_Hant", "zh_Hans"]))
            for amount, viewers in allowed.items():
                assert shows(html, amount) == (viewer in viewers), (viewer, amount, viewers)
    assert bidders


def test_finished_page_shows_every_sheet_and_the_winner() -> None:
    rng = random.Random(7)
    state = ENGINE.setup(4, {}, 7)
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    html = render_seat_html(ENGINE, state, None)
    assert "Final scoring" in html
    for record in state["auctions"]:
        if record["winner"] is not None:
            assert shows(html, record["amount"])


class ButtonPosts(HTMLParser):
    """What each submit button of a page posts, as a browser (or htmx) builds it: every named
    input of its form in document order, a typed amount where the player writes one, then the
    button's own name and value."""

    def __init__(self, typed: str) -> None:
        super().__init__()
        self.typed = typed
        self.fields: list[tuple[str, str]] | None = None
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.label: str | None = None
        self.extra: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "form":
            self.fields = [] if str(named.get("action", "")).endswith("/act") else None
        elif self.fields is not None and tag == "input" and named.get("name") not in (None, "version"):
            value = named.get("value")
            self.fields.append((str(named["name"]), self.typed if value is None else str(value)))
        elif self.fields is not None and tag == "button":
            self.label = ""
            self.extra = [(str(named["name"]), str(named.get("value", "")))] if named.get("name") else []

    def handle_data(self, data: str) -> None:
        if self.label is not None:
            self.label += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self.fields is not None and self.label is not None:
            self.posts.append((self.label.strip(), form_to_action(self.fields + self.extra)))
            self.label = None
        elif tag == "form":
            self.fields = None


def test_bid_zero_button_hands_in_a_zero_bid() -> None:
    """Seed 02 秘密競標: a sealed bid may be 0 (and scores 2 once per round, phase 04). The page's
    "Bid 0 (2 points)" button must post exactly that, whatever is typed in the amount box beside it."""
    state = ENGINE.apply(fresh(4), 0, {"type": "open_bid", "amount": "5"})
    for typed in ("", "12"):
        page = ButtonPosts(typed)
        page.feed(render_seat_html(ENGINE, state, 1))
        posts = dict(page.posts)
        assert posts["Bid 0 (2 points)"] == {"type": "bid", "amount": "0"}
        after = ENGINE.apply(state, 1, posts["Bid 0 (2 points)"])
        assert after["auction"]["bids"][1] == 0


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_button_on_every_page_posts_an_action_the_engine_accepts(players: int) -> None:
    """Forms carry exactly the engine's params: a player pressing any button is never refused."""
    rng = random.Random(players + 40)
    state = ENGINE.setup(players, {}, players + 40)
    checked = 0
    while not state["finished"]:
        for seat in (s for s in range(players) if ENGINE.legal_actions(state, s)):
            page = ButtonPosts("987654")
            page.feed(render_seat_html(ENGINE, state, seat))
            for label, action in page.posts:
                try:
                    ENGINE.apply(state, seat, action)
                except base.IllegalAction as refused:
                    pytest.fail(f"{label!r} posts {action} and is refused: {refused}")
                checked += 1
        seat = rng.choice(ENGINE.to_act(state))
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert checked > 40
