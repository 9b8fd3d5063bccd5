"""Tulip Bubble's flow of play: set-up, the four phases of a round and the two endings, with the tulip
deck, purchase tokens, mortgages and collectors' orders they use (prices are in ``prices.py``).

Phases kept in ``state["phase"]``:
    selling   one turn each from the start player (sell, collector, mortgaged sale, redeem, end)
    bidding   two placement turns each (up to 2 tokens, then up to 1)
    auction   an open auction on one card with several tokens
    payment   the winner of a card pays cash or mortgages it
    finished  the black tulip was declared or the Bubble Burst was revealed
The event and end phases need no decision and run inside ``apply``. Redeeming a mortgage is legal
for every seat in every phase until the game ends (ruling 6).

Choices where the seed and the ruling are silent:
- A turn is skipped automatically only on public facts (no tulip and no mortgage to sell; no card
  left to bid on; all tokens placed). A seat whose tokens all rest on mortgages keeps its placement
  turn (FAQ Q1), and an auction winner is always asked how to pay, even when short of cash: skipping
  either would tell the table something about that player's hidden cash.
- Selling a mortgaged tulip below its recorded amount needs the cash to pay the difference.
- "No margin trading" forbids only the direct sale of mortgaged tulips; other sales stay open.
- If deck and discards together cannot fill Next Shipment (tulips hoarded in hands), all that is
  left is dealt.
- When the game ends, every player's cash, debts and assets are shown to all (the end screen).
"""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Any

from app.games import base
from app.games.base import N_, Action, IllegalAction, Result, State
from app.games.tulip_bubble import prices
from app.games.tulip_bubble.data import (
    AUCTION_ROWS,
    BLACK_TULIP_PRICE,
    BUBBLE_BURST,
    BURST_SHUFFLED_WITH,
    COLLECTOR_PILES,
    COLLECTORS,
    COLOUR_NAMES,
    COLOURS,
    FIRST_TURN_TOKENS,
    GAME_ID,
    JOINING_MID_GAME,
    LEVEL_NUMERALS,
    MARKET_CARD_NAMES,
    MARKET_DECK,
    MAX_BID_DIGITS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_MARGIN_TRADING,
    OPTIONS,
    PLUNGE_LEVELS,
    RISE_LEVELS,
    ROWS,
    SECOND_TURN_TOKENS,
    START_CASH,
    START_LEVELS,
    SURGE_LEVELS,
    TOKENS_PER_PLAYER,
    all_tulips,
    colour_of,
    grade_of,
    label_of,
    variety_of,
)

# --- set-up ----------------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(N_("Tulip Bubble needs 3 to 5 players."))
    chosen = {option.key: bool(options.get(option.key, option.default)) for option in OPTIONS}
    state = base.new_state(GAME_ID, players, chosen, seed)
    rng = base.draw_rng(state)
    colours = list(COLOURS)
    rng.shuffle(colours)
    deck = all_tulips()
    rng.shuffle(deck)
    state.update(
        round=1,
        phase="bidding",
        levels={colour: level for colour, level in zip(colours, START_LEVELS, strict=True)},
        deck=deck,
        discard=[],
        reshuffles=0,
        rows={row: [] for row in ROWS},
        hands=[[] for _ in range(players)],
        cash=[START_CASH] * players,
        mortgages=[[] for _ in range(players)],
        tokens={},
        collector_sold=[],
        start_player=rng.randrange(players),
        turn=None,
        placement=None,
        queue=[],
        auction=None,
        payment=None,
        history=[],
        end=None,
    )
    for row in ROWS:
        state["rows"][row] = deal(state, players + 2)
    base.log_event(
        state,
        N_("Prices start at red {red}, white {white}, yellow {yellow}."),
        # mypy cannot tell that these keys (the three colours) are never log_event's `to` or `not_to`;
        # naming them one by one would change the order the event records them in (the shuffled levels').
        **_level_params(state["levels"]),  # type: ignore[arg-type]
    )
    if chosen[JOINING_MID_GAME]:
        _supply_and_demand(state)
    _setup_market_deck(state)
    _flip_market_card(state)
    _setup_collectors(state)
    base.log_event(
        state,
        N_("Round {round} begins; {seat} is the start player."),
        round=1,
        seat=base.seat_ref(state["start_player"]),
    )
    state["history"].append({"round": 1, **state["levels"]})
    _begin_auction_phase(state)
    return state


