"""Figures for the speed targets: how fast a room applies actions and renders a seat's page.

Run: ``.venv/bin/python -m benchmarks.bench_rooms [--memory]``. It prints figures; it asserts nothing.
Each game is played by bots through ``RoomService`` on a temporary SQLite file (every action is a
real committed transaction), then one seat's full table is rendered repeatedly.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from app.db import Database
from app.games.registry import ENGINES
from app.migrate import upgrade_to_head
from app.rooms import RoomService
from app.web.render import render_seat_html


def bench_game(service: RoomService, game_id: str, players: int) -> None:
    code, _, _ = service.seats.create_room(game_id, players, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    durations = []
    while True:
        started = time.perf_counter()
        if not service.turns.bot_step(code):
            break
        durations.append(time.perf_counter() - started)
    snapshot = service.load(code)
    assert snapshot.state is not None
    engine = snapshot.engine
    renders = []
    for _ in range(20):
        started = time.perf_counter()
        render_seat_html(engine, snapshot.state, 0)
        renders.append(time.perf_counter() - started)
    replay_started = time.perf_counter()
    service.records.replay(code)
    replay = time.perf_counter() - replay_started
    print(
        f"{game_id:16} {players}p  actions {len(durations):4}  "
        f"commit median {statistics.median(durations) * 1000:6.1f} ms  p95 "
        f"{sorted(durations)[int(len(durations) * 0.95)] * 1000:6.1f} ms  "
        f"render {statistics.median(renders) * 1000:6.1f} ms  replay {replay * 1000:7.1f} ms  "
        f"state {len(str(snapshot.state)) / 1024:6.1f} KiB"
    )


def main() -> None:
    if "--memory" in sys.argv:  # tracing slows everything down several times
        tracemalloc.start()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade_to_head(url)
        db = Database(url)
        service = RoomService(db)
        for game_id, engine in sorted(ENGINES.items()):
            for players in (engine.info.min_players, engine.info.max_players):
                bench_game(service, game_id, players)
        db.dispose()
    if tracemalloc.is_tracing():
        _, peak = tracemalloc.get_traced_memory()
        print(f"peak traced memory {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
