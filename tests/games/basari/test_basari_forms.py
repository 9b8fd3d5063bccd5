"""Basari forms as a browser posts them: every button on every page, pressed with the form filled in
the way a person would, posts an action the engine accepts (3, 4 and 5 players, action D included)."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest

from app.games import base
from app.games.basari import ENGINE
from app.games.basari.data import COLOURS
from app.games.basari.rules import gem_total, offer_key
from app.games.base import State
from app.web.app import form_to_action
from app.web.render import render_seat_html
from tests.games.basari.basari_helpers import play, set_gems, table


@dataclass
class Control:
    """One named form control: its type, value, bounds and whether a browser would send it."""

    tag: str
    kind: str
    name: str
    value: str
    checked: bool = False
    disabled: bool = False
    maximum: int | None = None


@dataclass
class Form:
    """A game-action form (posting to ``/act``): its controls and submit buttons in document order."""

    controls: list[Control] = field(default_factory=list)
    buttons: list[tuple[str, tuple[str, str] | None]] = field(default_factory=list)

    def type(self) -> str:
        return next(c.value for c in self.controls if c.name == "type")

    def numbers(self) -> dict[str, Control]:
        """The gem pickers: each a group of radio chips 0..n, as one control whose maximum is n."""
        counts: dict[str, Control] = {}
        for c in self.controls:
            if c.kind == "radio" and c.value.isdigit() and not c.disabled:
                known = counts.get(c.name)
                if known is None or int(c.value) > (known.maximum or 0):
                    counts[c.name] = Control(c.tag, "count", c.name, "0", maximum=int(c.value))
        return counts

    def radios(self, name: str) -> list[str]:
        return [c.value for c in self.controls if c.kind == "radio" and c.name == name and not c.disabled]

    def post(
        self, button: tuple[str, str] | None, typed: dict[str, str] | None = None
    ) -> list[tuple[str, str]]:
        """The fields a browser sends: enabled controls (a radio only when picked; ``typed`` is what the
        person typed or picked), then the pressed button's name and value; ``version`` is dropped as
        the room's /act handler drops it."""
        typed = typed or {}
        for name, value in typed.items():
            options = self.radios(name)
            assert not options or value in options, f"a browser cannot pick {value} for {name}"
        fields: list[tuple[str, str]] = []
        for c in self.controls:
            if c.disabled or c.name == "version":
                continue
            if c.kind == "radio":
                picked = typed.get(c.name)
                if (picked is None and c.checked) or picked == c.value:
                    fields.append((c.name, c.value))
            else:
                fields.append((c.name, typed.get(c.name, c.value)))
        return fields + ([button] if button else [])


class Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.current: Form | None = None
        self.label: str | None = None
        self.button: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "form":
            assert self.current is None, "a form inside a form: the browser would drop the inner one"
            self.current = Form() if str(named.get("action", "")).endswith("/act") else None
            if self.current is not None:
                self.forms.append(self.current)
        elif self.current is None:
            return
        elif tag in ("input", "select", "textarea") and named.get("name"):
            kind = str(named.get("type", "text"))
            assert kind in ("hidden", "number", "radio"), f"a Basari form grew a {kind} input"
            self.current.controls.append(
                Control(
                    tag,
                    kind,
                    str(named["name"]),
                    str(named.get("value") or ""),
                    checked="checked" in named,
                    disabled="disabled" in named,
                    maximum=int(str(named["max"])) if named.get("max") is not None else None,
                )
            )
        elif tag == "button":
            assert named.get("type", "submit") == "submit"
            self.label = ""
            self.button = (str(named["name"]), str(named.get("value") or "")) if named.get("name") else None

    def handle_data(self, data: str) -> None:
        if self.label is not None:
            self.label += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self.current is not None and self.label is not None:
            self.current.buttons.append((" ".join(self.label.split()), self.button))
            self.label = None
        elif tag == "form":
            self.current = None


def page_forms(state: State, seat: int) -> list[Form]:
    parser = Forms()
    parser.feed(render_seat_html(ENGINE, state, seat))
    return parser.forms


