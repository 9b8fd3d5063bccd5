"""Ruling 6: the winner is public, the amount is not — spectators' log says who won, without the amount."""

from __future__ import annotations

from app.games.qe import ENGINE


def test_spectators_read_who_won_but_not_the_hidden_amount() -> None:
    state = ENGINE.setup(4, {}, 11)
    auctioneer = ENGINE.to_act(state)[0]
    state = ENGINE.apply(state, auctioneer, {"type": "open_bid", "amount": 5})
    bidders = ENGINE.to_act(state)
    winner = bidders[0]
    for seat in bidders:
        state = ENGINE.apply(state, seat, {"type": "bid", "amount": 987654321 if seat == winner else 1})
    secret_line = "{seat} won {country} {industry}; the amount stays secret."
    amount_line = "{seat} won {country} {industry} for {amount}."

    def lines(seat: int | None) -> list[str]:
        return [event["text"] for event in ENGINE.view(state, seat)["events"]]

    assert secret_line in lines(None) and amount_line not in lines(None)
    for seat in (winner, auctioneer):
        assert amount_line in lines(seat) and secret_line not in lines(seat)
    for seat in set(bidders) - {winner}:
        assert secret_line in lines(seat) and amount_line not in lines(seat)
