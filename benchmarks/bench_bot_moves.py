"""What one bot move costs, split into its parts (issue 22): the seat's view as a bot gets it (with the
legal actions), the bot's decision, and the engine's apply.

Run: ``.venv/bin/python -m benchmarks.bench_bot_moves [--game basari] [--games 20] [--strength normal]``.
It plays ``--games`` games of four bots of one strength in this process, calling the bot directly
(``Engine.decide``, without ``safe_decision``'s thread), and prints the CPU time (``process_time``) of
each part averaged over every move, and games per CPU-second. It asserts nothing; BENCHMARKS.md
("One bot against three") has the figures.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from app.games.base import view_without_log
from app.games.registry import ENGINES


def measure(game: str, games: int, strength: str) -> str:
    engine = ENGINES[game]
    clock = time.process_time
    viewing = deciding = applying = 0.0
    moves = 0
    started = clock()
    for number in range(games):
        state = engine.setup(4, {}, number)
        while not state["finished"]:
            seat = engine.to_act(state)[0]
            before_view = clock()
            view = view_without_log(engine, state, seat)
            legal = engine.legal_actions(state, seat)
            before_decision = clock()
            action = engine.decide(view, seat, legal, random.Random(moves), strength)
            before_apply = clock()
            state = engine.apply(state, seat, action)
            viewing += before_decision - before_view
            deciding += before_apply - before_decision
            applying += clock() - before_apply
            moves += 1
    total = clock() - started
    return (
        f"{game}, {strength}: {games / total:.1f} games per CPU-second, {moves / games:.0f} moves a game; "
        f"a move: view + legal {1e3 * viewing / moves:.2f} ms, decision {1e3 * deciding / moves:.2f} ms, "
        f"apply {1e3 * applying / moves:.2f} ms"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_bot_moves", description=__doc__)
    parser.add_argument("--game", choices=sorted(ENGINES), action="append")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--strength", choices=("easy", "normal"), default="normal")
    args = parser.parse_args(argv)
    for game in args.game or sorted(ENGINES):
        print(measure(game, args.games, args.strength), flush=True)


if __name__ == "__main__":
    main()