# --- whose turn, what is legal, apply, the result ------------------------------------------------


def to_act(state: State) -> list[int]:
    phase = state["phase"]
    if phase in ("selling", "bidding"):
        return [state["turn"]]
    if phase == "auction":
        return [state["auction"]["turn"]]
    if phase == "payment":
        return [state["payment"]["winner"]]
    return []


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if state["finished"] or not isinstance(seat, int) or not 0 <= seat < state["players"]:
        return []
    legal: list[dict[str, Any]] = []
    in_turn = seat in to_act(state)
    phase = state["phase"]
    if in_turn and phase == "selling":
        legal += _selling_templates(state, seat)
    redeemable = [m["card"] for m in state["mortgages"][seat] if redeem_refusal(state, seat, m) is None]
    if redeemable:
        legal.append(_template("redeem", N_("Redeem a mortgage"), card=_choice(redeemable)))
    if in_turn and phase == "selling":
        legal.append(_template("end_turn", N_("End your selling turn")))
    elif in_turn and phase == "bidding":
        cards = _placeable_cards(state, seat)
        if cards and tokens_available(state, seat) > 0:
            legal.append(_template("place", N_("Place a purchase token"), card=_choice(cards)))
        legal.append(_template("end_turn", N_("Place no more tokens")))
    elif in_turn and phase == "auction":
        legal.append(
            _template(
                "raise",
                N_("Raise"),
                amount={"kind": "int", "min": _minimum_bid(state), "max": 10**MAX_BID_DIGITS - 1},
            )
        )
        legal.append(_template("drop", N_("Drop out")))
    elif in_turn and phase == "payment":
        methods = ["mortgage"]
        if state["cash"][seat] >= state["payment"]["price"]:
            methods.insert(0, "cash")
        legal.append(_template("pay", N_("Pay"), method=_choice(methods)))
    return legal


REFUSALS = base.Refusals(
    not_an_action=N_("That is not an action."),
    game_over=N_("The game is over."),
    not_seated=N_("You are not seated in this game."),
)


def apply(state: State, seat: int, action: Action) -> State:
    kind = base.open_apply(state, seat, action, REFUSALS).get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction(N_("Unknown action."))
    if kind != "redeem" and seat not in to_act(state):
        raise IllegalAction(N_("It is not your turn."))
    new = base.copy_state_sharing_log(state)
    handler(new, seat, action)
    return new


def result(state: State) -> Result | None:
    end = state.get("end")
    if not state["finished"] or end is None:
        return None
    return Result(winners=list(end["winners"]), scores=list(end["assets"]))


# --- legal-action templates --------------------------------------------------------------------


def _template(kind: str, label: str, **params: dict[str, Any]) -> dict[str, Any]:
    template: dict[str, Any] = {"type": kind, "label": label}
    if params:
        template["params"] = params
    return template


def _choice(options: list[Any]) -> dict[str, Any]:
    return {"kind": "choice", "options": options}


def _selling_templates(state: State, seat: int) -> list[dict[str, Any]]:
    legal: list[dict[str, Any]] = []
    hand = state["hands"][seat]
    if hand:
        legal.append(_template("sell", N_("Sell to the market"), card=_choice(sorted(hand))))
    if seat not in state["collector_sold"]:
        for collector in collector_tops(state):
            offers = collector_offers(collector, hand)
            if offers:
                legal.append(
                    _template(
                        "sell_to_collector",
                        N_("Sell to a collector"),
                        collector=_choice([collector]),
                        cards=_choice([",".join(offer) for offer in offers]),
                    )
                )
    if not state["options"][NO_MARGIN_TRADING]:
        sellable = [
            m["card"]
            for m in state["mortgages"][seat]
            if prices.market_price(state, m["card"]) - m["amount"] + state["cash"][seat] >= 0
        ]
        if sellable:
            legal.append(_template("sell_mortgage", N_("Sell a mortgaged tulip"), card=_choice(sellable)))
    return legal


def _placeable_cards(state: State, seat: int) -> list[str]:
    if state["placement"]["placed"] >= state["placement"]["quota"]:
        return []
    return [
        card
        for row in AUCTION_ROWS
        for card in state["rows"][row]
        if seat not in state["tokens"].get(card, [])
    ]


