"""Tulipmania 1637's table (issue 10): the status line names the decision and its state for the seat
to act, for waiting seats and for spectators, with plural forms in three languages; the decision panel,
change marks and form ids; danger cues; and an ending that tells the story from public facts only."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from app.games.base import State, random_legal_action
from app.games.tulipmania_1637 import ENGINE, data, rules
from app.web.render import Table, environment, render_seat_html, seat_context
from tests.games.tulipmania_1637.tulipmania_helpers import disguised

ANN, BILL, CHARLES, DAVE = 0, 1, 2, 3
NAMES = ("Ann", "Bill", "Charles", "Dave", "Eve")


def prompt(state: State, seat: int | None, locale: str = "en") -> str:
    """The status sentence as the platform's status region includes it, whitespace collapsed."""
    table = Table(
        code="t",
        game=ENGINE.info.id,
        status="finished" if state["finished"] else "playing",
        players=[
            {"seat": n, "name": NAMES[n], "is_bot": False, "connected": True, "is_you": n == seat}
            for n in range(state["players"])
        ],
        to_act=ENGINE.to_act(state),
        result=None,
        next_code=None,
        capacity=state["players"],
    )
    context = seat_context(ENGINE, state, seat, table, locale)
    template = environment(locale, ENGINE.info.id).get_template("games/tulipmania-1637/prompt.html")
    return " ".join(template.render(context.values).split())


def page(state: State, seat: int | None, locale: str = "en") -> str:
    return render_seat_html(ENGINE, state, seat, locale, names=lambda n: NAMES[n])


def region(html: str, name: str) -> str:
    """One game region of a page."""
    return html.split(f'<section id="r-g-{name}"')[1].split("</section>")[0]


def random_game(players: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    states = [state]
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, random_legal_action(ENGINE.legal_actions(state, seat), rng))
        states.append(state)
    return states


def bill_sells_orange() -> State:
    """Four players; Bill holds the current player card and offers an orange tulip at ƒ50."""
    state = ENGINE.setup(4, {}, 7)
    state["current"], state["priority"] = BILL, ANN
    state["buyers"] = [["orange", "purple", "yellow"], ["blue"] * 3, ["purple"] * 3, ["orange"] * 3]
    return ENGINE.apply(state, BILL, {"type": "sell", "colour": "orange"})


def test_the_seller_is_told_to_choose_a_tulip_and_how_many_they_hold() -> None:
    state = ENGINE.setup(4, {}, 7)
    state["current"] = BILL
    assert prompt(state, BILL) == "<strong>Choose a tulip to sell — you hold 4 tulips.</strong>"
    assert prompt(state, ANN) == prompt(state, None) == "Bill is choosing a tulip to sell."
    state["tulips"][BILL] = {c: 0 for c in state["colours"]} | {"yellow": 1}
    assert prompt(state, BILL) == "<strong>Sell your only tulip, or keep it.</strong>"
    assert prompt(state, BILL, "zh_Hant") == "<strong>出售你唯一的鬱金香，或者保留它。</strong>"
    assert prompt(state, BILL, "zh_Hans") == "<strong>卖掉你仅有的一株郁金香，或者留着它。</strong>"


def test_the_sealed_bid_names_the_tulip_and_who_is_still_choosing_with_plural_forms() -> None:
    state = bill_sells_orange()
    sealed = "<strong>Sealed bid: choose an action card for Bill's orange tulip at ƒ50.</strong>"
    assert prompt(state, ANN) == sealed
    assert prompt(state, BILL) == "Ann, Charles, Dave are choosing action cards for your orange tulip."
    assert (
        prompt(state, None) == "Ann, Charles, Dave are choosing action cards for Bill's orange tulip at ƒ50."
    )
    state = ENGINE.apply(state, ANN, {"type": "play", "card": data.PURCHASE})
    assert prompt(state, ANN) == "You played 2 – Purchase face down; Charles, Dave are still choosing."
    state = ENGINE.apply(state, CHARLES, {"type": "play", "card": data.PASS})
    assert prompt(state, ANN) == "You played 2 – Purchase face down; Dave is still choosing."
    assert prompt(state, CHARLES) == "You played Pass face down; Dave is still choosing."
    assert prompt(state, BILL) == "Dave is choosing an action card for your orange tulip."
    assert prompt(state, None) == "Dave is choosing an action card for Bill's orange tulip at ƒ50."
    assert (
        prompt(state, DAVE, "zh_Hant")
        == "<strong>暗標：為 Bill 以 ƒ50 出售的橙色鬱金香選一張行動卡。</strong>"
    )
    assert (
        prompt(state, DAVE, "zh_Hans")
        == "<strong>暗标：为 Bill 以 ƒ50 出售的橙色郁金香选一张行动卡。</strong>"
    )
    assert prompt(state, ANN, "zh_Hans") == "你已暗出 2 – 购买；Dave 还在选。"