def accepted(state: State, seat: int, fields: list[tuple[str, str]], what: str) -> State:
    action = form_to_action(fields)
    try:
        return ENGINE.apply(state, seat, action)
    except base.IllegalAction as refused:
        pytest.fail(f"{what}: the form posts {action} in phase {state['phase']} and is refused: {refused}")


def person_offer(state: State, seat: int, form: Form) -> dict[str, str]:
    """What a person types into the gem picker: one gem for a first offer; to raise, one gem more than
    the current offer, or as many gems of the highest value they hold (red first)."""
    pickers = form.numbers()
    own = state["gems"][seat]
    for colour in COLOURS:
        picker = pickers.get(f"gems.{colour}")
        assert (picker.maximum if picker else 0) == own[colour], "the picker offers exactly your gems"
    offers = state["bargain"]["offers"]
    wanted = gem_total(offers[-1]["gems"]) + 1 if offers else 1
    wanted = min(wanted, gem_total(own))
    typed: dict[str, str] = {}
    for colour in COLOURS:
        take = min(wanted, own[colour])
        typed[f"gems.{colour}"] = str(take)
        wanted -= take
    if offers:
        chosen = {c: int(typed[f"gems.{c}"]) for c in COLOURS}
        assert offer_key(chosen) > offer_key(offers[-1]["gems"]), "a raise is offered only when one exists"
    return {name: value for name, value in typed.items() if name in pickers}


def check_exchange(state: State, seat: int, form: Form, button: tuple[str, str] | None) -> int:
    """Sole D: for every gem the person may return, some pick of gems within the pickers' maxima is
    accepted; a pick within the maxima is refused only when it needs the gem returned in another
    colour; and no pick the engine accepts lies outside the maxima."""
    size = ENGINE.view(state, seat)["d_exchange_size"]
    pickers = {c: form.numbers()[f"take.{c}"] for c in COLOURS}
    gives: list[str | None] = list(form.radios("give")) or [None]
    checked = 0
    for give in gives:
        typed_give = {"give": give} if give else {}
        bank = {c: state["bank"][c] + (1 if c == give else 0) for c in COLOURS}
        took_some = False
        for counts in itertools.product(range(size + 1), repeat=len(COLOURS)):
            if sum(counts) != size:
                continue
            take = dict(zip(COLOURS, counts, strict=True))
            within = all(take[c] <= (pickers[c].maximum or 0) for c in COLOURS)
            legal = all(take[c] <= bank[c] for c in COLOURS)
            if not within:
                assert not legal, f"returning {give}, taking {take} is legal but the pickers forbid it"
                continue
            fields = form.post(button, {**typed_give, **{f"take.{c}": str(take[c]) for c in COLOURS}})
            if legal:
                accepted(state, seat, fields, f"exchange {give} for {take}")
                took_some = True
                checked += 1
            else:
                with pytest.raises(base.IllegalAction, match="bank holds only"):
                    ENGINE.apply(state, seat, form_to_action(fields))
        assert took_some, f"returning {give} leaves nothing to take"
    # Untouched, the form posts the default return and no gems: the engine says how many to take.
    with pytest.raises(base.IllegalAction, match="Take exactly"):
        ENGINE.apply(state, seat, form_to_action(form.post(button)))
    return checked


def press_every_button(state: State, seat: int) -> dict[str, int]:
    """Press every button of the seat's page; returns how many presses each action type had."""
    pressed: dict[str, int] = {}
    for form in page_forms(state, seat):
        kind = form.type()
        assert form.buttons, f"the {kind} form has no button"
        for label, button in form.buttons:
            if kind == "offer":
                fields = form.post(button, person_offer(state, seat, form))
                accepted(state, seat, fields, label)
                count = 1
            elif kind == "exchange":
                count = check_exchange(state, seat, form, button)
            else:
                assert not form.numbers(), f"the {kind} form asks for numbers"
                accepted(state, seat, form.post(button), label)
                count = 1
            pressed[kind] = pressed.get(kind, 0) + count
    return pressed


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_button_on_every_page_posts_an_action_the_engine_accepts(players: int) -> None:
    """Forms carry exactly the engine's params: a player pressing any button (a gem picker filled with
    a legal choice) is never refused, through whole bot games."""
    pressed: dict[str, int] = {}
    rng = random.Random(players)
    state = ENGINE.setup(players, {}, players)
    while not state["finished"]:
        for seat in range(players):
            shown = press_every_button(state, seat)
            offered = {template["type"] for template in ENGINE.legal_actions(state, seat)}
            assert set(shown) == offered, (state["phase"], seat, shown, offered)
            for kind, count in shown.items():
                pressed[kind] = pressed.get(kind, 0) + count
        seat = rng.choice(ENGINE.to_act(state))
        # Cards picked at random (not by the bot) so bargains and a lone D come up often.
        bot = base.random_bot_action if state["phase"] == "choose" else None
        action = bot(ENGINE, state, seat, rng) if bot else ENGINE.bot_action(state, seat, rng)
        state = ENGINE.apply(state, seat, action)
    expected = {"choose", "offer", "accept", "continue"} | ({"exchange", "take"} if players == 5 else set())
    assert expected <= set(pressed) and pressed["offer"] > 10, pressed