def _minimum_bid(state: State) -> int:
    auction = state["auction"]
    standing: int = auction["high"] if auction["high"] is not None else auction["market"]
    return standing + 1


# --- parameter parsing ---------------------------------------------------------------------------


def _card_param(action: Action, key: str = "card") -> str:
    value = action.get(key)
    if not isinstance(value, str) or not value.strip():
        raise IllegalAction(N_("Choose a tulip."))
    return value.strip()


def _cards_param(action: Action) -> list[str]:
    value = action.get("cards")
    if isinstance(value, str):
        parts = [part.strip() for part in value.replace(" ", ",").split(",")]
    elif isinstance(value, list) and all(isinstance(part, str) for part in value):
        parts = [part.strip() for item in value for part in item.split(",")]
    else:
        raise IllegalAction(N_("Choose the tulips for the collector."))
    return [part for part in parts if part]


def _int_param(action: Action, key: str) -> int:
    """A whole number of guilders: an int, or decimal digits with at most one leading "+"."""
    value = action.get(key)
    if isinstance(value, bool):
        raise IllegalAction(N_("Give a whole number of guilders."))
    if isinstance(value, str):
        digits = value.strip()
        digits = digits[1:] if digits.startswith("+") else digits
        if not digits.isdecimal():
            raise IllegalAction(N_("Give a whole number of guilders."))
        if len(digits) > MAX_BID_DIGITS:
            raise IllegalAction(N_("An amount may have at most {digits} digits."), digits=MAX_BID_DIGITS)
        return int(digits)
    if isinstance(value, int):
        if abs(value) >= 10**MAX_BID_DIGITS:
            raise IllegalAction(N_("An amount may have at most {digits} digits."), digits=MAX_BID_DIGITS)
        return value
    raise IllegalAction(N_("Give a whole number of guilders."))


# --- set-up helpers ------------------------------------------------------------------------------


def _setup_market_deck(state: State) -> None:
    """Shuffle 10 cards, remove one unseen, then bury the Bubble Burst among the bottom three."""
    rng = base.draw_rng(state)
    cards = list(MARKET_DECK)
    rng.shuffle(cards)
    state["market_removed"] = cards.pop()  # kept in state only: no view or event names it
    bottom = cards[-BURST_SHUFFLED_WITH:] + [BUBBLE_BURST]
    rng.shuffle(bottom)
    state["market_deck"] = cards[:-BURST_SHUFFLED_WITH] + bottom
    state["market_discard"] = []


def _setup_collectors(state: State) -> None:
    rng = base.draw_rng(state)
    piles = []
    for bonus in COLLECTOR_PILES:
        pile = sorted(name for name, spec in COLLECTORS.items() if spec["bonus"] == bonus)
        rng.shuffle(pile)
        piles.append(pile)
    state["collectors"] = piles


def _level_params(levels: dict[str, int]) -> dict[str, str]:
    return {colour: LEVEL_NUMERALS[level] for colour, level in levels.items()}


# --- phases ----------------------------------------------------------------------------------


def _log_moves(state: State, before: dict[str, int]) -> None:
    for colour in COLOURS:
        if before[colour] != state["levels"][colour]:
            base.log_event(
                state,
                N_("The {colour} price moved from {before} to {after}."),
                colour=COLOUR_NAMES[colour],
                before=LEVEL_NUMERALS[before[colour]],
                after=LEVEL_NUMERALS[state["levels"][colour]],
            )


def _flip_market_card(state: State) -> bool:
    """Event phase 1-1; returns False when the Bubble Burst ended the game."""
    card = state["market_deck"].pop(0)
    state["market_discard"].append(card)
    base.log_event(state, N_("Market card: {market}."), market=MARKET_CARD_NAMES[card])
    if card == BUBBLE_BURST:
        _bubble_burst(state)
        return False
    before = dict(state["levels"])
    if card == "surge":
        prices.move_marker(state["levels"], prices.lowest_colour(state["levels"]), SURGE_LEVELS)
    elif card == "plunge":
        prices.move_marker(state["levels"], prices.highest_colour(state["levels"]), -PLUNGE_LEVELS)
    else:
        prices.move_marker(state["levels"], card.split(":")[1], RISE_LEVELS)
    _log_moves(state, before)
    return True


