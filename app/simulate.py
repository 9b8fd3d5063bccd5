"""Bot games played in-process, with every position checked: ``python -m app.simulate``.

    python -m app.simulate --game basari --players 4 --games 200 --bots normal,easy [--seed 1]

``--bots`` lists bot kinds (``easy``, ``normal``, ``strong``, ``random``: the random legal bot) that
fill the seats in turn; game *g* rotates them by *g* seats, so every kind sits in every seat. After every
action it checks the game's invariants (its ``checks`` module), that the state survives a JSON
round trip and the same action gives the same state again (replay), and that no view changes when
one other seat's secrets change (redaction); at the end, that the whole action list replayed from
the seed gives the final state. It prints the win rate by bot kind and by seat (a shared win counts
as a share) with a 95% confidence interval, the average length and games per second (by the clock and per CPU-second), a game's own
measure of play where it has one (Basari: the share of turns in which three or more seats chose the
same action card, so nobody performs it), and exits non-zero if any check failed.
For strong seats it adds the decisions' time (median, 95th percentile, slowest), how many
searches a clock cut short and how many moves fell back to random. A strong decision plays the
game's own count of playouts (``SearchHooks.playouts``), capped by ``--iterations``; ``--think-seconds``
is its budget (its CPU allowance and the table's latency cap, ``app/bots/search.py``): with a budget
far above what the playouts need, the games are the same on any machine.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.bots import Thought, safe_decision
from app.bots.search import Search, strong_action
from app.games.base import (
    STRENGTHS,
    Action,
    Budget,
    Engine,
    IllegalAction,
    State,
    random_bot_action,
    view_without_log,
)
from app.games.registry import ENGINES, checks_of

KINDS = (*STRENGTHS, "random")
MAX_ACTIONS = 5000  # far beyond any real game: a game that long is stuck


@dataclass
class GameRecord:
    kinds: list[str]
    winners: list[int] = field(default_factory=list)
    actions: int = 0
    failures: list[str] = field(default_factory=list)
    thoughts: list[Thought] = field(default_factory=list)  # the strong seats' decisions
    # the game's own measure (TURN_MEASURES): one True/False per turn it judges
    marked_turns: list[bool] = field(default_factory=list)


def basari_wasted_action(before: State, seat: int, action: Action) -> bool | None:
    """For the last secret choice of a Basari turn (the one that reveals them all): whether three or
    more seats chose the same A, B or C card, so that nobody performs it (ruling 2; D is shared, never
    lost). None for every other action."""
    if action.get("type") != "choose" or before["phase"] != "choose":
        return None
    chosen = list(before["chosen"])
    chosen[seat] = str(action["card"]).strip().upper()
    if any(card is None for card in chosen):
        return None
    return any(chosen.count(card) >= 3 for card in set(chosen) if card != "D")


# game id -> (what the measure counts, the judge of one action: True/False for a turn it ends, else None)
TURN_MEASURES = {
    "basari": ("turns with an action wasted by three or more", basari_wasted_action),
}


def seat_kinds(bots: Sequence[str], players: int, game: int) -> list[str]:
    """The kinds seated in game number ``game``: the list repeated, rotated by ``game`` seats."""
    return [bots[(seat + game) % len(bots)] for seat in range(players)]


def choose(
    engine: Engine,
    state: State,
    seat: int,
    kind: str,
    rng: random.Random,
    budget: Budget,
    thoughts: list[Thought] | None = None,
    search: Search = strong_action,
) -> Action:
    """One seat's move: the random legal bot, or the game's bot given only the seat's view (the strong
    bot: ``search`` in worlds drawn from it; its ``Thought`` is added to ``thoughts``)."""
    if kind == "random":
        return random_bot_action(engine, state, seat, rng)
    thought = Thought()
    view = view_without_log(engine, state, seat)
    legal = engine.legal_actions(state, seat)
    action = safe_decision(engine, view, seat, legal, rng, kind, budget, thought, search)
    if kind == "strong" and thoughts is not None:
        thoughts.append(thought)
    return action


def _views_without_log(engine: Engine, state: State, viewers: Sequence[int | None]) -> list[str]:
    views = []
    for viewer in viewers:
        seen = engine.view(state, viewer)
        seen.pop("events", None)
        views.append(json.dumps(seen, sort_keys=True))
    return views


def check_position(
    engine: Engine, before: State, seat: int, action: Action, after: State, rng: random.Random
) -> list[str]:
    """Invariants, replay of this step from stored JSON, and redaction of one seat's secrets."""
    checks = checks_of(engine.info.id)
    problems = list(checks.invariants(after))
    stored = json.loads(json.dumps(before))
    if engine.apply(stored, seat, json.loads(json.dumps(action))) != after:
        problems.append("replaying the action from stored JSON gives another state")
    if not after["finished"]:
        owner = rng.randrange(after["players"])
        disguised, changed = checks.disguise(after, owner, rng)
        viewers = [None, *(s for s in range(after["players"]) if s not in changed)]
        if _views_without_log(engine, after, viewers) != _views_without_log(engine, disguised, viewers):
            problems.append(f"a view changes with seat {owner}'s secrets")
    return problems


