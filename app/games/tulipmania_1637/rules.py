"""Tulipmania 1637: set-up, the four phases of a turn, bursts and the end of the game.

Seats run clockwise: a player's "left" is the next seat, their "right" the previous one (ruling 1).
The state is a plain dict; see ``setup`` for its fields. Secrets in the state: every seat's buyer
colours (``buyers``), the order of ``deck`` and ``reserve``, and the action cards chosen before the
reveal (``sale["cards"]``); ``view`` is the only way out. ``ledger`` (where each seat's cash came from)
and ``bursts`` (one record per crash) hold only public facts, kept so the end of the game can tell its
story without reading the log.
"""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.base import N_, IllegalAction, Result, State
from app.games.tulipmania_1637 import data
from app.games.tulipmania_1637.data import (
    ALL_COLOURS,
    BUYERS_DEALT,
    BUYERS_NEEDED,
    BUYERS_PER_COLOUR,
    CARD_NAMES,
    CARDS,
    COLOUR_NAMES,
    GAME_ID,
    PASS,
    PURCHASE,
    PURCHASE_BY_PROXY,
    SELLER_CARDS,
    SETUP_TABLE,
    SPECULATE,
    SPECULATE_BY_PROXY,
    STARTING_CASH,
    STOCK_PER_COLOUR,
)

SELL, CHOOSE, SELLER_CHOICE, DRAW, BUY, OVER = "sell", "choose", "seller_choice", "draw", "buy", "over"


def colour_ref(colour: str) -> str:
    return COLOUR_NAMES[colour]


def left(state: State, seat: int) -> int:
    players: int = state["players"]
    return (seat + 1) % players


def right(state: State, seat: int) -> int:
    players: int = state["players"]
    return (seat - 1) % players


def price(state: State, colour: str) -> int:
    return data.value(state["price"][colour])


def buyers_of(state: State, seat: int, colour: str) -> int:
    buyers: list[str] = state["buyers"][seat]
    return buyers.count(colour)


def tulip_total(state: State, seat: int) -> int:
    return sum(state["tulips"][seat].values())


def _book(state: State, seat: int, entry: str, amount: int) -> None:
    """Note where ``seat``'s cash came from or went (``sold``, ``spent``, ``sell_off``): with the
    starting ƒ700 these add up to the seat's cash. A state saved before the ledger existed gets one
    from here on."""
    ledger = state.setdefault("ledger", [{"sold": 0, "spent": 0, "sell_off": 0} for _ in state["cash"]])
    ledger[seat][entry] += amount


# --- set-up -------------------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    if players not in SETUP_TABLE:
        raise IllegalAction(N_("Tulipmania 1637 is played by 3 to 5 players."))
    n_colours, deck_size, reserve_size, face_up = SETUP_TABLE[players]
    colours = list(ALL_COLOURS[:n_colours])
    state = base.new_state(GAME_ID, players, options, seed)
    rng = base.draw_rng(state)
    cards = [c for c in colours for _ in range(BUYERS_PER_COLOUR)]
    rng.shuffle(cards)
    hands = [sorted(cards[i * BUYERS_DEALT : (i + 1) * BUYERS_DEALT]) for i in range(players)]
    rest = cards[players * BUYERS_DEALT :]
    deck, reserve = rest[:deck_size], rest[deck_size : deck_size + reserve_size]
    current = rng.randrange(players)
    start = list(data.start())
    state.update(
        {
            "colours": colours,
            "live": list(colours),
            "burst": [],
            "price": {c: list(start) for c in colours},
            "history": {c: [data.value(start)] for c in colours},
            "tulips": [{c: 1 for c in colours} for _ in range(players)],
            "stock": {c: STOCK_PER_COLOUR for c in colours},
            "tulips_removed": {c: 0 for c in colours},
            "cash": [STARTING_CASH] * players,
            "buyers": hands,
            "face_up": deck[:face_up],
            "deck": deck[face_up:],
            "reserve": reserve,
            "buyers_removed": 0,
            "current": current,
            "priority": (current - 1) % players,
            "turn": 1,
            "phase": SELL,
            "sale": None,
            "last_sale": None,
            "sold_colour": None,
            "turn_activity": False,
            "quiet_turns": 0,
            "end_reason": None,
            "ledger": [{"sold": 0, "spent": 0, "sell_off": 0} for _ in range(players)],
            "bursts": [],
        }
    )
    base.log_event(state, N_("{seat} holds the current player card."), seat=base.seat_ref(current))
    _advance(state)
    return state


