"""What a move sends to the tabs, with and without permessage-deflate, per game.

Run: ``.venv/bin/python -m benchmarks.bench_bytes [--games qe,basari] [--seed 7]``. It prints figures;
it asserts nothing. Bots play a whole game at the game's largest player count through ``RoomService``
on a temporary SQLite file; after every move a tab of each seat and one of the spectators are brought
up to date with one ``RoomLive``, as a publish does, and each tab's messages are also compressed as
permessage-deflate would on its socket (RFC 7692, one compressor a socket kept for its life, each
message flushed and its 4-byte tail dropped), with the default window (15 bits) and with 12 bits, and
with no context kept between messages (``server_no_context_takeover``: a compressor a message, so a
socket keeps none). CPU is this process's compressing time per move with the 15-bit window (every
tab's).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import zlib
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

WINDOWS = (15, 12)


def bench_game(service: RoomService, game_id: str, seed: int) -> dict[str, float]:
    players = ENGINES[game_id].info.max_players
    code, _, _ = service.seats.create_room(game_id, players, {}, None)
    with service.writer.db.write() as session:  # the same game on every run
        session.exec(select(Room).where(Room.code == code)).one().seed = str(seed)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive()
    seated = frozenset(range(players))
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in [None, *range(players)]]
    compressors = {(tab, bits): zlib.compressobj(wbits=-bits) for tab in tabs for bits in WINDOWS}
    raw = moves = alone = 0
    deflated = dict.fromkeys(WINDOWS, 0)
    spent = 0.0
    first = True
    while True:
        for tab, message in room.plan(service.load(code), tabs, seated, frozenset(), everyone=True):
            data = message.encode()
            started = time.process_time()
            sizes = {
                bits: len(
                    compressors[(tab, bits)].compress(data)
                    + compressors[(tab, bits)].flush(zlib.Z_SYNC_FLUSH)
                )
                - 4
                for bits in WINDOWS
            }
            spent += time.process_time() - started
            fresh = zlib.compressobj(wbits=-15)
            by_itself = len(fresh.compress(data) + fresh.flush(zlib.Z_SYNC_FLUSH)) - 4
            if not first:  # each tab's first message is its whole page
                raw += len(data)
                alone += by_itself
                for bits, size in sizes.items():
                    deflated[bits] += size
        first = False
        if not service.turns.bot_step(code):
            break
        moves += 1
    return {
        "moves": moves,
        "raw": raw / moves,
        **{f"deflate{bits}": deflated[bits] / moves for bits in WINDOWS},
        "alone": alone / moves,
        "cpu_ms": spent * 1000 / (moves * len(WINDOWS)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_bytes", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", default=",".join(sorted(ENGINES)), help="game ids, comma-separated")
    parser.add_argument("--seed", type=int, default=7, help="the rooms' seed (the same games every run)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade_to_head(url)
        service = RoomService(Database(url))
        print(
            "| game | moves | KB a move to the tabs | deflate 15 bits | deflate 12 bits | no context kept | deflating, ms a move |"
        )
        print("|---|---|---|---|---|---|---|")
        for game_id in options.games.split(","):
            figures = bench_game(service, game_id, options.seed)
            print(
                f"| {game_id} | {figures['moves']:.0f} | {figures['raw'] / 1024:.1f} "
                f"| {figures['deflate15'] / 1024:.1f} ({figures['deflate15'] / figures['raw']:.0%}) "
                f"| {figures['deflate12'] / 1024:.1f} ({figures['deflate12'] / figures['raw']:.0%}) "
                f"| {figures['alone'] / 1024:.1f} ({figures['alone'] / figures['raw']:.0%}) "
                f"| {figures['cpu_ms']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