def play_game(
    engine: Engine,
    players: int,
    kinds: list[str],
    seed: int,
    budget: Budget,
    check: bool = True,
    search: Search = strong_action,
) -> GameRecord:
    record = GameRecord(kinds=kinds)
    measure = TURN_MEASURES[engine.info.id][1] if engine.info.id in TURN_MEASURES else None
    state = engine.setup(players, {}, seed)
    checker = random.Random(f"{seed}/checks")
    log: list[tuple[int, Action]] = []
    while not state["finished"]:
        if record.actions >= MAX_ACTIONS:
            record.failures.append(f"no end after {MAX_ACTIONS} actions")
            return record
        waiting = engine.to_act(state)
        if not waiting:
            record.failures.append("the game waits for nobody")
            return record
        seat = waiting[0]
        rng = random.Random(f"{seed}/{seat}/{record.actions}")
        action = choose(engine, state, seat, kinds[seat], rng, budget, record.thoughts, search)
        try:
            after = engine.apply(state, seat, action)
        except IllegalAction as refused:
            record.failures.append(f"the {kinds[seat]} bot played an illegal {action!r}: {refused}")
            return record
        if check:
            record.failures += [f"after action {record.actions + 1}: {p}" for p in check_position(
                engine, state, seat, action, after, checker)]  # fmt: skip
        if measure is not None and (marked := measure(state, seat, action)) is not None:
            record.marked_turns.append(marked)
        log.append((seat, action))
        state = after
        record.actions += 1
    result = engine.result(state)
    if result is None:
        record.failures.append("a finished game has no result")
        return record
    record.winners = list(result.winners)
    if check:
        replay = engine.setup(players, {}, seed)
        for seat, action in log:
            replay = engine.apply(replay, seat, action)
        if replay != state:
            record.failures.append("replaying the action list from the seed gives another state")
    return record


@dataclass
class Rate:
    """A mean of win shares with its 95% confidence interval (normal approximation)."""

    games: int
    mean: float
    half_width: float

    @classmethod
    def of(cls, shares: list[float]) -> Rate:
        n = len(shares)
        if n == 0:
            return cls(0, 0.0, 0.0)
        mean = sum(shares) / n
        variance = sum((s - mean) ** 2 for s in shares) / (n - 1) if n > 1 else 0.0
        return cls(n, mean, 1.96 * math.sqrt(variance / n))

    def __str__(self) -> str:
        return f"{100 * self.mean:5.1f}% ± {100 * self.half_width:4.1f}  ({self.games} seats)"