# --- whose move and what is legal --------------------------------------------------------------------


def to_act(state: State) -> list[int]:
    phase = state["phase"]
    if phase == OVER:
        return []
    if phase == CHOOSE:
        return [s for s, card in enumerate(state["sale"]["cards"]) if card is None and s != state["current"]]
    return [state["current"]]


def can_fulfil(state: State, seat: int, card: int, colour: str) -> bool:
    """Whether ``seat`` has the cash (2, 4) or the same-colour buyers (1, 3) the card needs."""
    cell = state["price"][colour]
    if card == PASS:
        return True
    if card in BUYERS_NEEDED:
        if card == SPECULATE_BY_PROXY and data.speculate(cell) is None:
            return False
        return buyers_of(state, seat, colour) >= BUYERS_NEEDED[card]
    cash: int = state["cash"][seat]
    if card == PURCHASE:
        return cash >= data.value(cell)
    jump = data.speculate(cell)
    return jump is not None and cash >= data.value(jump[0])


def playable_cards(state: State, seat: int) -> list[int]:
    """The cards ``seat`` may play in the current sale (the UI offers only these, ruling 3)."""
    colour = state["sale"]["colour"]
    allowed = SELLER_CARDS if seat == state["current"] else CARDS
    return [card for card in allowed if can_fulfil(state, seat, card, colour)]


def purchase_options(state: State, seat: int) -> list[str]:
    """Colours ``seat`` may buy from the stockpile in phase III."""
    return [
        c
        for c in state["live"]
        if c != state["sold_colour"] and state["stock"][c] > 0 and state["cash"][seat] >= price(state, c)
    ]


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    if phase == SELL:
        offer = [c for c in state["live"] if state["tulips"][seat][c] > 0]
        legal: list[dict[str, Any]] = [
            {
                "type": "sell",
                "label": N_("Sell a tulip"),
                "params": {"colour": {"kind": "choice", "options": offer}},
            }
        ]
        if tulip_total(state, seat) == 1:
            legal.append({"type": "skip_sale", "label": N_("Keep your only tulip"), "params": {}})
        return legal
    if phase in (CHOOSE, SELLER_CHOICE):
        return [
            {
                "type": "play",
                "label": N_("Play an action card"),
                "params": {"card": {"kind": "choice", "options": playable_cards(state, seat)}},
            }
        ]
    if phase == DRAW:
        legal = [{"type": "draw_buyer", "label": N_("Draw the top buyer card"), "params": {}}]
        if state["face_up"]:
            legal.append(
                {
                    "type": "take_buyer",
                    "label": N_("Take a face-up buyer"),
                    "params": {"index": {"kind": "choice", "options": list(range(len(state["face_up"])))}},
                }
            )
        return legal
    legal = [{"type": "skip_purchase", "label": N_("Buy nothing"), "params": {}}]
    options = purchase_options(state, seat)
    if options:
        legal.insert(
            0,
            {
                "type": "buy",
                "label": N_("Buy a tulip from the stockpile"),
                "params": {"colour": {"kind": "choice", "options": options}},
            },
        )
    return legal


# --- apply -------------------------------------------------------------------------------------------


REFUSALS = base.Refusals(
    not_an_action=N_("That is not an action."),
    game_over=N_("The game is over."),
    not_seated=N_("There is no such seat."),
)


def apply(state: State, seat: Any, action: Any) -> State:
    kind = base.open_apply(state, seat, action, REFUSALS).get("type")
    if not isinstance(kind, str):
        raise IllegalAction(REFUSALS.not_an_action)
    if seat not in to_act(state):
        if state["phase"] == CHOOSE and seat != state["current"]:
            raise IllegalAction(N_("You have already chosen an action card; wait for the reveal."))
        if state["phase"] == CHOOSE:
            raise IllegalAction(N_("Wait for the other players to choose their action cards."))
        raise IllegalAction(N_("It is {seat}'s turn, not yours."), seat=base.seat_ref(state["current"]))
    handler = _HANDLERS.get((state["phase"], kind))
    if handler is None:
        raise IllegalAction(N_("You cannot do that now."))
    new = base.copy_state_sharing_log(state)
    handler(new, seat, action)
    _advance(new)
    return new


