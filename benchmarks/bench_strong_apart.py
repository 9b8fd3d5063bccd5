"""How much a strong bot's thinking delays the server's event loop (every other room's moves and pushes).

Run: ``.venv/bin/python -m benchmarks.bench_strong_apart [--decisions N]``. It prints figures; it
asserts nothing. An event loop ticks every ``TICK`` seconds and records how late each tick fires while
strong Q.E. decisions (1 s budget) are thought: not at all (the floor), in a thread of this process
(as ``safe_decision`` alone would), and in the niced worker process the server uses
(``app/bots/apart.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from app.bots import Thought
from app.bots.apart import Thinkers
from app.bots.search import strong_action
from app.games.base import Action, Budget, Engine, View, view_without_log
from app.games.registry import ENGINES

TICK = 0.005
BUDGET = Budget(seconds=1.0, iterations=10_000)  # the clock decides, as on the server


def decision_inputs(seed: int) -> tuple[Engine, View, int, list[dict[str, Any]]]:
    engine = ENGINES["qe"]
    state = engine.setup(4, {}, seed)
    rng = random.Random(seed)
    for _ in range(12):  # a position a few auctions in
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng, "normal"))
    seat = engine.to_act(state)[0]
    view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
    return engine, view, seat, legal


async def lags_while(think: Callable[[], Action] | None, decisions: int) -> list[float]:
    """Lateness of every tick while ``decisions`` decisions are thought one after another (or for as
    long, doing nothing)."""
    lags: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            expected = time.perf_counter() + TICK
            await asyncio.sleep(TICK)
            lags.append(time.perf_counter() - expected)

    ticking = asyncio.create_task(ticker())
    for _ in range(decisions):
        if think is None:
            await asyncio.sleep(BUDGET.seconds)
        else:
            await asyncio.to_thread(think)
    done.set()
    await ticking
    return lags


def report(name: str, lags: list[float]) -> None:
    ordered = sorted(lags)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    print(
        f"{name:<28} ticks {len(lags):>5}  lateness median {1000 * statistics.median(lags):6.2f} ms, "
        f"p99 {1000 * p99:6.2f} ms, max {1000 * ordered[-1]:6.2f} ms"
    )


async def main(decisions: int) -> None:
    engine, view, seat, legal = decision_inputs(3)
    thinkers = Thinkers()

    def in_thread() -> Action:
        return strong_action(engine, view, seat, legal, random.Random(1), BUDGET, Thought())

    def in_worker() -> Action:
        return thinkers.search(engine, view, seat, legal, random.Random(1), BUDGET, Thought())

    in_worker()  # starts the worker
    while not thinkers.ready:
        await asyncio.sleep(0.05)
    try:
        report("no strong bot thinking", await lags_while(None, decisions))
        report("strong bot in a thread", await lags_while(in_thread, decisions))
        report("strong bot in the worker", await lags_while(in_worker, decisions))
    finally:
        thinkers.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_strong_apart")
    parser.add_argument("--decisions", type=int, default=5)
    asyncio.run(main(parser.parse_args().decisions))
