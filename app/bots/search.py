"""The strong bot: a determinized Monte-Carlo search over one seat's view, the same for every game.

For a decision it lists a few candidate actions (the normal bot's own choice first, then the other
choices of the legal templates, and bids scaled around the normal bot's amount), and plays each out
again and again: a *world* is drawn that the seat cannot tell from the table it sees (the game's
``determinize`` module builds a state from the seat's view alone, drawing every hidden card, token,
amount and deck order from what the view does not show), the candidate is played in it, and the
normal bot plays every seat to the end. A playout scores the seat's win share plus a little for each
rival it outscores. Candidates take turns, each round in the same world with the same draws (common
random numbers: their difference is then mostly their own), so a search cut short still compares
them fairly. The normal bot's move stands unless another beats it clearly over the rounds
(``clearly_better``): a few noisy playouts that merely favour a move would make the search play at
random among its candidates, worse than the normal bot, and in a simultaneous choice (Basari's action
cards) trade the normal bot's mixed odds for a predictable card.

A game tells the search what only it knows in its ``determinize`` module's ``SEARCH``
(``base.SearchHooks``, found by ``registry.search_hooks_of``): that the best mean is played instead
(Q.E.: there the caution costs more than the noise), where playouts stop and what the position is
worth there (Basari: at the scoring of the round, points ahead of the best rival), its own candidates
(Basari's offers) and a choice drawn by the searched values (Basari's action card).

A strong decision's budget is counted in work, not in the host's time: the game's ``SEARCH.playouts``
(within ``Budget.iterations``), the count its strength was measured at, so a seed gives the same move
on any machine, busy or idle. Two clocks only cap it (``Clocks``): ``THINK_SHARE`` of
``Budget.seconds`` in the searching thread's CPU time (a busy host does not shrink it; it stops a
decision whose playouts are long, but not before ``FLOOR_ROUNDS`` rounds), and ``LATENCY_SHARE`` of it
on the wall clock from when the move was asked, the table's patience, which stops everything (below
``app.bots.GRACE``, where the table plays at random instead). On a busy host the wall-clock budget
this replaces left the search a playout or two, and it played like the normal bot. The engines stay
pure: the clocks are read here only.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.games.base import (
    Action,
    Budget,
    Engine,
    IllegalAction,
    Result,
    SearchHooks,
    State,
    View,
    random_bot_action,
    sample_domain,
    view_without_log,
)
from app.games.registry import determinizer_of, search_hooks_of

THINK_SHARE = 0.7  # of the budget's seconds, in the searching thread's CPU time
LATENCY_SHARE = 1.0  # of the budget's seconds on the wall clock: the table's patience (app.bots.GRACE)
# Rounds of playouts (every candidate once a round) the CPU allowance may not cut short, so that a
# decision with long playouts still compares its candidates over a few worlds (the latency cap can).
FLOOR_ROUNDS = 3
MAX_CANDIDATES = 8
BID_SCALES = (0.0, 0.5, 0.75, 1.25, 1.6)  # bids tried around the normal bot's amount
RIVAL_WEIGHT = 0.2  # a playout's score: win share + this much for each rival outscored, shared out
# By how many standard errors a move's mean gain over the normal bot's must clear zero, by the
# rounds it was compared in less one: Student's t, one-sided 90% (so few rounds must show more).
CLEARLY = {1: 3.08, 2: 1.89, 3: 1.64, 4: 1.53, 5: 1.48, 6: 1.44}
CLEARLY_AFTER = 1.4
PLAYOUT_LIMIT = 3000  # actions: a playout that long is stuck (none is, in the simulator's games)

Search = Callable[..., Action]  # strong_action, or the same in another process (app/bots/apart.py)


@dataclass(frozen=True)
class Clocks:
    """What a search reads the time from: ``wall`` for the table's latency, ``cpu`` for the work done
    (the searching thread's CPU time: what the search gets of a core, however busy the host). The tests
    hand in clocks of their own."""

    wall: Callable[[], float] = time.monotonic
    cpu: Callable[[], float] = time.thread_time


HOST_CLOCKS = Clocks()


@dataclass
class Thought:
    """What a search did: for the simulator's figures and the tests."""

    playouts: int = 0
    candidates: int = 0
    cut_by_clock: bool = False
    seconds: float = 0.0  # the whole decision's, as safe_decision measured it
    cpu_seconds: float = 0.0  # the searching thread's CPU time for the playouts
    fallback: str | None = None  # why safe_decision played a random move instead, if it did


@dataclass(frozen=True)
class Floor:
    """Rounds of playouts (each candidate played this many times) that neither the soft deadline nor
    the CPU allowance may cut, unless ``deadline`` (the wall clock: ``time.monotonic``), the table's
    own limit, passes first: a search cut after a playout or two plays no better than the normal bot."""

    rounds: int
    deadline: float


@dataclass
class Candidate:
    action: Action
    scores: dict[int, float] = field(default_factory=dict)  # a playout's score by its round (world)
    refused: bool = False
    # the seat's share of the win in each playout played to the game's end, by its round: what a
    # hint or a review tells a player (the scores may stop at a game's horizon)
    wins: dict[int, float] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return sum(self.scores.values()) / len(self.scores) if self.scores else float("-inf")

    @property
    def win_share(self) -> float | None:
        return sum(self.wins.values()) / len(self.wins) if self.wins else None


def strong_action(
    engine: Engine,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    rng: random.Random,
    budget: Budget,
    thought: Thought | None = None,
    deadline: float | None = None,
    clocks: Clocks = HOST_CLOCKS,
) -> Action:
    """The normal bot's move, or a candidate that clearly beats it (or the best on average, if the
    game's ``SEARCH`` says so) in playouts in worlds drawn from ``view`` (the seat's, and all the
    search is given of the table): the game's ``SEARCH.playouts`` of them (at most
    ``budget.iterations``), cut short only by ``THINK_SHARE`` of ``budget.seconds`` of CPU time (after
    ``FLOOR_ROUNDS`` rounds) or by the latency cap, ``deadline`` on the wall clock (by default
    ``LATENCY_SHARE`` of the budget from now: a decision that waited for its turn has less)."""
    thought = thought if thought is not None else Thought()
    if deadline is None:
        deadline = clocks.wall() + LATENCY_SHARE * budget.seconds
    hooks = search_hooks_of(engine.info.id)
    playouts = Budget(seconds=budget.seconds, iterations=min(budget.iterations, hooks.playouts))
    floor = Floor(FLOOR_ROUNDS, deadline)
    candidates = weigh(
        engine,
        view,
        seat,
        legal,
        rng,
        playouts,
        deadline,
        hooks,
        thought,
        floor,
        cpu_seconds=THINK_SHARE * budget.seconds,
        clocks=clocks,
    )
    temperature = None if hooks.choice_temperature is None else hooks.choice_temperature(view)
    if temperature is not None:
        return drawn_by_mean(candidates, temperature, rng).action
    choose = best_mean if hooks.best_mean else clearly_better
    return choose(candidates).action


def weigh(
    engine: Engine,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    rng: random.Random,
    budget: Budget,
    deadline: float,
    hooks: SearchHooks,
    thought: Thought | None = None,
    floor: Floor | None = None,
    most: int = MAX_CANDIDATES,
    first: Action | None = None,
    cpu_seconds: float = math.inf,
    clocks: Clocks = HOST_CLOCKS,
) -> list[Candidate]:
    """The candidates for this decision (the normal bot's move first, at most ``most``), each played
    out in the same worlds drawn from ``view``, round after round, until ``budget.iterations``
    playouts, ``deadline`` (``clocks.wall``) or ``cpu_seconds`` of this thread's CPU time
    (``clocks.cpu``); neither can stop the first rounds that ``floor`` asks for before its own hard
    deadline; ``first``, if given, is weighed first (a review's move played). A search, a hint and a
    review all weigh their options here."""
    thought = thought if thought is not None else Thought()
    started = clocks.cpu()
    normal = engine.decide(view, seat, legal, rng, "normal", budget)
    determinize = determinizer_of(engine.info.id)
    own = None if hooks.candidates is None else hooks.candidates(view, seat)
    actions = candidate_actions(normal, legal, rng, own)
    if first is not None:
        actions = [first, *(action for action in actions if action != first)]
    candidates = [Candidate(action) for action in actions[:most]]

    def worlds(draws: random.Random) -> State:
        return determinize(view, seat, draws)

    thought.candidates = len(candidates)
    if len(candidates) > 1:
        turns = itertools.islice(itertools.cycle(candidates), budget.iterations)
        for number, candidate in enumerate(turns):
            round_number = number // len(candidates)
            if number % len(candidates) == 0:
                world_seed = rng.getrandbits(64)  # each round plays every candidate in the same world
            floored = floor is not None and round_number < floor.rounds
            until = floor.deadline if floor is not None and floored else deadline
            spent = not floored and clocks.cpu() - started > cpu_seconds
            if spent or clocks.wall() > until:
                thought.cut_by_clock = True
                break
            if candidate.refused:
                continue
            if not _try(engine, worlds, seat, candidate, round_number, world_seed, until, hooks, clocks.wall):
                thought.cut_by_clock = True
                break
            thought.playouts += 1
    thought.cpu_seconds = clocks.cpu() - started
    return candidates


def drawn_by_mean(candidates: list[Candidate], temperature: float, rng: random.Random) -> Candidate:
    """A candidate drawn with odds in proportion to exp(mean / ``temperature``) over those played (the
    first, the normal bot's move, if none was)."""
    tried = [c for c in candidates if c.scores and not c.refused]
    if not tried:
        return candidates[0]
    top = max(c.mean for c in tried)
    return rng.choices(tried, weights=[math.exp((c.mean - top) / temperature) for c in tried])[0]


def best_mean(candidates: list[Candidate]) -> Candidate:
    """The candidate whose playouts scored best on average; the first (the normal bot's move) on a
    tie or when none was played."""
    tried = [c for c in candidates if c.scores and not c.refused]
    return max(tried, key=lambda c: c.mean) if tried else candidates[0]


def clearly_better(candidates: list[Candidate]) -> Candidate:
    """The first candidate (the normal bot's move), unless another's mean gain over it, round by round
    (at least two rounds), clears zero by ``CLEARLY`` standard errors: then the one with the largest
    gain. If the normal bot's move was refused, the best mean."""
    normal, others = candidates[0], candidates[1:]
    if normal.refused or not normal.scores:
        tried = [c for c in others if c.scores]
        return max(tried, key=lambda c: c.mean) if tried else normal
    best, best_gain = normal, 0.0
    for other in others:
        gains = [other.scores[r] - normal.scores[r] for r in other.scores if r in normal.scores]
        if len(gains) < 2:
            continue
        mean = statistics.fmean(gains)
        error = statistics.stdev(gains) / math.sqrt(len(gains))
        if mean > best_gain and mean >= CLEARLY.get(len(gains) - 1, CLEARLY_AFTER) * error:
            best, best_gain = other, mean
    return best


def _try(
    engine: Engine,
    worlds: Callable[[random.Random], State],
    seat: int,
    candidate: Candidate,
    round_number: int,
    world_seed: int,
    deadline: float,
    hooks: SearchHooks,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """One playout of the candidate; False if ``clock`` passed ``deadline`` during it (it then counts
    for nothing).
    The same seed gives the same world and the same playout draws, so that candidates of one round
    differ only by what they do (far less noise between them than independent playouts have)."""
    rng = random.Random(world_seed)
    start = world = worlds(rng)
    try:
        world = engine.apply(world, seat, candidate.action)
    except IllegalAction:  # a template's constraint refused it (in this world, so in the real one)
        candidate.refused = True
        return True
    over, value = hooks.playout_over, hooks.position_value
    end = playout(engine, world, rng, deadline, None if over is None else lambda s: over(start, s), clock)
    if end is None:
        return False
    result = engine.result(end)
    if value is None:
        candidate.scores[round_number] = 0.0 if result is None else outcome_value(result, seat)
    else:
        candidate.scores[round_number] = value(end, seat)
    if result is not None:
        candidate.wins[round_number] = 1 / len(result.winners) if seat in result.winners else 0.0
    return True


def playout(
    engine: Engine,
    state: State,
    rng: random.Random,
    deadline: float = math.inf,
    over: Callable[[State], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> State | None:
    """The game played to its end (or until ``over`` says so) by the normal bot in every seat (a
    refused or failing move is replaced by a random legal one, as at a real table); None if
    ``clock`` passes ``deadline`` first."""
    budget = Budget()
    for _ in range(PLAYOUT_LIMIT):
        if state["finished"] or (over is not None and over(state)):
            break
        if clock() > deadline:
            return None
        actor = engine.to_act(state)[0]
        legal = engine.legal_actions(state, actor)
        try:
            action = engine.decide(
                view_without_log(engine, state, actor), actor, legal, rng, "normal", budget
            )
            state = engine.apply(state, actor, action)
        except Exception:  # a bot's bug or a refused move costs the move, as in safe_decision
            state = engine.apply(state, actor, random_bot_action(engine, state, actor, rng))
    return state


def outcome_value(result: Result, seat: int) -> float:
    """The seat's win share, plus ``RIVAL_WEIGHT`` shared out over the rivals it outscores (half for
    a tied score): a lost game that was close counts for a little more than a rout."""
    won = 1 / len(result.winners) if seat in result.winners else 0.0
    mine = result.scores[seat] if seat < len(result.scores) else None
    rivals = [score for other, score in enumerate(result.scores) if other != seat]
    if mine is None or not rivals or any(score is None for score in rivals):
        return won
    beaten = sum(
        1.0 if score < mine else 0.5 if score == mine else 0.0 for score in rivals if score is not None
    )
    return won + RIVAL_WEIGHT * beaten / len(rivals)


def candidate_actions(
    normal: Action, legal: list[dict[str, Any]], rng: random.Random, own: list[Action] | None = None
) -> list[Action]:
    """The normal bot's action, then variants of it (each other option, bids scaled around its
    amount), then one of every other template, at most ``MAX_CANDIDATES``, no two alike; or, if the
    game proposes its own moves for this decision (``own``), the normal bot's, those, and one of every
    other template (so an empty ``own`` still weighs the normal bot's move against the other kinds)."""
    found: list[Action] = [normal]
    if own is not None:
        found += own
    for template in legal if own is None else []:
        if template["type"] == normal.get("type"):
            found += _variants(normal, template)
    for template in legal:
        if template["type"] != normal.get("type"):
            found.append(_concrete(template, rng))
    unique: list[Action] = []
    for action in found:
        if action not in unique:
            unique.append(action)
    return unique[:MAX_CANDIDATES]


def _variants(normal: Action, template: dict[str, Any]) -> list[Action]:
    variants = []
    for name, domain in template.get("params", {}).items():
        if domain["kind"] == "choice":
            variants += [{**normal, name: option} for option in domain["options"]]
        elif domain["kind"] == "int" and isinstance(normal.get(name), int):
            variants += [{**normal, name: amount} for amount in _amounts(normal[name], domain)]
    return variants


def _amounts(around: int, domain: dict[str, Any]) -> list[int]:
    """Amounts scaled from ``around`` that the domain allows (its min, max and exclusions)."""
    low, high, excluded = domain["min"], domain.get("max"), set(domain.get("exclude", []))
    amounts = []
    for scale in BID_SCALES:
        amount = max(low, round(around * scale))
        if high is not None:
            amount = min(high, amount)
        while amount in excluded:
            amount += 1
        if high is None or amount <= high:
            amounts.append(amount)
    return amounts


def _concrete(template: dict[str, Any], rng: random.Random) -> Action:
    """One action of a template the normal bot did not choose (its domains' first values, or a
    sample for a multiset)."""
    action: Action = {"type": template["type"]}
    for name, domain in template.get("params", {}).items():
        if domain["kind"] == "choice":
            action[name] = domain["options"][0]
        elif domain["kind"] == "int":
            amount = domain["min"]
            while amount in domain.get("exclude", []):
                amount += 1
            action[name] = amount
        else:
            action[name] = sample_domain(domain, rng)
    return action