def _colour_param(state: State, action: dict[str, Any]) -> str:
    colour = action.get("colour")
    if not isinstance(colour, str) or colour not in state["live"]:
        raise IllegalAction(N_("Choose a tulip colour that is still in the game."))
    return colour


MAX_INT_PARAM = 10**6  # far above any card or face-up index; keeps error messages printable


def _int_param(action: dict[str, Any], name: str) -> int:
    """A whole number from JSON or a form: plain ASCII digits only (``"²".isdigit()`` is true but
    ``int("²")`` fails), and small enough to be put into an error message."""
    raw = action.get(name)
    if isinstance(raw, str):
        text = raw.strip()
        if text.isascii() and text.isdigit() and len(text) <= 7:
            raw = int(text)
    if isinstance(raw, int) and not isinstance(raw, bool) and -MAX_INT_PARAM <= raw <= MAX_INT_PARAM:
        return raw
    raise IllegalAction(N_("'{name}' must be a whole number."), name=name)


def _sell(state: State, seat: int, action: dict[str, Any]) -> None:
    colour = _colour_param(state, action)
    if state["tulips"][seat][colour] == 0:
        raise IllegalAction(N_("You have no {colour} tulip to sell."), colour=colour_ref(colour))
    state["sale"] = {"colour": colour, "cards": [None] * state["players"]}
    state["sold_colour"] = colour
    state["turn_activity"] = True
    state["phase"] = CHOOSE
    base.log_event(
        state,
        N_("{seat} offers one {colour} tulip for sale at ƒ{price}."),
        seat=base.seat_ref(seat),
        colour=colour_ref(colour),
        price=price(state, colour),
    )


def _skip_sale(state: State, seat: int, action: dict[str, Any]) -> None:
    if tulip_total(state, seat) != 1:
        raise IllegalAction(N_("With two or more tulips you must sell one."))
    base.log_event(state, N_("{seat} keeps their only tulip."), seat=base.seat_ref(seat))
    state["phase"] = DRAW


def _play(state: State, seat: int, action: dict[str, Any]) -> None:
    card = _int_param(action, "card")
    if card not in CARDS:
        raise IllegalAction(N_("There is no action card {card}."), card=card)
    sale = state["sale"]
    if state["phase"] == SELLER_CHOICE:
        if card not in SELLER_CARDS:
            raise IllegalAction(N_("The seller may play only Pass, 1 or 3."))
        sale["cards"][seat] = card
        base.log_event(
            state, N_("{seat} plays {card} face up."), seat=base.seat_ref(seat), card=CARD_NAMES[card]
        )
        _replace_illegal_cards(state)
        _settle_sale(state)
        return
    sale["cards"][seat] = card
    base.log_event(state, N_("{seat} has chosen an action card."), seat=base.seat_ref(seat))
    if not to_act(state):
        _reveal(state)


def _reveal(state: State) -> None:
    """All other players have chosen: turn the cards over together (ruling 2)."""
    sale = state["sale"]
    for seat, card in enumerate(sale["cards"]):
        if seat != state["current"]:
            base.log_event(
                state, N_("{seat} reveals {card}."), seat=base.seat_ref(seat), card=CARD_NAMES[card]
            )
    _replace_illegal_cards(state)
    if all(card in (None, PASS) for card in sale["cards"]):
        state["phase"] = SELLER_CHOICE
        base.log_event(
            state, N_("Everybody passed: {seat} may play Pass, 1 or 3."), seat=base.seat_ref(state["current"])
        )
        return
    _settle_sale(state)


def _replace_illegal_cards(state: State) -> None:
    """A card its player cannot fulfil becomes Pass, and the winner is reassessed (rulebook; ruling 3)."""
    sale = state["sale"]
    for seat, card in enumerate(sale["cards"]):
        if card is not None and not can_fulfil(state, seat, card, sale["colour"]):
            sale["cards"][seat] = PASS
            base.log_event(
                state,
                N_("{seat} cannot fulfil {card}; it is replaced by Pass."),
                seat=base.seat_ref(seat),
                card=CARD_NAMES[card],
            )


