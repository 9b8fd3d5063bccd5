"""What publishing a move costs in process, per game: the regions rendered and the time to make every
viewer's page (each seat and the spectators, in one language), as ``Fanout`` does after a move.

Run: ``.venv/bin/python -m benchmarks.bench_publish [--games qe,basari] [--rounds 3] [--seed S]``, or
with ``--memory`` for the live state a room holds (tracemalloc). It prints figures; it asserts nothing. Bots play whole games at each game's largest player count through
``RoomService`` on a temporary SQLite file; after every move a tab of each seat and one of the
spectators are brought up to date from the committed snapshot with one ``RoomLive`` (its region
cache, public regions and viewers), exactly what a publish renders and sends, without sockets. Time is CPU time of this process (``time.process_time``),
so other load on the machine matters less than for wall time.

On a shared machine even CPU time varies by a third from run to run. For a change's effect, count
instructions instead, which do not vary: with ``--seed`` the games are the same on every run, and
``--no-publish`` plays them without making any page, so under valgrind
``callgrind(--seed S) - callgrind(--seed S --no-publish)`` is what publishing those moves cost
(BENCHMARKS.md, "Counting instructions").
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import cast

from fastapi import WebSocket
from sqlmodel import select

from app.db import Database
from app.games.registry import ENGINES
from app.migrate import upgrade_to_head
from app.models import Room
from app.rooms import RoomService
from app.web.live import RoomLive
from app.web.live.fanout import Tab


def bench_game(
    service: RoomService, game_id: str, seed: int | None = None, publish: bool = True, limit: int = 0
) -> tuple[int, float, RoomLive]:
    """(moves, CPU seconds spent bringing a tab of each seat and one of the spectators up to date
    after each move, the room's live state: its cache counts renders per region); ``seed``: the
    room's (else a random one); without ``publish`` no page is made; ``limit``: moves at most (0:
    the whole game)."""
    players = ENGINES[game_id].info.max_players
    code, _, _ = service.seats.create_room(game_id, players, {}, None)
    if seed is not None:
        with service.writer.db.write() as session:
            row = session.exec(select(Room).where(Room.code == code)).one()
            row.seed = str(seed)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive()
    seated = frozenset(range(players))  # every seat has a tab open
    # tabs without sockets: what each would be sent is made (and thrown away) as a publish makes it
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in [None, *range(players)]]
    moves, spent = 0, 0.0
    while (not limit or moves < limit) and service.turns.bot_step(code):
        snapshot = service.load(code)
        moves += 1
        if not publish:
            continue
        started = time.process_time()
        room.plan(snapshot, tabs, seated, frozenset(), everyone=True)  # as Fanout's publish does
        spent += time.process_time() - started
    return moves, spent, room


def live_state(service: RoomService, game_id: str, rooms: int, moves: int) -> float:
    """KB of memory a room's live state holds (its snapshot cache, region cache, fragments, viewers)
    after ``moves`` moves, over ``rooms`` rooms played after a first one (which warms templates and
    per-process tables), every room kept alive as open rooms are."""
    kept = [bench_game(service, game_id, limit=moves)[2]]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept += [bench_game(service, game_id, limit=moves)[2] for _ in range(rooms)]
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / rooms / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(sorted(ENGINES)))
    parser.add_argument("--rounds", type=int, default=3, help="whole games per game id")
    parser.add_argument("--seed", type=int, help="the first game's seed, then the next ones (else random)")
    parser.add_argument("--no-publish", action="store_true", help="play the games without making pages")
    parser.add_argument(
        "--memory", action="store_true", help="instead: live state a room, 30 rooms kept after 15 moves each"
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade_to_head(url)
        db = Database(url)
        service = RoomService(db)
        for game_id in options.games.split(","):
            if options.memory:
                kb = live_state(service, game_id, rooms=30, moves=15)
                print(f"{game_id:16} {ENGINES[game_id].info.max_players}p  live state {kb:.0f} KB a room")
                continue
            moves, spent, renders = 0, 0.0, Counter[str]()
            for number in range(options.rounds):
                seed = None if options.seed is None else options.seed + number
                game_moves, game_spent, room = bench_game(
                    service, game_id, seed, publish=not options.no_publish
                )
                moves, spent = moves + game_moves, spent + game_spent
                renders.update(room.regions.cache.renders_of)
            per_region = ", ".join(
                f"{region} {count / moves:.2f}" for region, count in sorted(renders.items())
            )
            public = ENGINES[game_id].info.public_regions
            print(
                f"{game_id:16} {ENGINES[game_id].info.max_players}p  moves {moves:4}  "
                f"pages per move {spent * 1000 / moves:5.2f} ms CPU  "
                f"renders per move {sum(renders.values()) / moves:5.2f} ({per_region})  "
                f"public: {', '.join(public) or 'none'}"
            )
        db.dispose()


if __name__ == "__main__":
    main()