@dataclass
class Summary:
    game: str
    players: int
    records: list[GameRecord]
    seconds: float
    cpu_seconds: float  # the process's, bot threads included: a figure that holds on a shared machine

    def shares(self, match: Any) -> list[float]:
        """Win shares of every seat-game whose (seat, kind) satisfies ``match``."""
        out = []
        for record in self.records:
            for seat, kind in enumerate(record.kinds):
                if match(seat, kind):
                    out.append(1 / len(record.winners) if seat in record.winners else 0.0)
        return out

    def by_kind(self) -> dict[str, Rate]:
        kinds = sorted({kind for r in self.records for kind in r.kinds}, key=KINDS.index)
        return {kind: Rate.of(self.shares(lambda _s, k, kind=kind: k == kind)) for kind in kinds}

    def by_seat(self) -> dict[int, Rate]:
        return {
            seat: Rate.of(self.shares(lambda s, _k, seat=seat: s == seat)) for seat in range(self.players)
        }

    @property
    def failures(self) -> list[str]:
        return [f"game {i}: {problem}" for i, r in enumerate(self.records) for problem in r.failures]

    def thinking(self) -> list[str]:
        """The strong decisions' time (wall clock, and the search's CPU) and how many a clock or the guard
        cut short."""
        thoughts = [t for r in self.records for t in r.thoughts]
        if not thoughts:
            return []
        seconds = sorted(t.seconds for t in thoughts)
        p50, p95 = (seconds[min(len(seconds) - 1, int(q * len(seconds)))] for q in (0.5, 0.95))
        searched = [t for t in thoughts if t.candidates > 1]
        playouts = sum(t.playouts for t in searched) / max(len(searched), 1)
        cpu = sorted(t.cpu_seconds for t in searched) or [0.0]
        return [
            f"  strong decisions {len(thoughts)}: {1000 * p50:.0f} ms median, {1000 * p95:.0f} ms p95, "
            f"{1000 * seconds[-1]:.0f} ms slowest; {len(searched)} searched, {playouts:.1f} playouts each "
            f"({1000 * cpu[len(cpu) // 2]:.0f} ms CPU median, {1000 * cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))]:.0f} ms p95); "
            f"{sum(t.cut_by_clock for t in thoughts)} cut by the clock, "
            f"{sum(t.fallback is not None for t in thoughts)} fell back to random"
        ]

    def report(self) -> str:
        games = len(self.records)
        lines = [
            f"{self.game}, {self.players} players, {games} games: "
            f"{sum(r.actions for r in self.records) / max(games, 1):.0f} actions a game, "
            f"{games / self.seconds:.1f} games/s ({games / max(self.cpu_seconds, 1e-9):.1f} a CPU-second), "
            f"{len(self.failures)} failed checks",
            f"fair share {100 / self.players:.1f}%",
        ]
        lines += [f"  {kind:<7} {rate}" for kind, rate in self.by_kind().items()]
        lines += [f"  seat {seat + 1}  {rate}" for seat, rate in self.by_seat().items()]
        if self.game in TURN_MEASURES:
            turns = [marked for record in self.records for marked in record.marked_turns]
            lines.append(
                f"{TURN_MEASURES[self.game][0]}: {str(Rate.of([float(m) for m in turns])).replace('seats', 'turns')}"
            )
        lines += self.thinking()
        lines += [f"  FAILED {problem}" for problem in self.failures[:20]]
        return "\n".join(lines)


def simulate(
    game: str,
    players: int,
    games: int,
    bots: Sequence[str],
    seed: int = 0,
    budget: Budget | None = None,
    check: bool = True,
    search: Search = strong_action,
) -> Summary:
    engine = ENGINES[game]
    budget = budget or Budget()
    started, cpu_started = time.perf_counter(), time.process_time()
    records = [
        play_game(engine, players, seat_kinds(bots, players, g), seed * 1_000_003 + g, budget, check, search)
        for g in range(games)
    ]
    return Summary(game, players, records, time.perf_counter() - started, time.process_time() - cpu_started)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.simulate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=sorted(ENGINES))
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bots", default="normal,easy", help="comma-separated: " + ", ".join(KINDS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--iterations",
        type=int,
        default=Budget.iterations,
        help="at most this many playouts a strong decision",
    )
    parser.add_argument("--think-seconds", type=float, default=Budget.seconds, help="a decision's budget")
    parser.add_argument("--no-checks", action="store_true", help="play only (for speed figures)")
    args = parser.parse_args(argv)
    bots = [kind.strip() for kind in args.bots.split(",") if kind.strip()]
    unknown = [kind for kind in bots if kind not in KINDS]
    info = ENGINES[args.game].info
    if unknown or not bots:
        parser.error(f"unknown bot kind(s) {unknown}: choose from {', '.join(KINDS)}")
    if not info.min_players <= args.players <= info.max_players:
        parser.error(f"{info.name_en} is for {info.min_players} to {info.max_players} players")
    summary = simulate(
        args.game,
        args.players,
        args.games,
        bots,
        args.seed,
        Budget(seconds=args.think_seconds, iterations=args.iterations),
        not args.no_checks,
    )
    print(summary.report())
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
