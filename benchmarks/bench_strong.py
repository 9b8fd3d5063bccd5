"""The strong bot's figures (BENCHMARKS.md, "Bots and the simulator"), gathered a few games at a time.

Run: ``.venv/bin/python -m benchmarks.bench_strong --out FILE [--rounds N]``, and
``.venv/bin/python -m benchmarks.bench_strong --out FILE --report`` for the table. Each round plays,
for every row (game and ordering: one strong seat against three normal ones, or the reverse), one
game of each seat rotation (``app.simulate``, seed = the round number), and appends its results to
``FILE`` as JSON lines; so a run stopped at any moment keeps every round it finished, and a later run
goes on from the next round (``--first N``: several runs at once, each its own rounds, one file each;
``--report`` takes several files). A strong decision's search plays the game's own playout count (``SearchHooks.playouts``, as the
server's strong bot does) with a budget far above what it needs: the games are the same on any
machine. The report gives each row's decisions by the search's CPU time too, and how many would
have reached the server's CPU allowance (``THINK_SHARE`` of the default budget), where the server's
strong bot would have been cut short of that count.
The switches change what the run's games declare to the search (their determinize module's ``SEARCH``,
``base.SearchHooks``), so that the same seeded rounds can be measured both ways: ``--choose best-mean``
or ``--choose caution`` picks the move by the best mean or by ``clearly_better`` whatever the game
says, ``--full-playouts`` plays to the game's end (no horizon), ``--generic-candidates`` ignores the
game's own candidates, ``--choice-temperature`` draws the game's drawn choices at another temperature
(``none``: takes them outright, by the game's choice rule) and ``--iterations`` replaces
the game's playout count. ``--server-budget`` has the strong bot think with the server's default
budget as the server's worker would on a core of its own (a host whose other cores are busy): its
latency cap then runs on its own CPU time, so the run measures that host on this one, however busy.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import time
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

from app.bots.search import THINK_SHARE, Clocks, Thought, strong_action
from app.games.base import Action, Budget, Engine, SearchHooks, View
from app.games.registry import package_of, search_hooks_of
from app.simulate import Rate, simulate

PLAYERS = 4
GAMES = ("qe", "tulipmania-1637", "basari", "tulip-bubble")
ORDERINGS = {
    "strong vs three normal": ["strong", "normal", "normal", "normal"],
    "normal vs three strong": ["normal", "strong", "strong", "strong"],
}
CLOCK = 600.0  # seconds: never reached, so the playout count alone ends a search
UNCAPPED = 1_000_000  # Budget.iterations: the game's own count binds
SERVER_BUDGET = Budget()  # the server's default (BOURSE_BOT_THINK_SECONDS)
SERVER_ALLOWANCE = THINK_SHARE * SERVER_BUDGET.seconds  # its CPU allowance, in seconds
OWN_CORE = Clocks(wall=time.thread_time, cpu=time.thread_time)  # a worker that never waits for a core
SERVER = {"budget": False}  # whether the strong bot thinks with SERVER_BUDGET on OWN_CORE
CHOICE_TEMPERATURE: dict[str, float] = {}  # games whose drawn choices --choice-temperature changed


def on_own_core(
    engine: Engine,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    rng: random.Random,
    budget: Budget,
    thought: Thought | None = None,
) -> Action:
    """The server's strong decision on a core of its own (the simulator's ``budget`` only keeps its
    guard from giving up on a niced benchmark)."""
    return strong_action(engine, view, seat, legal, rng, SERVER_BUDGET, thought, clocks=OWN_CORE)


def rows(orderings: list[str], games: list[str]) -> Iterator[tuple[str, str]]:
    for ordering in orderings:
        for game in games:
            yield game, ordering


def play_round(out: Path, number: int, orderings: list[str], games: list[str]) -> None:
    for game, ordering in rows(orderings, games):
        started = time.process_time()
        hooks = search_hooks_of(game)
        summary = simulate(
            game,
            PLAYERS,
            PLAYERS,
            ORDERINGS[ordering],
            number,
            Budget(CLOCK, UNCAPPED),
            check=False,
            search=on_own_core if SERVER["budget"] else strong_action,
        )
        line = {
            "game": game,
            "ordering": ordering,
            "round": number,
            "cpu_seconds": time.process_time() - started,
            "best_mean": hooks.best_mean,
            "short_playouts": hooks.playout_over is not None,
            "own_candidates": hooks.candidates is not None,
            "drawn_choices": hooks.choice_temperature is not None,
            "choice_temperature": CHOICE_TEMPERATURE.get(game),  # None: the game's own
            "iterations": hooks.playouts,
            "server_budget": SERVER_BUDGET.seconds if SERVER["budget"] else None,
            "failures": summary.failures,
            "games": [
                {
                    "kinds": record.kinds,
                    "winners": record.winners,
                    "thoughts": [
                        [t.seconds, t.playouts, t.candidates, t.cut_by_clock, t.fallback, t.cpu_seconds]
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
        f"searched decisions: playouts, CPU median / p95 (over {SERVER_ALLOWANCE:.1f} s; cut by a clock) | "
        "fallbacks | CPU s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for game, ordering in rows(list(ORDERINGS), list(GAMES)):
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
    searched = [t for t in thoughts if len(t) > 5 and t[2] > 1]  # lines before the CPU's: none
    search_cpu = sorted(t[5] for t in searched)
    over = sum(seconds > SERVER_ALLOWANCE for seconds in search_cpu)
    cut = sum(bool(t[3]) for t in searched)
    work = (
        f"{sum(t[1] for t in searched) / len(searched):.1f}, {1000 * search_cpu[len(search_cpu) // 2]:.0f} / "
        f"{1000 * search_cpu[min(len(search_cpu) - 1, math.floor(0.95 * len(search_cpu)))]:.0f} ms "
        f"({over} of {len(search_cpu)}; {cut} cut short)"
        if searched
        else "—"
    )
    extra = f", {failures} failed checks" if failures else ""
    return (
        f"| {game} | {ordering} | {len(games)} | {rates['strong']} | {rates['normal']} | {timing} | "
        f"{work} | {fallbacks}{extra} | {cpu:.0f} |"
    )


def _rate(rate: Rate) -> str:
    return f"{100 * rate.mean:.1f}% ± {100 * rate.half_width:.1f}"


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_strong")
    parser.add_argument("--out", type=Path, required=True, action="append")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--first", type=int, help="the first round's number (default: after the file's last)")
    parser.add_argument("--ordering", choices=list(ORDERINGS), action="append")
    parser.add_argument("--game", choices=list(GAMES), action="append")
    parser.add_argument("--choose", choices=["best-mean", "caution"], help="override the game's choice rule")
    parser.add_argument("--full-playouts", action="store_true", help="to the game's end (no horizon)")
    parser.add_argument("--generic-candidates", action="store_true", help="not the game's own candidates")
    parser.add_argument(
        "--choice-temperature",
        type=lambda text: None if text == "none" else float(text),
        default=False,
        help="points, for the game's drawn choices (Basari's action card); none: not drawn",
    )
    parser.add_argument("--iterations", type=int, help="playouts a decision, instead of the game's own")
    parser.add_argument(
        "--server-budget", action="store_true", help="the server's default budget, on a core of its own"
    )
    parser.add_argument("--report", action="store_true")
    return parser


def apply_switches(args: argparse.Namespace, games: list[str]) -> None:
    """What the switches change, in each game's declared ``SEARCH``."""
    for game in games:
        hooks = search_hooks_of(game)
        if args.choose is not None:
            hooks = dataclasses.replace(hooks, best_mean=args.choose == "best-mean")
        if args.full_playouts:
            hooks = dataclasses.replace(hooks, playout_over=None, position_value=None)
        if args.generic_candidates:
            hooks = dataclasses.replace(hooks, candidates=None)
        if args.choice_temperature is not False:
            hooks = _with_temperature(hooks, args.choice_temperature)
            if args.choice_temperature is not None:
                CHOICE_TEMPERATURE[game] = args.choice_temperature
        if args.iterations:
            hooks = dataclasses.replace(hooks, playouts=args.iterations)
        module: Any = import_module(f"app.games.{package_of(game)}.determinize")
        module.SEARCH = hooks


def _with_temperature(hooks: SearchHooks, temperature: float | None) -> SearchHooks:
    """The hooks with the game's drawn choices drawn at ``temperature`` (None: not drawn)."""
    drawn = hooks.choice_temperature
    if drawn is None or temperature is None:
        return dataclasses.replace(hooks, choice_temperature=None)

    def choice_temperature(view: View) -> float | None:
        return None if drawn(view) is None else temperature

    return dataclasses.replace(hooks, choice_temperature=choice_temperature)


def main() -> None:
    args = parser().parse_args()
    if args.report:
        print(report(args.out))
        return
    games = args.game or list(GAMES)
    apply_switches(args, games)
    SERVER["budget"] = args.server_budget
    out: Path = args.out[0]
    done = {json.loads(text)["round"] for text in out.read_text().splitlines()} if out.exists() else set()
    first = args.first if args.first is not None else max(done, default=0) + 1
    for number in range(first, first + args.rounds):
        play_round(out, number, args.ordering or list(ORDERINGS), games)


if __name__ == "__main__":
    main()
