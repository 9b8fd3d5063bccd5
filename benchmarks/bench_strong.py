"""The strong bot's figures (BENCHMARKS.md, "Bots and the simulator"), gathered a few games at a time.

Run: ``.venv/bin/python -m benchmarks.bench_strong --out FILE [--rounds N]``, and
``.venv/bin/python -m benchmarks.bench_strong --out FILE --report`` for the table. Each round plays,
for every row (game and ordering: one strong seat against three normal ones, or the reverse), one
game of each seat rotation (``app.simulate``, seed = the round number), and appends its results to
``FILE`` as JSON lines; so a run stopped at any moment keeps every round it finished, and a later run
goes on from the next round (``--first N``: several runs at once, each its own rounds, one file each;
``--report`` takes several files). A strong decision's search is capped by a fixed playout count
(``ITERATIONS``) with a clock far above what it needs: the games are the same on any machine.
``--choose best-mean`` or ``--choose caution`` makes the run's games pick their move by the best mean
or by ``clearly_better`` whatever ``search.BEST_MEAN`` says, ``--full-playouts`` plays them to the
game's end (``search.SHORT_PLAYOUTS`` off), ``--generic-candidates`` ignores the game's own candidates
(``search.OWN_CANDIDATES``) and ``--iterations`` replaces ``ITERATIONS``: the same seeded rounds
measured both ways.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.bots import search
from app.games.basari import determinize as basari_search
from app.games.base import Budget
from app.simulate import Rate, simulate

PLAYERS = 4
ITERATIONS = {"qe": 16, "tulipmania-1637": 16, "basari": 24, "tulip-bubble": 8}  # playouts a decision
# (Basari's playouts stop at the end of the round: 24 of them, a decision's median ~105 ms here)
ORDERINGS = {
    "strong vs three normal": ["strong", "normal", "normal", "normal"],
    "normal vs three strong": ["normal", "strong", "strong", "strong"],
}
CLOCK = 600.0  # seconds: never reached, so the playout count alone ends a search


def rows(orderings: list[str], games: list[str]) -> Iterator[tuple[str, str]]:
    for ordering in orderings:
        for game in games:
            yield game, ordering


def play_round(out: Path, number: int, orderings: list[str], games: list[str]) -> None:
    for game, ordering in rows(orderings, games):
        started = time.process_time()
        summary = simulate(
            game, PLAYERS, PLAYERS, ORDERINGS[ordering], number, Budget(CLOCK, ITERATIONS[game]), check=False
        )
        line = {
            "game": game,
            "ordering": ordering,
            "round": number,
            "cpu_seconds": time.process_time() - started,
            "best_mean": game in search.BEST_MEAN,
            "short_playouts": game in search.SHORT_PLAYOUTS,
            "own_candidates": game in search.OWN_CANDIDATES,
            "basari_cards_searched": basari_search.SEARCH_THE_CARDS,
            "basari_card_temperature": basari_search.CARD_TEMPERATURE,
            "iterations": ITERATIONS[game],
            "failures": summary.failures,
            "games": [
                {
                    "kinds": record.kinds,
                    "winners": record.winners,
                    "thoughts": [
                        [t.seconds, t.playouts, t.candidates, t.cut_by_clock, t.fallback]
                        for t in record.thoughts
                    ],
                }
                for record in summary.records
            ],
        }
        with out.open("a") as file:
            file.write(json.dumps(line) + "\n")


def report(outs: list[Path]) -> str:
    lines = [json.loads(text) for out in outs for text in out.read_text().splitlines() if text.strip()]
    table = [
        "| game | ordering | games | strong | normal | strong decision: median / p95 / slowest | "
        "fallbacks | CPU s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game, ordering in rows(list(ORDERINGS), list(ITERATIONS)):
        mine = [line for line in lines if line["game"] == game and line["ordering"] == ordering]
        if mine:
            table.append(_row(game, ordering, mine))
    return "\n".join(table)


def _row(game: str, ordering: str, lines: list[dict[str, Any]]) -> str:
    games = [g for line in lines for g in line["games"]]
    shares: dict[str, list[float]] = {"strong": [], "normal": []}
    for g in games:
        for seat, kind in enumerate(g["kinds"]):
            shares[kind].append(1 / len(g["winners"]) if seat in g["winners"] else 0.0)
    thoughts = [t for g in games for t in g["thoughts"]]
    seconds = sorted(t[0] for t in thoughts)

    def at(q: float) -> float:
        return float(1000 * seconds[min(len(seconds) - 1, math.floor(q * len(seconds)))])

    fallbacks = sum(t[4] is not None for t in thoughts)
    failures = sum(len(line["failures"]) for line in lines)
    cpu = sum(line["cpu_seconds"] for line in lines)
    rates = {kind: _rate(Rate.of(values)) for kind, values in shares.items()}
    timing = f"{at(0.5):.0f} / {at(0.95):.0f} / {1000 * seconds[-1]:.0f} ms ({len(thoughts)})"
    extra = f", {failures} failed checks" if failures else ""
    return (
        f"| {game} | {ordering} | {len(games)} | {rates['strong']} | {rates['normal']} | {timing} | "
        f"{fallbacks}{extra} | {cpu:.0f} |"
    )


def _rate(rate: Rate) -> str:
    return f"{100 * rate.mean:.1f}% ± {100 * rate.half_width:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_strong")
    parser.add_argument("--out", type=Path, required=True, action="append")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--first", type=int, help="the first round's number (default: after the file's last)")
    parser.add_argument("--ordering", choices=list(ORDERINGS), action="append")
    parser.add_argument("--game", choices=list(ITERATIONS), action="append")
    parser.add_argument("--choose", choices=["best-mean", "caution"], help="override search.BEST_MEAN")
    parser.add_argument("--full-playouts", action="store_true", help="to the game's end (SHORT_PLAYOUTS off)")
    parser.add_argument("--generic-candidates", action="store_true", help="OWN_CANDIDATES off")
    parser.add_argument(
        "--basari-cards",
        choices=["search", "normal", "soft"],
        help="Basari's card: searched, normal's, drawn",
    )
    parser.add_argument(
        "--card-temperature", type=float, default=1.0, help="points, with --basari-cards soft"
    )
    parser.add_argument("--iterations", type=int, help="playouts a decision, instead of ITERATIONS")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if args.report:
        print(report(args.out))
        return
    games = args.game or list(ITERATIONS)
    if args.choose == "best-mean":
        search.BEST_MEAN = search.BEST_MEAN | set(games)
    elif args.choose == "caution":
        search.BEST_MEAN = search.BEST_MEAN - set(games)
    if args.full_playouts:
        search.SHORT_PLAYOUTS = search.SHORT_PLAYOUTS - set(games)
    if args.generic_candidates:
        search.OWN_CANDIDATES = search.OWN_CANDIDATES - set(games)
    if args.basari_cards:
        basari_search.SEARCH_THE_CARDS = args.basari_cards != "normal"
        basari_search.CARD_TEMPERATURE = args.card_temperature if args.basari_cards == "soft" else None
    if args.iterations:
        ITERATIONS.update(dict.fromkeys(games, args.iterations))
    out: Path = args.out[0]
    done = {json.loads(text)["round"] for text in out.read_text().splitlines()} if out.exists() else set()
    first = args.first if args.first is not None else max(done, default=0) + 1
    for number in range(first, first + args.rounds):
        play_round(out, number, args.ordering or list(ORDERINGS), games)


if __name__ == "__main__":
    main()