def sale_winner(state: State, cards: list[int | None]) -> int | None:
    """The highest card wins; ties go to the priority card holder, else to the first tied player
    anti-clockwise (to the right) from it (ruling 4). None when everybody passed."""
    best = max((card for card in cards if card is not None), default=PASS)
    if best == PASS:
        return None
    tied = {seat for seat, card in enumerate(cards) if card == best}
    seat: int = state["priority"]
    while seat not in tied:
        seat = right(state, seat)
    return seat


def _sale_price_and_landing(card: int, cell: data.Position) -> tuple[int, data.Position]:
    """What a winning 1–4 card pays and where the price lands: purchases pay the current cell and move
    along the purchase track; speculations pay the transition cell above and jump two rows up."""
    if card in (PURCHASE, PURCHASE_BY_PROXY):
        return data.value(cell), data.purchase(cell)
    transition, landing = data.speculate(cell)  # type: ignore[misc]
    return data.value(transition), landing


def _settle_sale(state: State) -> None:
    sale = state["sale"]
    cards = sale["cards"]
    colour, seller = sale["colour"], state["current"]
    winner = sale_winner(state, cards)
    card = PASS if winner is None else cards[winner]
    before = price(state, colour)
    cell = state["price"][colour]
    tulips = state["tulips"]
    speculator = None
    if card in (PURCHASE, SPECULATE):
        assert winner is not None
        paid, landing = _sale_price_and_landing(card, cell)
        speculator = winner if card == SPECULATE else None
        tulips[seller][colour] -= 1
        tulips[winner][colour] += 1
        state["cash"][winner] -= paid
        state["cash"][seller] += paid
        _book(state, winner, "spent", paid)
        _book(state, seller, "sold", paid)
        text = (
            N_("{winner} buys {seller}'s {colour} tulip for ƒ{amount} (2 – Purchase).")
            if card == PURCHASE
            else N_("{winner} speculates on {seller}'s {colour} tulip and pays ƒ{amount} (4 – Speculate).")
        )
    elif card in (PURCHASE_BY_PROXY, SPECULATE_BY_PROXY):
        assert winner is not None
        paid, landing = _sale_price_and_landing(card, cell)
        speculator = winner if card == SPECULATE_BY_PROXY else None
        for _ in range(BUYERS_NEEDED[card]):
            state["buyers"][winner].remove(colour)
            state["buyers_removed"] += 1
        tulips[seller][colour] -= 1
        state["stock"][colour] += 1
        state["cash"][seller] += paid
        _book(state, seller, "sold", paid)
        text = (
            N_(
                "{winner} discards one {colour} buyer; the bank pays {seller} ƒ{amount} (1 – Purchase by proxy)."
            )
            if card == PURCHASE_BY_PROXY
            else N_(
                "{winner} discards two {colour} buyers; the bank pays {seller} ƒ{amount} "
                "(3 – Speculate by proxy)."
            )
        )
    else:
        paid, landing = data.all_pass(cell)
        tulips[seller][colour] -= 1
        state["stock"][colour] += 1
        state["cash"][seller] += paid
        _book(state, seller, "sold", paid)
        text = N_("Nobody wants the {colour} tulip: the bank pays {seller} ƒ{amount}.")
    _move_price(state, colour, landing)
    base.log_event(
        state,
        text,
        winner=base.seat_ref(winner if winner is not None else seller),
        seller=base.seat_ref(seller),
        colour=colour_ref(colour),
        amount=paid,
    )
    base.log_event(
        state,
        N_("The price of {colour} tulips moves from ƒ{before} to ƒ{after}."),
        colour=colour_ref(colour),
        before=before,
        after=price(state, colour),
    )
    state["last_sale"] = {
        "seller": seller,
        "colour": colour,
        "price": before,
        "cards": list(cards),
        "winner": winner,
        "card": card,
        "paid": paid,
        "after": price(state, colour),
    }
    state["sale"] = None
    if winner is not None and winner == state["priority"]:
        state["priority"] = right(state, winner)
        base.log_event(
            state, N_("The Priority Action card passes to {seat}."), seat=base.seat_ref(state["priority"])
        )
    state["phase"] = DRAW
    if data.is_burst(state["price"][colour]):
        _burst_and_check_end(state, colour, speculator, {"seat": winner, "card": card})


