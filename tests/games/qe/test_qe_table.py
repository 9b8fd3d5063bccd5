"""The Q.E. table (issue 10): the status names the decision and its state, counts read with their
plural forms, "Bid 0 (2 points)" is offered only while a zero bid would score (seed 04 翻開 0 元出價:
once per round, 3 players excepted), the decision panel carries this seat's facts and nobody
else's, and the finished table tells the story of the elimination."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest

from app.games.base import State
from app.games.qe import ENGINE, view
from app.games.qe.data import EU, FINANCIAL, HOUSING, USA, tile_id
from app.web.render import Table, environment, render_seat_html, seat_context
from tests.games.qe.test_qe_auction import act, table

EU_FINANCIAL = tile_id(EU, FINANCIAL)  # 3 points
USA_HOUSING = tile_id(USA, HOUSING)  # 1 point


def names(seat: int) -> str:
    return ["Ann", "Bob", "Cy", "Dee", "Eve"][seat]


def prompt(state: State, seat: int | None, locale: str = "en") -> str:
    """The status sentence as the platform's status region includes it, tags and spaces folded."""
    players = [
        {
            "seat": s,
            "name": names(s),
            "is_bot": False,
            "connected": True,
            "is_you": s == seat,
            "is_host": s == 0,
        }
        for s in range(state["players"])
    ]
    room = Table("testroom", "qe", "playing", players, ENGINE.to_act(state), None, None, state["players"])
    context = seat_context(ENGINE, state, seat, room, locale, form_version=1)
    html = environment(locale, "qe").get_template("games/qe/prompt.html").render(context.values)
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def page(state: State, seat: int | None, locale: str = "en") -> str:
    return render_seat_html(ENGINE, state, seat, locale, names)


class DecisionPanels(HTMLParser):
    """The text of each element with class "decision" (the panel the platform moves up on phones)."""

    def __init__(self) -> None:
        super().__init__()
        self.panels: list[str] = []
        self.depth = 0  # open elements inside the current panel, 0 outside any

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if self.depth:
            self.depth += 1
        elif "decision" in (dict(attrs).get("class") or "").split():
            self.panels.append("")
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.panels[-1] += data


VOID = {"input", "br", "img", "meta", "link", "hr", "circle", "rect", "path"}


def decision(html: str) -> str:
    """The text of the page's one decision panel."""
    parser = DecisionPanels()
    parser.feed(html)
    assert len(parser.panels) == 1, len(parser.panels)
    return " ".join(parser.panels[0].split())


# --------------------------------------------------------------------------- the status sentence
def test_open_bid_status_names_the_company_for_the_auctioneer_and_who_is_choosing_for_the_others() -> None:
    state = table(4, first=0, tiles=(EU_FINANCIAL,))
    assert prompt(state, 0) == "Open the bidding on EU Financial: a public bid of at least 1."
    for seat in (1, None):
        assert prompt(state, seat) == "Ann is choosing an open bid on EU Financial."


def test_sealed_bid_status_names_the_forbidden_amount_and_counts_who_is_still_choosing() -> None:
    state = act(table(4, first=0, tiles=(EU_FINANCIAL,)), 0, "open_bid", 5)
    assert prompt(state, 1) == "Sealed bid on EU Financial: any amount but $5."
    assert prompt(state, 0) == "Bob, Cy, Dee are choosing sealed bids on EU Financial."
    state = act(state, 1, "bid", 7)
    assert prompt(state, 1) == "Your sealed bid is in; Cy, Dee are still choosing bids on EU Financial."
    state = act(state, 2, "bid", 0)
    assert prompt(state, 1) == "Your sealed bid is in; Dee is still choosing a bid on EU Financial."
    assert prompt(state, None) == "Dee is choosing a sealed bid on EU Financial."