def _deal(state: State, count: int) -> list[str]:
    reshuffles = state["reshuffles"]
    cards = deal(state, count)
    if state["reshuffles"] != reshuffles:
        base.log_event(state, N_("The tulip deck ran out: the discards were shuffled into a new deck."))
    return cards


def _begin_round(state: State) -> None:
    """Event phase: market change, shipment, new start player; then the selling phase."""
    state["round"] += 1
    state["collector_sold"] = []
    if not _flip_market_card(state):
        return
    state["rows"]["new_arrivals"] = state["rows"]["next_shipment"]
    state["rows"]["next_shipment"] = _deal(state, state["players"] + 2)
    state["start_player"] = (state["start_player"] + 1) % state["players"]
    base.log_event(
        state,
        N_("Round {round} begins; {seat} is the start player."),
        round=state["round"],
        seat=base.seat_ref(state["start_player"]),
    )
    state["history"].append({"round": state["round"], **state["levels"]})
    state["phase"] = "selling"
    state["selling_index"] = 0
    _settle_selling_turn(state)


def _seat_in_order(state: State, index: int) -> int:
    start: int = state["start_player"]
    players: int = state["players"]
    return (start + index) % players


def _settle_selling_turn(state: State) -> None:
    """Point ``turn`` at the next seller; a seller with no tulip and no mortgage has nothing to do."""
    while state["selling_index"] < state["players"]:
        seat = _seat_in_order(state, state["selling_index"])
        if state["hands"][seat] or state["mortgages"][seat]:
            state["turn"] = seat
            return
        state["selling_index"] += 1
    _begin_auction_phase(state)


def _begin_auction_phase(state: State) -> None:
    """Auction phase start: the black tulip check (ruling 10), then the placement turns."""
    declarers = [
        seat
        for seat in range(state["players"])
        if state["cash"][seat] >= BLACK_TULIP_PRICE and not state["mortgages"][seat]
    ]
    if declarers:
        _black_tulip(state, declarers)
        return
    state["phase"] = "bidding"
    state["placement"] = {"index": 0, "quota": FIRST_TURN_TOKENS, "placed": 0}
    _settle_placement_turn(state)


def _placement_possible(state: State, seat: int) -> bool:
    """Whether a placement turn could still do something, judged on public facts only.

    A seat whose tokens all lie on mortgages keeps the turn (it may redeem one first, FAQ Q1);
    whether it can afford that is its secret, so the turn is not skipped for it.
    """
    if not _placeable_cards(state, seat):
        return False
    return tokens_available(state, seat) > 0 or bool(state["mortgages"][seat])


def _settle_placement_turn(state: State) -> None:
    placement = state["placement"]
    players = state["players"]
    while placement["index"] < 2 * players:
        seat = _seat_in_order(state, placement["index"] % players)
        placement["quota"] = FIRST_TURN_TOKENS if placement["index"] < players else SECOND_TURN_TOKENS
        if _placement_possible(state, seat):
            state["turn"] = seat
            return
        placement["index"] += 1
        placement["placed"] = 0
    state["placement"] = None
    state["turn"] = None
    state["queue"] = [
        card for row in AUCTION_ROWS for card in state["rows"][row] if state["tokens"].get(card)
    ]
    _resolve_next(state)


def _next_placement_turn(state: State) -> None:
    state["placement"]["index"] += 1
    state["placement"]["placed"] = 0
    _settle_placement_turn(state)


def _resolve_next(state: State) -> None:
    """Bid resolution (ruling 8): the next card with tokens, or the end phase when none is left."""
    if not state["queue"]:
        _end_phase(state)
        return
    card = state["queue"].pop(0)
    bidders = sorted(state["tokens"][card], key=lambda s: (s - state["start_player"]) % state["players"])
    market = prices.market_price(state, card)
    if len(bidders) == 1:
        base.log_event(
            state,
            N_("{seat} is the only bidder for {card} and buys it at the market price of ƒ{amount}."),
            seat=base.seat_ref(bidders[0]),
            card=label_of(card),
            amount=market,
        )
        _await_payment(state, card, bidders[0], market, bidders)
        return
    state["phase"] = "auction"
    state["auction"] = {
        "card": card,
        "market": market,
        "bidders": bidders,
        "active": list(bidders),
        "high": None,
        "high_bidder": None,
        "turn": bidders[0],
    }
    base.log_event(
        state,
        N_("Auction for {card} (market price ƒ{amount}) among {bidders}."),
        card=label_of(card),
        amount=market,
        bidders=[base.seat_ref(s) for s in bidders],
    )