def _move_price(state: State, colour: str, landing: data.Position) -> None:
    state["price"][colour] = list(landing)
    state["history"][colour].append(data.value(landing))


# --- phase II: draw a new buyer card -----------------------------------------------------------------


def _fresh_buyer(state: State, card: str) -> str | None:
    """A drawn buyer of a burst colour is removed and replaced from the reserve, repeatedly; None when
    the reserve runs out first."""
    while card not in state["live"]:
        state["buyers_removed"] += 1
        base.log_event(
            state,
            N_(
                "The buyer drawn is {colour}, a colour that has burst: it is removed and replaced from the reserve."
            ),
            colour=colour_ref(card),
        )
        if not state["reserve"]:
            base.log_event(state, N_("The reserve deck is exhausted: no buyer card replaces it."))
            return None
        card = state["reserve"].pop(0)
    return card


def _give_buyer(state: State, seat: int, card: str | None) -> None:
    if card is None:
        return
    state["buyers"][seat].append(card)
    state["buyers"][seat].sort()


def _draw_buyer(state: State, seat: int, action: dict[str, Any]) -> None:
    base.log_event(state, N_("{seat} draws the top buyer card."), seat=base.seat_ref(seat))
    card = _fresh_buyer(state, state["deck"].pop(0))
    _give_buyer(state, seat, card)
    if card is not None:
        base.log_event(state, N_("Your new buyer is {colour}."), to=[seat], colour=colour_ref(card))
    _after_draw(state)


def _take_buyer(state: State, seat: int, action: dict[str, Any]) -> None:
    index = _int_param(action, "index")
    if not 0 <= index < len(state["face_up"]):
        raise IllegalAction(N_("There is no face-up buyer number {index}."), index=index)
    card = state["face_up"].pop(index)
    _give_buyer(state, seat, card)
    base.log_event(
        state,
        N_("{seat} takes the face-up {colour} buyer."),
        seat=base.seat_ref(seat),
        colour=colour_ref(card),
    )
    replacement = _fresh_buyer(state, state["deck"].pop(0))
    if replacement is not None:
        state["face_up"].insert(index, replacement)
        base.log_event(state, N_("The new face-up buyer is {colour}."), colour=colour_ref(replacement))
    _after_draw(state)


def _after_draw(state: State) -> None:
    state["turn_activity"] = True
    if not state["deck"]:
        state["buyers_removed"] += len(state["face_up"])
        state["face_up"] = []
        base.log_event(
            state, N_("The buyer deck is exhausted: the face-up buyers are discarded and no more are drawn.")
        )
    state["phase"] = BUY


# --- phase III: purchase a tulip ---------------------------------------------------------------------


def _buy(state: State, seat: int, action: dict[str, Any]) -> None:
    colour = _colour_param(state, action)
    if colour not in purchase_options(state, seat):
        if colour == state["sold_colour"]:
            raise IllegalAction(N_("You cannot buy back the colour you sold this turn."))
        if state["stock"][colour] == 0:
            raise IllegalAction(N_("There is no {colour} tulip in the stockpile."), colour=colour_ref(colour))
        raise IllegalAction(
            N_("You have only ƒ{cash}; one {colour} tulip costs ƒ{price}."),
            cash=state["cash"][seat],
            colour=colour_ref(colour),
            price=price(state, colour),
        )
    paid = price(state, colour)
    state["cash"][seat] -= paid
    _book(state, seat, "spent", paid)
    state["stock"][colour] -= 1
    state["tulips"][seat][colour] += 1
    state["turn_activity"] = True
    _move_price(state, colour, data.purchase(state["price"][colour]))
    base.log_event(
        state,
        N_("{seat} buys one {colour} tulip from the stockpile for ƒ{amount}; the price rises to ƒ{after}."),
        seat=base.seat_ref(seat),
        colour=colour_ref(colour),
        amount=paid,
        after=price(state, colour),
    )
    if data.is_burst(state["price"][colour]):
        _burst_and_check_end(state, colour, None, {"seat": seat, "card": None})
    if state["phase"] != OVER:
        _end_turn(state)