def test_re_bid_status_counts_the_tie() -> None:
    state = act(table(4, first=0, tiles=(EU_FINANCIAL,)), 0, "open_bid", 5)
    for seat, amount in ((1, 9), (2, 9), (3, 1)):
        state = act(state, seat, "bid", amount)
    assert prompt(state, 1) == "Re-bid on EU Financial after tie 1 of 3: any amount but $5."
    assert prompt(state, 3) == "Bob, Cy are choosing sealed bids on EU Financial."


def test_three_player_last_company_status_says_there_is_no_auctioneer_to_beat() -> None:
    state = table(3)
    rng = random.Random(3)
    while state["turn"] < state["turns"] - 1:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert state["auction"]["auctioneer"] is None
    assert prompt(state, 0).startswith("Sealed bid on the last company, ")
    assert prompt(state, 0).endswith(": any amount; a tie means nobody gets it.")


def test_award_status_names_who_reveals_and_offers_the_peek_only_to_who_may_peek() -> None:
    state = act(table(5, first=0, tiles=(EU_FINANCIAL,)), 0, "open_bid", 5)
    for seat in (1, 2, 3, 4):
        state = act(state, seat, "bid", 9 if seat == 2 else 1)  # Cy wins; Ann and Cy see the amount
    assert state["phase"] == "award"
    assert prompt(state, 1) == "Reveal the next company, or first peek at the winning amount (once per game)."
    assert prompt(state, 2) == "Bob reveals the next company."
    assert prompt(state, 3) == (
        "Bob reveals the next company; until then you may peek at the winning amount (once per game)."
    )
    assert prompt(state, None) == "Bob reveals the next company."
    state = act(state, 1, "peek")
    assert prompt(state, 1) == "Reveal the next company."


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_status_is_written_in_chinese_with_full_width_punctuation(locale: str) -> None:
    state = act(table(4, first=0, tiles=(EU_FINANCIAL,)), 0, "open_bid", 5)
    text = prompt(state, 1, locale)
    assert (
        text
        == {
            "zh_Hant": "請為歐盟金融秘密出價：任何金額，但不能是 5 元。",
            "zh_Hans": "请为欧盟金融秘密出价：金额不限，但不能是 5 元。",
        }[locale]
    )
    waiting = prompt(state, 0, locale)
    assert not re.search(r"[A-Za-z]{3}", waiting.replace("Bob", "").replace("Cy", "").replace("Dee", ""))


# --------------------------------------------------------------------------- plural forms
def test_a_one_point_company_reads_one_point_not_one_points() -> None:
    state = table(4, first=0, tiles=(USA_HOUSING,))
    html = page(state, 0)
    assert "1 point" in html and "1 points" not in html
    assert "1 分" in page(state, 0, "zh_Hant")


def test_spend_facts_count_companies_with_their_plural() -> None:
    state = act(table(4, first=0, tiles=(EU_FINANCIAL, USA_HOUSING)), 0, "open_bid", 5)
    assert "You have spent nothing so far." in decision(page(state, 1))
    for seat, amount in ((1, 12), (2, 1), (3, 1)):
        state = act(state, seat, "bid", amount)  # Bob wins EU Financial for 12 and auctioneers next
    assert "You have spent $12 on 1 company so far" in decision(page(state, 1))
    state = act(state, 1, "open_bid", 3)
    for seat, amount in ((2, 1), (3, 1), (0, 1)):
        state = act(state, seat, "bid", amount)  # Bob's open bid of 3 wins USA Housing
    state = act(state, 2, "open_bid", 4)
    assert "You have spent $15 on 2 companies so far" in decision(page(state, 1))