def _await_payment(state: State, card: str, winner: int, price: int, participants: list[int]) -> None:
    """The winner always chooses how to pay, even when short of cash: skipping the choice would tell
    the table that their cash is below the price."""
    state["phase"] = "payment"
    state["auction"] = None
    state["payment"] = {
        "card": card,
        "winner": winner,
        "price": price,
        "market": prices.market_price(state, card),
        "participants": participants,
    }


def _end_phase(state: State) -> None:
    """Supply and demand, then New Arrivals and Just Sold go to the discard pile."""
    _supply_and_demand(state)
    for row in AUCTION_ROWS:
        state["discard"].extend(state["rows"][row])
        state["rows"][row] = []
    state["tokens"] = {}
    state["payment"] = None
    _begin_round(state)


def _supply_and_demand(state: State) -> None:
    counts = prices.row_counts(state)
    base.log_event(
        state,
        N_("Supply and demand: {red} red, {white} white and {yellow} yellow tulips on the market."),
        red=counts["red"],
        white=counts["white"],
        yellow=counts["yellow"],
    )
    before = dict(state["levels"])
    prices.supply_and_demand(state["levels"], counts)
    _log_moves(state, before)


def _finish(state: State, reason: str, winners: list[int]) -> None:
    owed = [debts(state, seat) for seat in range(state["players"])]
    state["end"] = {
        "reason": reason,
        "winners": winners,
        "cash": list(state["cash"]),
        "debts": owed,
        "assets": [cash - debt for cash, debt in zip(state["cash"], owed, strict=True)],
    }
    for seat in range(state["players"]):
        base.log_event(
            state,
            N_("{seat}: cash ƒ{cash} − debts ƒ{debts} = assets ƒ{assets}."),
            seat=base.seat_ref(seat),
            cash=state["cash"][seat],
            debts=owed[seat],
            assets=state["end"]["assets"][seat],
        )
    state["phase"] = "finished"
    state["turn"] = None
    state["auction"] = None
    state["payment"] = None
    state["placement"] = None
    state["finished"] = True


def _black_tulip(state: State, declarers: list[int]) -> None:
    """Ruling 10: the richest declarer buys the black tulip and wins; equal cash shares the win."""
    for seat in declarers:
        base.log_event(
            state,
            N_("{seat} declares the black tulip with {cash} guilders."),
            seat=base.seat_ref(seat),
            cash=state["cash"][seat],
        )
    best = max(state["cash"][seat] for seat in declarers)
    _finish(state, "black_tulip", [seat for seat in declarers if state["cash"][seat] == best])


def _bubble_burst(state: State) -> None:
    """Ruling 11: hand tulips are worth nothing; assets are cash minus the mortgages' amounts."""
    base.log_event(state, N_("The bubble bursts! Tulips in hand are worthless; mortgages are debts."))
    assets = [state["cash"][seat] - debts(state, seat) for seat in range(state["players"])]
    best = max(assets)
    _finish(state, "burst", [seat for seat, value in enumerate(assets) if value == best])


# --- tulip deck ------------------------------------------------------------------------------------


def deal(state: State, count: int) -> list[str]:
    """Take ``count`` cards from the tulip deck, shuffling the discards in when it runs short.

    If deck and discards together hold fewer cards (players hoard the rest), all of them are dealt.
    """
    dealt: list[str] = []
    while len(dealt) < count:
        if not state["deck"]:
            if not state["discard"]:
                break
            state["deck"] = state["discard"]
            state["discard"] = []
            base.draw_rng(state).shuffle(state["deck"])
            state["reshuffles"] += 1
        dealt.append(state["deck"].pop(0))
    return dealt


# --- tokens and mortgages ---------------------------------------------------------------------------


def tokens_placed(state: State, seat: int) -> int:
    return sum(seats.count(seat) for seats in state["tokens"].values())


