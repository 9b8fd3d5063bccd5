"""How long a hint takes (issue 46): a seat of a table that allows hints asks at its decisions.

Run: ``.venv/bin/python -m benchmarks.bench_hints [--games basari,qe,tulip-bubble,tulipmania-1637]
[--repeats 3] [--mid 6] [--read 3]``. It prints figures and asserts nothing; BENCHMARKS.md says what
they were. It starts the server as a user does (``python -m app``, one process, a fresh temporary
SQLite database: ``benchmarks.bench_live.Server``) and for each game and repeat opens a room of four
(Ann and three normal bots, hints allowed), opens Ann's page (which starts the hints' processes) and,
``--read`` seconds later (a person reading the coach), asks for a hint at her first decision; then
plays the hint's best move at each of her decisions and asks again at her ``--mid``-th. Each figure
is the hint request's wall time, as the client sees it, and the playouts behind each option shown.
The machine's load average is printed with them: run it while the machine is busy to see a busy
machine's figures. Loopback only; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_live import HOST, Server, load_average

GAMES = ("basari", "qe", "tulip-bubble", "tulipmania-1637")
TURN_WAIT = 60.0  # seconds for the bots to come round to Ann


class Api:
    def __init__(self, port: int) -> None:
        self.port = port

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, cookie: str | None = None
    ) -> tuple[int, Any]:
        connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if cookie:
            headers["Cookie"] = cookie
        try:
            connection.request(method, path, None if body is None else json.dumps(body), headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        if response.getheader("content-type", "").startswith("application/json"):
            return response.status, json.loads(data)
        return response.status, data.decode(errors="replace")


def _my_turn(api: Api, code: str, token: str) -> dict[str, Any] | None:
    """The room as Ann sees it once the game waits for her (None: it ended first)."""
    deadline = time.monotonic() + TURN_WAIT
    while time.monotonic() < deadline:
        _, room = api.call("GET", f"/api/rooms/{code}", token=token)
        if room["status"] == "finished":
            return None
        if 0 in room["to_act"] and room["legal"]:
            return dict(room)
        time.sleep(0.05)
    raise RuntimeError(f"the bots of room {code} did not come round to Ann")


def _hint(api: Api, code: str, token: str) -> tuple[float, list[int]]:
    started = time.monotonic()
    status, answer = api.call("GET", f"/api/rooms/{code}/hint", token=token)
    seconds = time.monotonic() - started
    if status != 200:
        raise RuntimeError(f"hint: {status} {answer}")
    return seconds, [option["playouts"] for option in answer["options"]]


def one_game(api: Api, game: str, mid: int, read: float) -> dict[str, Any]:
    status, created = api.call(
        "POST", "/api/rooms", {"game": game, "players": 4, "name": "Ann", "hints": True}
    )
    assert status == 201, created
    code, token = created["code"], created["token"]
    api.call("POST", f"/api/rooms/{code}/bots", {"fill": True, "strength": "normal"}, token=token)
    api.call("POST", f"/api/rooms/{code}/start", token=token)
    api.call("GET", f"/r/{code}", cookie=f"bourse_seat_{code}={token}")  # Ann's page
    time.sleep(read)
    figures: dict[str, Any] = {}
    for decision in range(1, mid + 1):
        room = _my_turn(api, code, token)
        if room is None:
            break
        seconds, playouts = _hint(api, code, token)
        if decision == 1:
            figures["first"] = (seconds, playouts)
        if decision == mid:
            figures["mid"] = (seconds, playouts)
        _, again = api.call("GET", f"/api/rooms/{code}/hint", token=token)  # answered from the cache
        action = again["options"][0]["action"]
        api.call(
            "POST", f"/api/rooms/{code}/actions", {"version": room["version"], "action": action}, token=token
        )
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mid", type=int, default=6, help="Ann's decision asked again mid-game (default 6)")
    parser.add_argument("--read", type=float, default=3.0, help="seconds from the page to the first hint")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_hints_") as folder:
        server = Server("bourse", Path(folder))
        try:
            api = Api(server.port)
            print(f"load average at the start: {load_average()}")
            for game in options.games.split(","):
                runs = [one_game(api, game, options.mid, options.read) for _ in range(options.repeats)]
                for moment in ("first", "mid"):
                    seen = [run[moment] for run in runs if moment in run]
                    if not seen:
                        continue
                    times = [seconds for seconds, _ in seen]
                    each = ", ".join(f"{seconds:.2f} s {counts}" for seconds, counts in seen)
                    print(
                        f"{game:16} {moment:5} median {statistics.median(times):.2f} s, max {max(times):.2f} s "
                        f"(each hint and the playouts behind its options: {each}); load average {load_average()}",
                        flush=True,
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