def test_last_round_cue_counts_the_auctions_left() -> None:
    state = table(4)
    rng = random.Random(4)
    cues = []
    while not state["finished"]:
        if state["phase"] == "open_bid":
            cues.append(re.search(r'<p class="danger-cue" role="note">(.*?)</p>', page(state, 1), re.S))
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert [c is not None for c in cues] == [False] * 12 + [True] * 4  # round 4 of 4 is the last
    texts = [" ".join(re.sub(r"<[^>]+>", "", c.group(1)).split()) for c in cues[12:] if c]
    assert texts[0].startswith(
        "Last round. 4 auctions left, then whoever spent the most in total is eliminated."
    )
    assert texts[-1].startswith("Last round. 1 auction left, then")
    assert "You have spent" in texts[-1]


# --------------------------------------------------------------------------- the zero-bid guard
def zero_buttons(html: str) -> list[str]:
    return re.findall(r'<button type="submit" data-confirm="[^"]*">(Bid 0[^<]*)</button>', html)


def test_bid_zero_for_two_points_is_offered_until_this_rounds_zero_bid_has_scored() -> None:
    """Seed 04: a zero bid scores 2, once per player per round; a second 0 in the round is still a
    legal bid but scores nothing, so it is offered as a plain "Bid 0"."""
    state = act(table(4, first=0), 0, "open_bid", 5)
    assert zero_buttons(page(state, 1)) == ["Bid 0 (2 points)"]
    assert ENGINE.view(state, 1)["auction"]["zero_bid_scores"]
    for seat, amount in ((1, 0), (2, 8), (3, 1)):
        state = act(state, seat, "bid", amount)
    assert state["zero_rounds"][1] == [0]
    state = act(state, 1, "open_bid", 4)  # the same round goes on: Bob auctioneers
    assert zero_buttons(page(state, 2)) == ["Bid 0 (2 points)"]
    state = act(state, 2, "bid", 6)
    state = act(state, 3, "bid", 1)
    state = act(state, 0, "bid", 2)
    state = act(state, 2, "open_bid", 4)  # Cy auctioneers: Bob's zero bid of round 1 is used
    html = page(state, 1)
    assert zero_buttons(html) == ["Bid 0"]
    assert "already scored a zero bid this round" in decision(html)
    assert not ENGINE.view(state, 1)["auction"]["zero_bid_scores"]
    assert ENGINE.view(state, 3)["auction"]["zero_bid_scores"]


def test_bid_zero_never_promises_points_with_three_players() -> None:
    """Seed 04 (3 人遊戲時省略): with 3 players a zero bid scores nothing, in any round."""
    state = table(3)
    rng = random.Random(30)
    offered = 0
    while not state["finished"]:
        for seat in ENGINE.to_act(state):
            if state["phase"] == "bidding":
                assert zero_buttons(page(state, seat)) == ["Bid 0"]
                assert not ENGINE.view(state, seat)["auction"]["zero_bid_scores"]
                offered += 1
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert offered > 20


# --------------------------------------------------------------------------- the decision panel
@pytest.mark.parametrize("players", [4, 5])
def test_exactly_one_decision_panel_when_the_seat_has_something_to_do_and_none_otherwise(
    players: int,
) -> None:
    state = ENGINE.setup(players, {}, players)
    rng = random.Random(players)
    while not state["finished"]:
        for seat in [None, *range(players)]:
            html = page(state, seat)
            panels = html.count('class="decision')
            has_legal = seat is not None and bool(ENGINE.legal_actions(state, seat))
            assert panels == (1 if has_legal else 0), (seat, state["phase"])
        seat = rng.choice(ENGINE.to_act(state))
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert 'class="decision' not in page(state, 0)


def test_decision_facts_never_show_another_seats_spend() -> None:
    """Ruling 6: a player's spend is secret; the facts beside a decision are the seat's own."""
    secret = 987654321777
    state = act(table(4, first=0, tiles=(EU_FINANCIAL,)), 0, "open_bid", 5)
    for seat, amount in ((1, secret), (2, 1), (3, 1)):
        state = act(state, seat, "bid", amount)  # Bob wins and auctioneers next
    assert f"You have spent ${secret:,} on 1 company" in decision(page(state, 1))
    for viewer in (None, 2, 3):
        for locale in ("en", "zh_Hant", "zh_Hans"):
            html = page(state, viewer, locale)
            assert f"{secret:,}" not in html and str(secret) not in html, (viewer, locale)
            assert f"{secret:,}" not in prompt(state, viewer, locale)