def _skip_purchase(state: State, seat: int, action: dict[str, Any]) -> None:
    _end_turn(state)


# --- phase IV and the flow of a turn -----------------------------------------------------------------


def _end_turn(state: State) -> None:
    """Pass the current player card to the left; a turn with no sale, no draw and no purchase is a
    'decline' and a full round of them ends the game."""
    state["quiet_turns"] = 0 if state["turn_activity"] else state["quiet_turns"] + 1
    if state["quiet_turns"] >= state["players"]:
        _end_by_declines(state)
        return
    ending = state["current"]
    state["current"] = left(state, ending)
    if state["priority"] == state["current"]:
        state["priority"] = ending
    state["turn"] += 1
    state["phase"] = SELL
    state["sold_colour"] = None
    state["turn_activity"] = False
    base.log_event(state, N_("{seat} takes the current player card."), seat=base.seat_ref(state["current"]))


def _advance(state: State) -> None:
    """Skip the phases in which the current player has no choice."""
    while True:
        phase = state["phase"]
        if phase == SELL and tulip_total(state, state["current"]) == 0:
            base.log_event(state, N_("{seat} has no tulip to sell."), seat=base.seat_ref(state["current"]))
            state["phase"] = DRAW
        elif phase == DRAW and not state["deck"]:
            state["phase"] = BUY
        elif phase == BUY and not purchase_options(state, state["current"]):
            _end_turn(state)
        else:
            return


# --- the bubble bursts and the end of the game --------------------------------------------------------


def _pay_out(state: State, colour: str, paired: bool, record: dict[str, Any]) -> None:
    """Repeat the sell-off passes: everyone eligible sells one tulip at the same value, then the value
    steps down once (ruling 7). ``record`` (the burst's) adds up who was paid what."""
    while True:
        sellers = [
            s
            for s in range(state["players"])
            if state["tulips"][s][colour] > 0 and (not paired or colour in state["buyers"][s])
        ]
        if not sellers:
            return
        amount = price(state, colour)
        for seat in sellers:
            state["tulips"][seat][colour] -= 1
            state["tulips_removed"][colour] += 1
            state["cash"][seat] += amount
            _book(state, seat, "sell_off", amount)
            record["paid"][seat] += amount
            record["tulips"] += 1
            if paired:
                state["buyers"][seat].remove(colour)
                state["buyers_removed"] += 1
                text = N_("{seat} sells one {colour} tulip to one of their {colour} buyers for ƒ{amount}.")
            else:
                text = N_("{seat} sells off one {colour} tulip for ƒ{amount}.")
            base.log_event(state, text, seat=base.seat_ref(seat), colour=colour_ref(colour), amount=amount)
        _move_price(state, colour, data.sell_off_step(state["price"][colour]))
        record["steps"] += 1
        base.log_event(
            state,
            N_("The {colour} price drops to ƒ{after}."),
            colour=colour_ref(colour),
            after=price(state, colour),
        )


def _burst(state: State, colour: str, speculator: int | None, trigger: dict[str, Any] | None) -> None:
    """``trigger`` is who moved the price onto the burst space and how ({"seat", "card"}; card None for
    a purchase from the stockpile), None when the last colour bursts by itself."""
    record: dict[str, Any] = {
        "colour": colour,
        "peak": price(state, colour),
        "trigger": trigger,
        "paid": [0] * state["players"],
        "tulips": 0,
        "steps": 0,
    }
    state.setdefault("bursts", []).append(record)
    base.log_event(
        state,
        N_("The {colour} bubble bursts at ƒ{amount}!"),
        colour=colour_ref(colour),
        amount=price(state, colour),
    )
    if speculator is not None:
        for seat in range(state["players"]):
            if seat != speculator and colour in state["buyers"][seat]:
                state["buyers"][seat].remove(colour)
                state["buyers_removed"] += 1
                base.log_event(
                    state,
                    N_("{seat} loses one {colour} buyer: the price is too high for them."),
                    seat=base.seat_ref(seat),
                    colour=colour_ref(colour),
                )
    _pay_out(state, colour, True, record)
    _pay_out(state, colour, False, record)
    record["floor"] = price(state, colour)
    _remove_colour(state, colour)