def tokens_available(state: State, seat: int) -> int:
    """Purchase tokens in front of a player: not on a bid card, not resting on a mortgage."""
    return TOKENS_PER_PLAYER - len(state["mortgages"][seat]) - tokens_placed(state, seat)


def find_mortgage(state: State, seat: int, card: str) -> dict[str, Any] | None:
    mortgages: list[dict[str, Any]] = state["mortgages"][seat]
    for mortgage in mortgages:
        if mortgage["card"] == card:
            return mortgage
    return None


def redeem_refusal(state: State, seat: int, mortgage: dict[str, Any]) -> tuple[str, dict[str, int]] | None:
    """Why ``seat`` cannot redeem ``mortgage`` now (ruling 6: any moment, for its recorded amount in
    cash), as a message to translate; None when it can. The page shows it beside a redeem it cannot
    offer, so the legal actions and the refusal say the same."""
    cash, amount = state["cash"][seat], mortgage["amount"]
    if cash >= amount:
        return None
    return N_("You have only ƒ{cash}; redeeming this tulip costs ƒ{amount}."), {
        "cash": cash,
        "amount": amount,
    }


def debts(state: State, seat: int) -> int:
    return sum(mortgage["amount"] for mortgage in state["mortgages"][seat])


# --- collectors' orders ----------------------------------------------------------------------------


def fulfils(collector: str, cards: list[str]) -> bool:
    """Whether these cards are exactly one collector's order."""
    spec = COLLECTORS[collector]
    slots: tuple[str, ...] = spec["slots"]  # type: ignore[assignment]
    if len(cards) != len(slots) or len(set(cards)) != len(cards):
        return False
    colours = {colour_of(card) for card in cards}
    if spec["colours"] == "same" and len(colours) != 1:
        return False
    if spec["colours"] == "different" and len(colours) != len(cards):
        return False
    if "=" in slots:
        return len({variety_of(card) for card in cards}) == 1
    return any(
        all(
            variety_of(card) == slot or (len(slot) == 1 and grade_of(card) == slot)
            for card, slot in zip(ordering, slots, strict=True)
        )
        for ordering in permutations(cards)
    )


def collector_tops(state: State) -> list[str]:
    """The face-up collector of each non-empty pile."""
    return [pile[0] for pile in state["collectors"] if pile]


def collector_offers(collector: str, hand: list[str]) -> list[list[str]]:
    """Distinct ways (up to identical copies) to fulfil a collector's order from a hand."""
    size = len(COLLECTORS[collector]["slots"])  # type: ignore[arg-type]
    seen: set[tuple[str, ...]] = set()
    offers: list[list[str]] = []
    for combo in combinations(sorted(hand), size):
        key = tuple(sorted(card.rsplit("-", 1)[0] for card in combo))
        if key in seen or not fulfils(collector, list(combo)):
            continue
        seen.add(key)
        offers.append(list(combo))
    return offers


# --- action handlers -------------------------------------------------------------------------------


def _require_phase(state: State, phase: str) -> None:
    if state["phase"] != phase:
        raise IllegalAction(N_("That is not possible in this phase."))


def _sell(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "selling")
    card = _card_param(action)
    if card not in state["hands"][seat]:
        raise IllegalAction(N_("That tulip is not in your hand."))
    price = prices.market_price(state, card)
    state["hands"][seat].remove(card)
    state["rows"]["just_sold"].append(card)
    state["cash"][seat] += price
    base.log_event(
        state,
        N_("{seat} sold {card} to the market for ƒ{amount}."),
        seat=base.seat_ref(seat),
        card=label_of(card),
        amount=price,
    )
    _after_selling_action(state, seat)