def test_every_changing_mark_has_a_key_of_its_own() -> None:
    state = ENGINE.setup(5, {}, 5)
    rng = random.Random(5)
    while not state["finished"]:
        for seat in (None, 0):
            keys = re.findall(r'data-track="([^"]+)"', page(state, seat))
            assert keys and len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
        seat = rng.choice(ENGINE.to_act(state))
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    keys = re.findall(r'data-track="([^"]+)"', page(state, 0))
    assert len(keys) == len(set(keys))


# --------------------------------------------------------------------------- the ending
def finished(players: int, seed: int) -> State:
    state = ENGINE.setup(players, {}, seed)
    rng = random.Random(seed)
    while not state["finished"]:
        seat = rng.choice(ENGINE.to_act(state))
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    return state


def test_ending_story_names_the_leader_eliminated_for_spending_107_against_106() -> None:
    final = {
        "spends": [107, 106, 50],
        "totals": [45, 40, 36],
        "bonuses": [0, 0, 6],
        "eliminated": [True, False, False],
        "winners": [1],
    }
    story = view.ending_story(final)
    assert story["eliminated"] == [0] and story["eliminated_leader"]
    assert (story["top_spend"], story["next_spend"], story["next_spenders"]) == (107, 106, [1])
    assert story["winning_total"] == 40 and story["lowest_spenders"] == [2]

    state = finished(3, 11)
    state["final"] = {**state["final"], **final}
    headline = re.search(r'<div class="qe-headline".*?</div>', page(state, None), re.S)
    assert headline is not None
    text = " ".join(re.sub(r"<[^>]+>", "", headline.group(0)).split())
    assert text == (
        "Ann had the best score, 45 points, but spent the most: $107 against $106, and is eliminated. "
        "Bob wins with 40 points. Lowest spender, with the bonus: Cy."
    )
    zh = page(state, None, "zh_Hans")
    assert "Ann 得分最高（45 分），却花得最多：107 元 比 106 元，惨遭淘汰。" in zh


def test_ending_story_when_nobody_is_eliminated_and_the_win_is_shared() -> None:
    final = {
        "spends": [20, 20, 20],
        "totals": [30, 30, 25],
        "bonuses": [6, 6, 6],
        "eliminated": [False, False, False],
        "winners": [0, 1],
    }
    story = view.ending_story(final)
    assert story["eliminated"] == [] and story["next_spend"] is None and not story["eliminated_leader"]
    state = finished(3, 12)
    state["final"] = {**state["final"], **final}
    html = page(state, 2)
    assert "Everyone spent the same, so nobody is eliminated." in html
    assert "Ann, Bob share the win with 30 points each." in html


@pytest.mark.parametrize("players", [3, 4, 5])
def test_finished_table_has_a_breakdown_per_player_and_two_charts(players: int) -> None:
    state = finished(players, 20 + players)
    html = page(state, 0)
    final = state["final"]
    assert html.count('class="qe-headline"') == 1
    assert html.count('<figure class="qe-chart">') == 2
    assert html.count('class="icon icon-trophy"') >= 1 and "🏆" not in html
    for category in (
        "Companies",
        "Zero bids",
        "Nationalization",
        "Monopolization",
        "Diversification",
        "Total spent",
    ):
        assert f"<th>{category}</th>" in html
    for seat in range(players):
        assert f'data-track="qe-total-{seat}"' in html
        assert f"Lowest spend bonus: {final['bonuses'][seat]}" in html or final["bonuses"][seat] == 0
    assert len(re.findall(r'<rect class="qe-spend-bar', html)) == players