def d_table(cards: list[str], seed: int = 3) -> State:
    return play(table(5, seed), cards)


def test_sole_d_chooser_exchanges_through_the_form_returning_any_gem_taking_two() -> None:
    """Rulebook, action D alone: return one gem, take any two — the pressed form is accepted for every
    gem returned, and the gems move as posted."""
    state = d_table(["A", "B", "C", "C", "D"])
    while state["phase"] != "d_exchange":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, random.Random(1)))
    (form,) = [f for f in page_forms(state, 4) if f.type() == "exchange"]
    assert sorted(form.radios("give")) == sorted(c for c in COLOURS if state["gems"][4][c])
    assert check_exchange(state, 4, form, None) > 4
    before = dict(state["gems"][4])
    after = accepted(
        state, 4, form.post(None, {"give": "blue", "take.red": "1", "take.yellow": "1"}), "exchange"
    )
    assert after["gems"][4] == {
        **before,
        "red": before["red"] + 1,
        "yellow": before["yellow"] + 1,
        "blue": before["blue"] - 1,
    }


def test_sole_d_chooser_with_a_nearly_empty_bank_may_take_back_the_returned_gem() -> None:
    """Our reading: the returned gem is back in the bank first, so an empty bank still gives one gem."""
    state = table(5, 3)
    for colour in COLOURS:
        spare = state["bank"][colour]
        state["bank"][colour] = 0
        state["gems"][0][colour] += spare
    state = play(state, ["D", "A", "B", "C", "C"])
    while state["phase"] != "d_exchange":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, random.Random(1)))
    assert gem_total(state["bank"]) == 0 and ENGINE.view(state, 0)["d_exchange_size"] == 1
    (form,) = [f for f in page_forms(state, 0) if f.type() == "exchange"]
    assert check_exchange(state, 0, form, None) == 4


def test_sole_d_chooser_without_gems_takes_two_and_returns_nothing() -> None:
    state = table(5, 3)
    set_gems(state, 4)
    state = play(state, ["A", "B", "C", "C", "D"])
    while state["phase"] != "d_exchange":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, random.Random(1)))
    (form,) = [f for f in page_forms(state, 4) if f.type() == "exchange"]
    assert form.radios("give") == []
    assert check_exchange(state, 4, form, None) == 10


def test_shared_d_take_one_gem_buttons_each_post_an_accepted_take() -> None:
    """Rulebook, action D shared: each D player takes one gem, in bargaining priority order."""
    state = d_table(["D", "A", "B", "D", "D"])
    while state["phase"] != "d_take":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, random.Random(1)))
    takers = list(state["d_queue"])
    assert sorted(takers) == [0, 3, 4]
    for taker in takers:
        assert [s for s in range(5) if any(f.type() == "take" for f in page_forms(state, s))] == [taker]
        (form,) = [f for f in page_forms(state, taker) if f.type() == "take"]
        colours = [button[1] for _, button in form.buttons if button]
        assert colours == [c for c in COLOURS if state["bank"][c]]
        for _, button in form.buttons:
            accepted(state, taker, form.post(button), f"take {button}")
        before = state["gems"][taker][colours[0]]
        state = accepted(state, taker, form.post(form.buttons[0][1]), "take")
        assert state["gems"][taker][colours[0]] == before + 1
