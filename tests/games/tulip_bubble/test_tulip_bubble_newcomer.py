"""What the newcomer trial (issue 46) misread at the Tulip Bubble table: a redeem that vanished when
cash was short, the Scholar's "variety" that no card names, and "出售" ("for sale") for Just Sold."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from app.games.base import IllegalAction
from app.games.tulip_bubble import ENGINE, rules
from app.games.tulip_bubble.data import COLLECTORS
from app.web.render import render_seat_html
from tests.games.tulip_bubble.tulip_bubble_helpers import ANDY, BOB, at_placement, at_selling, table
from tests.support import ROOT

NAMES = ("Andy", "Bob", "Charles", "Dennis")
LEVELS = {"red": 2, "white": 3, "yellow": 4}


def page(state: dict, seat: int | None, locale: str = "en") -> str:
    return render_seat_html(ENGINE, state, seat, locale, names=lambda n: NAMES[n])


def mortgages_of(html: str) -> str:
    found = re.search(r'<ul class="tb-mortgages">(.*?)</ul>', html, re.S)
    assert found, "the seat's mortgages"
    return found.group(1)


# --- a redeem the seat cannot pay is shown, disabled, with the engine's reason ----------------------


@pytest.mark.parametrize("phase", ["selling", "bidding"])
def test_a_mortgage_short_of_cash_shows_its_redeem_disabled_with_why(phase: str) -> None:
    """The trial's Redeem button disappeared when its cash fell short, and it thought redeeming gone
    from the game. Ruling 6: redeeming is open at any moment, in or out of turn."""
    position = table(levels=LEVELS, mortgages={ANDY: [("red-A-1", 23), ("white-C1-1", 9)]}, cash={ANDY: 15})
    state = at_selling(position) if phase == "selling" else at_placement(position, index=1)
    mortgages = mortgages_of(page(state, ANDY))
    red, white = re.split(r"</li>", mortgages)[:2]
    assert re.search(r'<button type="button" class="small" disabled[^>]*>Redeem for ƒ23</button>', red), red
    assert "You have only ƒ15; redeeming this tulip costs ƒ23." in red
    assert 'name="type" value="redeem"' not in red
    assert 'name="type" value="redeem"' in white and "disabled" not in white  # ƒ9 ≤ ƒ15: redeemable
    # What the page says is what the engine answers when the redeem is tried anyway.
    with pytest.raises(IllegalAction, match="You have only ƒ15; redeeming this tulip costs ƒ23"):
        ENGINE.apply(state, ANDY, {"type": "redeem", "card": "red-A-1"})


def test_the_reason_names_only_the_seats_own_cash_and_reads_in_chinese() -> None:
    state = at_selling(table(levels=LEVELS, mortgages={ANDY: [("red-A-1", 23)]}, cash={ANDY: 14}))
    assert ENGINE.view(state, ANDY)["you"]["redeem_refusals"] == {
        "red-A-1": [
            "You have only ƒ{cash}; redeeming this tulip costs ƒ{amount}.",
            {"cash": 14, "amount": 23},
        ]
    }
    for other in (BOB, None):  # Andy's cash is behind his screen
        html = page(state, other)
        assert "redeeming this tulip costs" not in html and "ƒ14" not in html
    said = mortgages_of(page(state, ANDY, "zh_Hant"))
    assert "你只有 14 盾；贖回這張鬱金香需要 23 盾。" in said and "disabled" in said


def test_no_redeem_is_offered_once_the_game_is_over() -> None:
    state = at_selling(table(levels=LEVELS, mortgages={ANDY: [("red-A-1", 23)]}, cash={ANDY: 15}))
    state["finished"] = True
    assert ENGINE.view(state, ANDY)["you"]["redeem_refusals"] == {}
    assert "Redeem for" not in mortgages_of(page(state, ANDY))


# --- the Scholar's order in the terms the cards show ----------------------------------------------


def test_the_scholars_order_names_what_the_cards_show_and_means_what_the_rule_takes() -> None:
    """Cards show a grade and number in their corner ("C2"); the trial looked for a "variety" and found
    none. The order names the grade and number, with an example the rule indeed takes."""
    order = str(COLLECTORS["scholar"]["order"])
    assert "variety" not in order and "C2" in order
    assert rules.fulfils("scholar", ["red-C2-1", "white-C2-2", "yellow-C2-3"])
    assert rules.fulfils("scholar", ["red-A-1", "white-A-1", "yellow-A-2"])
    assert not rules.fulfils("scholar", ["red-C1-1", "white-C2-1", "yellow-C3-1"])  # one grade, three numbers
    assert not rules.fulfils("scholar", ["red-C2-1", "red-C2-2", "yellow-C2-1"])  # two of one colour
    state = at_selling(table(levels=LEVELS, collectors=[["nobleman"], ["madame"], ["scholar"]]))
    html = page(state, ANDY)
    assert "Scholar (+ƒ10): one red, one white and one yellow of the same grade and number (say three C2" in (
        re.sub(r"<[^>]+>", "", html)
    )
    for locale, said in (
        ("zh_Hant", "品級與編號都相同（例如三張 C2"),
        ("zh_Hans", "品级与编号都相同（例如三张 C2"),
    ):
        assert said in page(state, ANDY, locale)


# --- Just Sold is "just sold", not "for sale" ----------------------------------------------------


@pytest.mark.parametrize(("locale", "name"), [("zh_Hant", "剛售出"), ("zh_Hans", "刚售出")])
def test_just_sold_reads_as_just_sold_in_chinese_everywhere_it_is_named(locale: str, name: str) -> None:
    """ "出售" reads as "for sale": the trial took the row for cards on offer from the bank."""
    state = at_selling(table(levels=LEVELS, rows={"just_sold": ["red-B1-1"]}))
    html = page(state, ANDY, locale)
    assert re.search(rf'<p class="tb-row-name" id="tb-row-title-just_sold"[^>]*>{name}', html)
    with (ROOT / "app/games/tulip_bubble/locale" / f"{locale}.po").open("rb") as po:
        catalogue = list(read_po(po))
    naming = 0
    for message in catalogue:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        if any("Just Sold" in str(msgid) for msgid in ids):
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            assert all(name in str(said) for said in strings), message.id
            naming += 1
    assert naming >= 9  # the row's name, the rules, the prompts, the coach and a refusal