def _remove_colour(state: State, colour: str) -> None:
    state["live"].remove(colour)
    state["burst"].append(colour)
    state["tulips_removed"][colour] += state["stock"][colour] + 1  # the stockpile and the price marker
    state["stock"][colour] = 0
    for seat in range(state["players"]):
        left_over = state["buyers"][seat].count(colour)
        if left_over:
            state["buyers"][seat] = [c for c in state["buyers"][seat] if c != colour]
            state["buyers_removed"] += left_over
            base.log_event(
                state,
                N_("{seat} discards an unused {colour} buyer.")
                if left_over == 1
                else N_("{seat} discards {count} unused {colour} buyers."),
                seat=base.seat_ref(seat),
                count=left_over,
                colour=colour_ref(colour),
            )
    face_up = []
    for card in state["face_up"]:
        if card == colour:
            state["buyers_removed"] += 1
            base.log_event(state, N_("The face-up {colour} buyer is discarded."), colour=colour_ref(colour))
            if not state["reserve"]:
                base.log_event(state, N_("The reserve deck is exhausted: no buyer card replaces it."))
                continue
            card = _fresh_buyer(state, state["reserve"].pop(0))
            if card is not None:
                base.log_event(state, N_("The new face-up buyer is {colour}."), colour=colour_ref(card))
        if card is not None:
            face_up.append(card)
    state["face_up"] = face_up
    base.log_event(state, N_("The {colour} tulips leave the game."), colour=colour_ref(colour))


def _burst_and_check_end(state: State, colour: str, speculator: int | None, trigger: dict[str, Any]) -> None:
    _burst(state, colour, speculator, trigger)
    if len(state["live"]) == 1:
        last = state["live"][0]
        base.log_event(
            state, N_("Only {colour} is left: its bubble bursts at once."), colour=colour_ref(last)
        )
        _burst(state, last, None, None)
    if not state["live"]:
        _finish(state, "last_colour")


def _end_by_declines(state: State) -> None:
    """A full round without sales, purchases or buyer draws: every tulip is sold at its current value."""
    base.log_event(state, N_("A full round passed with no sale and no purchase: the market closes."))
    for colour in list(state["live"]):
        amount = price(state, colour)
        for seat in range(state["players"]):
            count = state["tulips"][seat][colour]
            if count:
                state["tulips"][seat][colour] = 0
                state["tulips_removed"][colour] += count
                state["cash"][seat] += count * amount
                _book(state, seat, "sell_off", count * amount)
                base.log_event(
                    state,
                    N_("{seat} sells one {colour} tulip at ƒ{amount}.")
                    if count == 1
                    else N_("{seat} sells {count} {colour} tulips at ƒ{amount} each."),
                    seat=base.seat_ref(seat),
                    count=count,
                    colour=colour_ref(colour),
                    amount=amount,
                )
    _finish(state, "declines")


def _finish(state: State, reason: str) -> None:
    state["phase"] = OVER
    state["finished"] = True
    state["end_reason"] = reason
    state["sale"] = None
    best = max(state["cash"])
    for seat in winners(state):
        base.log_event(state, N_("{seat} wins with ƒ{amount}."), seat=base.seat_ref(seat), amount=best)


def winners(state: State) -> list[int]:
    best = max(state["cash"])
    return [s for s, cash in enumerate(state["cash"]) if cash == best]


def result(state: State) -> Result | None:
    if not state["finished"]:
        return None
    return Result(winners=winners(state), scores=list(state["cash"]))


_HANDLERS = {
    (SELL, "sell"): _sell,
    (SELL, "skip_sale"): _skip_sale,
    (CHOOSE, "play"): _play,
    (SELLER_CHOICE, "play"): _play,
    (DRAW, "draw_buyer"): _draw_buyer,
    (DRAW, "take_buyer"): _take_buyer,
    (BUY, "buy"): _buy,
    (BUY, "skip_purchase"): _skip_purchase,
}