def test_a_sealed_card_shows_only_in_its_own_players_status() -> None:
    state = ENGINE.apply(bill_sells_orange(), ANN, {"type": "play", "card": data.SPECULATE})
    assert "4 – Speculate" in prompt(state, ANN)
    for seat in (None, BILL, CHARLES, DAVE):
        assert "Speculate" not in prompt(state, seat)
        assert prompt(state, seat) == prompt(disguised(state, ANN), seat)


def test_when_everybody_passes_the_seller_is_asked_for_pass_1_or_3() -> None:
    state = bill_sells_orange()
    for seat in (ANN, CHARLES, DAVE):
        state = ENGINE.apply(state, seat, {"type": "play", "card": data.PASS})
    assert state["phase"] == rules.SELLER_CHOICE
    assert (
        prompt(state, BILL)
        == "<strong>Everybody passed on your orange tulip: play Pass, 1 or 3 face up.</strong>"
    )
    assert prompt(state, ANN) == "Everybody passed: Bill chooses Pass, 1 or 3 for the orange tulip."
    assert (
        prompt(state, BILL, "zh_Hant")
        == "<strong>大家都放棄了你的橙色鬱金香：請明出「放棄」、1 或 3。</strong>"
    )
    assert (
        prompt(state, BILL, "zh_Hans")
        == "<strong>大家都放弃了你的橙色郁金香：请亮出“放弃”、1 或 3。</strong>"
    )


def drawing_state() -> State:
    state = bill_sells_orange()
    for seat in (ANN, CHARLES, DAVE):
        state = ENGINE.apply(state, seat, {"type": "play", "card": data.PASS})
    state = ENGINE.apply(state, BILL, {"type": "play", "card": data.PASS})
    assert state["phase"] == rules.DRAW
    return state


def test_drawing_a_buyer_counts_the_face_up_buyers() -> None:
    state = drawing_state()
    assert len(state["face_up"]) == 2
    two = "<strong>Draw a buyer card: take one of 2 face-up buyers or the top of the deck.</strong>"
    assert prompt(state, BILL) == two
    state["face_up"] = state["face_up"][:1]
    one = "<strong>Draw a buyer card: take the face-up buyer or the top of the deck.</strong>"
    assert prompt(state, BILL) == one
    state["face_up"] = []
    assert prompt(state, BILL) == "<strong>Draw the top buyer card.</strong>"
    assert prompt(state, None) == "Bill is drawing a buyer card."


def test_buying_from_the_stockpile_names_your_cash() -> None:
    state = ENGINE.apply(drawing_state(), BILL, {"type": "draw_buyer"})
    assert state["phase"] == rules.BUY
    cash = f"{state['cash'][BILL]:,}"
    assert (
        prompt(state, BILL)
        == f"<strong>Buy a tulip from the stockpile or end your turn — you have ƒ{cash}.</strong>"
    )
    assert prompt(state, CHARLES) == "Bill may buy a tulip from the stockpile."
    assert prompt(state, BILL, "zh_Hant").endswith(f"你有 ƒ{cash}。</strong>")


@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
def test_every_phase_has_a_status_for_every_viewer_and_nothing_once_finished(locale: str) -> None:
    phases: Counter[tuple[str, bool]] = Counter()
    for state in random_game(5, seed=4)[::2]:
        for seat in (None, *range(5)):
            text = prompt(state, seat, locale)
            if state["finished"]:
                assert text == ""
                continue
            acting = seat in ENGINE.to_act(state)
            assert text and text.startswith("<strong>") == acting, (state["phase"], seat, text)
            assert "(s)" not in text
            words = re.sub(r"<[^>]+>|" + "|".join(NAMES), "", text)
            assert locale == "en" or not re.search(r"[A-Za-z]{3,}", words), text  # no English left
            phases[(state["phase"], acting)] += 1
    assert {phase for phase, _ in phases} >= {"sell", "choose", "draw", "buy"}


def test_the_decision_panel_is_the_only_one_and_holds_the_facts_it_needs() -> None:
    state = bill_sells_orange()
    html = page(state, DAVE)
    assert html.count('class="decision') == 1
    panel = html.split('class="decision')[1]
    assert "You have ƒ700 · 3 orange buyers · 1 orange tulip" in panel
    assert page(state, None).count('class="decision') == 0
    assert page(state, BILL).count('class="decision') == 0  # the seller waits for the reveal
    drawing = drawing_state()
    html = page(drawing, BILL)
    assert html.count('class="decision') == 1 and "Your buyers:" in html.split('class="decision')[1]