def _sell_to_collector(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "selling")
    collector = action.get("collector")
    if seat in state["collector_sold"]:
        raise IllegalAction(N_("You may sell to only one collector a round."))
    if not isinstance(collector, str) or collector not in collector_tops(state):
        raise IllegalAction(N_("That collector is not face up."))
    cards = _cards_param(action)
    hand = state["hands"][seat]
    if len(set(cards)) != len(cards) or any(card not in hand for card in cards):
        if any(find_mortgage(state, seat, card) for card in cards):
            raise IllegalAction(N_("Redeem a mortgaged tulip before selling it to a collector."))
        raise IllegalAction(N_("Those tulips are not all in your hand."))
    spec = COLLECTORS[collector]
    if not fulfils(collector, cards):
        raise IllegalAction(
            N_("Those tulips do not fill the {collector}'s order: {order}."),
            collector=spec["name"],
            order=spec["order"],
        )
    value = sum(prices.market_price(state, card) for card in cards)
    amount = value + int(spec["bonus"])  # type: ignore[call-overload]
    for card in cards:
        hand.remove(card)
        state["discard"].append(card)
    state["cash"][seat] += amount
    state["collector_sold"].append(seat)
    for pile in state["collectors"]:
        if pile and pile[0] == collector:
            pile.pop(0)
    base.log_event(
        state,
        N_("{seat} sold {cards} to the {collector} for ƒ{amount} (ƒ{value} + bonus ƒ{bonus})."),
        seat=base.seat_ref(seat),
        cards=[label_of(card) for card in cards],
        collector=spec["name"],
        amount=amount,
        value=value,
        bonus=spec["bonus"],
    )
    _after_selling_action(state, seat)


def _sell_mortgage(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "selling")
    if state["options"][NO_MARGIN_TRADING]:
        raise IllegalAction(N_("No margin trading: redeem the mortgage with cash before selling the tulip."))
    card = _card_param(action)
    mortgage = find_mortgage(state, seat, card)
    if mortgage is None:
        raise IllegalAction(N_("You have no mortgage on that tulip."))
    price = prices.market_price(state, card)
    difference = price - mortgage["amount"]
    if state["cash"][seat] + difference < 0:
        raise IllegalAction(
            N_("You have only ƒ{cash}; selling this mortgage costs ƒ{amount}."),
            cash=state["cash"][seat],
            amount=-difference,
        )
    state["mortgages"][seat].remove(mortgage)
    state["cash"][seat] += difference
    state["rows"]["just_sold"].append(card)
    text = (
        N_(
            "{seat} sold the mortgaged {card} at ƒ{price} and received the ƒ{amount} above its recorded ƒ{recorded}."
        )
        if difference >= 0
        else N_(
            "{seat} sold the mortgaged {card} at ƒ{price} and paid the ƒ{amount} short of its recorded ƒ{recorded}."
        )
    )
    base.log_event(
        state,
        text,
        seat=base.seat_ref(seat),
        card=label_of(card),
        price=price,
        amount=abs(difference),
        recorded=mortgage["amount"],
    )
    _after_selling_action(state, seat)


def _after_selling_action(state: State, seat: int) -> None:
    if not state["hands"][seat] and not state["mortgages"][seat]:
        _end_selling_turn(state, seat)


def _end_selling_turn(state: State, seat: int) -> None:
    base.log_event(state, N_("{seat} is done selling."), seat=base.seat_ref(seat))
    state["selling_index"] += 1
    _settle_selling_turn(state)


def _redeem(state: State, seat: int, action: Action) -> None:
    card = _card_param(action)
    mortgage = find_mortgage(state, seat, card)
    if mortgage is None:
        raise IllegalAction(N_("You have no mortgage on that tulip."))
    refusal = redeem_refusal(state, seat, mortgage)
    if refusal is not None:
        raise IllegalAction(refusal[0], **refusal[1])
    state["mortgages"][seat].remove(mortgage)
    state["cash"][seat] -= mortgage["amount"]
    state["hands"][seat].append(card)
    base.log_event(
        state,
        N_("{seat} redeemed {card} for ƒ{amount}."),
        seat=base.seat_ref(seat),
        card=label_of(card),
        amount=mortgage["amount"],
    )


def _end_turn(state: State, seat: int, action: Action) -> None:
    if state["phase"] == "selling":
        _end_selling_turn(state, seat)
    elif state["phase"] == "bidding":
        if state["placement"]["placed"] == 0:
            base.log_event(state, N_("{seat} placed no token."), seat=base.seat_ref(seat))
        _next_placement_turn(state)
    else:
        raise IllegalAction(N_("That is not possible in this phase."))