@pytest.mark.parametrize("players", [3, 5])
def test_tracked_marks_and_form_ids_are_unique_and_only_the_seat_to_act_has_a_decision(players: int) -> None:
    for state in random_game(players, seed=players)[::3]:
        for seat in (None, *range(players)):
            html = page(state, seat)
            tracks = Counter(re.findall(r'data-track="([^"]+)"', html))
            assert [key for key, n in tracks.items() if n > 1] == []
            ids = Counter(re.findall(r' id="([^"]+)"', html))
            assert [key for key, n in ids.items() if n > 1] == []
            acting = seat is not None and seat in ENGINE.to_act(state) and not state["finished"]
            assert html.count('class="decision') == int(acting)
            assert region(html, "decision").count('class="decision') == int(acting)  # its own region
            assert len(re.findall(r'<form class="tm-act"[^>]* id="f-', html)) == html.count(
                '<form class="tm-act"'
            )
            for colour in state["live"]:
                assert f'data-track="price-{colour}"' in html and f'data-track="marker-{colour}"' in html


def test_sealed_spending_cards_ask_for_a_second_tap_and_pass_does_not() -> None:
    html = page(bill_sells_orange(), DAVE)
    assert 'value="4" class="primary" data-confirm="Play 4 – Speculate? It cannot be taken back."' in html
    assert re.search(r'value="3" class="primary" data-confirm="Play 3 – Speculate by proxy\?', html)
    assert re.search(r'value="0">Pass</button>', html)


def test_a_colour_one_step_from_bursting_is_flagged_with_what_you_hold() -> None:
    state = bill_sells_orange()
    state["price"]["yellow"] = [4, 1]  # ƒ1000: a speculation bursts it
    state["tulips"][DAVE]["yellow"] = 2
    state["buyers"][DAVE] = ["yellow", "orange", "orange"]
    cue = re.compile(r'<div class="danger-cue" role="note">(.*?)</div>', re.S)
    mine = " ".join(cue.search(page(state, DAVE)).group(1).split())  # type: ignore[union-attr]
    assert "yellow is one step from bursting (ƒ1,000)." in mine
    assert "You hold 2: they will be sold off as the price falls." in mine
    assert "Your 1 buyer of it pays the top price." in mine
    watching = " ".join(cue.search(page(state, None)).group(1).split())  # type: ignore[union-attr]
    assert "Its tulips will be sold off as the price falls." in watching and "buyer" not in watching
    assert "ƒ1,000）。" in page(state, DAVE, "zh_Hant")
    # another seat's buyers never show in my cue
    assert page(state, ANN) == page(disguised(state, DAVE), ANN)


def test_the_ending_tells_the_story_from_public_facts() -> None:
    states = random_game(4, seed=2)
    final = states[-1]
    html = page(final, None)
    view = ENGINE.view(final, None)
    story = view["story"]
    winner = NAMES[story["winners"][0]]
    assert re.search(rf'<p class="tm-headline"><strong>\s*{winner} (wins|share)', html)
    assert "How the bubbles burst" in html and html.count("burst at") >= len(final["burst"])
    assert "icon-trophy" in html and "🏆" not in html
    assert '<table class="data tm-breakdown">' in html and '<svg class="tm-cash-chart"' in html
    for seat in view["seats"]:
        ledger = seat["ledger"]
        assert data.STARTING_CASH + ledger["sold"] - ledger["spent"] + ledger["sell_off"] == seat["cash"]
    paid_in_bursts = sum(b["total"] for b in view["bursts"])
    assert paid_in_bursts <= sum(s["ledger"]["sell_off"] for s in view["seats"])
    ending = re.compile(r'<div class="tm-sale panel">.*?<h3>Where the money came from', re.S)
    for seat in range(4):  # every seat reads the same public story
        assert ending.search(page(final, seat)).group(0) == ending.search(html).group(0)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("locale", "one", "many"),
    [
        ("en", "Ann discards an unused orange buyer.", "Ann discards 2 unused orange buyers."),
        ("zh_Hant", "Ann 棄掉一張未用的橙色買家。", "Ann 棄掉 2 張未用的橙色買家。"),
        ("zh_Hans", "Ann 弃掉一张没用上的橙色买家。", "Ann 弃掉 2 张没用上的橙色买家。"),
    ],
)
def test_the_log_uses_singular_and_plural_texts_for_counts(locale: str, one: str, many: str) -> None:
    state = ENGINE.setup(3, {}, 1)
    state["buyers"][ANN] = ["orange"]
    state["tulips"] = [{c: 0 for c in state["colours"]} for _ in range(3)]
    rules._remove_colour(state, "orange")
    assert one in page(state, None, locale)
    state = ENGINE.setup(3, {}, 1)
    state["buyers"][ANN] = ["orange", "orange"]
    rules._remove_colour(state, "orange")
    assert many in page(state, None, locale)
    for state in random_game(3, seed=9)[-1:]:
        assert "(s)" not in page(state, None, locale)