def _place(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "bidding")
    card = _card_param(action)
    if not any(card in state["rows"][row] for row in AUCTION_ROWS):
        raise IllegalAction(N_("Tokens go on tulips in New Arrivals or Just Sold."))
    if seat in state["tokens"].get(card, []):
        raise IllegalAction(N_("You already have a token on that tulip."))
    if tokens_available(state, seat) <= 0:
        raise IllegalAction(N_("You have no purchase token left; redeem a mortgage to free one."))
    placement = state["placement"]
    if placement["placed"] >= placement["quota"]:
        raise IllegalAction(N_("You have placed all the tokens this turn allows."))
    state["tokens"].setdefault(card, []).append(seat)
    placement["placed"] += 1
    base.log_event(
        state, N_("{seat} placed a token on {card}."), seat=base.seat_ref(seat), card=label_of(card)
    )
    if not _placement_possible(state, seat):
        _next_placement_turn(state)


def _raise(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "auction")
    amount = _int_param(action, "amount")
    minimum = _minimum_bid(state)
    if amount < minimum:
        raise IllegalAction(N_("A bid must be at least ƒ{amount}."), amount=minimum)
    auction = state["auction"]
    auction["high"] = amount
    auction["high_bidder"] = seat
    base.log_event(state, N_("{seat} bid ƒ{amount}."), seat=base.seat_ref(seat), amount=amount)
    _next_bidder(state, seat)


def _drop(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "auction")
    auction = state["auction"]
    base.log_event(state, N_("{seat} dropped out."), seat=base.seat_ref(seat))
    _next_bidder(state, seat)
    auction["active"].remove(seat)
    if len(auction["active"]) > 1:
        return
    winner = auction["active"][0]
    card = auction["card"]
    if auction["high"] is None:
        price = auction["market"]
        base.log_event(
            state,
            N_("Nobody bid: {seat}, last in order, buys {card} at the market price of ƒ{amount}."),
            seat=base.seat_ref(winner),
            card=label_of(card),
            amount=price,
        )
    else:
        price = auction["high"]
        base.log_event(
            state,
            N_("{seat} won {card} for ƒ{amount}."),
            seat=base.seat_ref(winner),
            card=label_of(card),
            amount=price,
        )
    _await_payment(state, card, winner, price, auction["bidders"])


def _next_bidder(state: State, seat: int) -> None:
    active = state["auction"]["active"]
    state["auction"]["turn"] = active[(active.index(seat) + 1) % len(active)]


def _pay(state: State, seat: int, action: Action) -> None:
    _require_phase(state, "payment")
    payment = state["payment"]
    method = action.get("method")
    card, price = payment["card"], payment["price"]
    label = label_of(card)
    if method == "cash":
        if state["cash"][seat] < price:
            raise IllegalAction(
                N_("You have only ƒ{cash}; a price of ƒ{amount} needs a mortgage."),
                cash=state["cash"][seat],
                amount=price,
            )
        state["cash"][seat] -= price
        state["hands"][seat].append(card)
        base.log_event(
            state,
            N_("{seat} paid ƒ{amount} in cash for {card}."),
            seat=base.seat_ref(seat),
            card=label,
            amount=price,
        )
    elif method == "mortgage":
        state["mortgages"][seat].append({"card": card, "amount": price})
        base.log_event(
            state,
            N_("{seat} mortgaged {card} at ƒ{amount}."),
            seat=base.seat_ref(seat),
            card=label,
            amount=price,
        )
    else:
        raise IllegalAction(N_("Pay in cash or with a mortgage."))
    for row in AUCTION_ROWS:
        if card in state["rows"][row]:
            state["rows"][row].remove(card)
    del state["tokens"][card]
    _pay_overflow(state, payment)
    state["payment"] = None
    _resolve_next(state)


def _pay_overflow(state: State, payment: dict[str, Any]) -> None:
    """3-2-3: the other auction participants split (price − market price), remainder dropped."""
    others = [s for s in payment["participants"] if s != payment["winner"]]
    excess = payment["price"] - payment["market"]
    if not others or excess <= 0:
        return
    share = excess // len(others)
    if share == 0:
        return
    for other in others:
        state["cash"][other] += share
    base.log_event(
        state,
        N_("Overflow reward: ƒ{amount} each to {seats}."),
        seats=[base.seat_ref(s) for s in others],
        amount=share,
    )


_HANDLERS = {
    "sell": _sell,
    "sell_to_collector": _sell_to_collector,
    "sell_mortgage": _sell_mortgage,
    "redeem": _redeem,
    "end_turn": _end_turn,
    "place": _place,
    "raise": _raise,
    "drop": _drop,
    "pay": _pay,
}
