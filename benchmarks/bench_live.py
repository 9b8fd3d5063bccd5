"""The live-path load benchmark (issue 8): rooms full of live tabs, one action per room every 5 s.

Run: ``.venv/bin/python -m benchmarks.bench_live [--rooms 100,500,1000,2000,3000] [--seconds 30]
[--mode form|api|socket] [--flood 1000] [--game qe] [--processes 2]``. It prints figures and asserts nothing;
see BENCHMARKS.md for what each figure means.

For each room count it starts the server as a user does (``python -m app``, one process, a fresh
temporary SQLite database), sets up the rooms over the JSON API (not measured), opens one WebSocket
per seat as a browser tab does (seat cookie, ``?v=``, Origin), then for ``--seconds`` every room makes
one real game action every ``--interval`` seconds (random phase per room), by the htmx form post
(``--mode form``), the JSON API (``--mode api``) or the seat's own WebSocket as the room page sends it while its
line is open (``--mode socket``, ``app/web/moves.py``). Latency is the time from just before the request
until every tab of the room has the new version. The floor (``benchmarks/floor_server.py``) is driven
by the same client in the same run. ``--flood N`` adds the spectator flood. Loopback only; every wait
is bounded; the servers are killed at the end, also on errors and Ctrl-C.

``--processes 2`` (issue 13) runs two app processes on one PostgreSQL and one Redis (a fresh database
on the server ``--postgres`` names, default ``$BOURSE_TEST_POSTGRES_URL``; ``--redis``, default
``$BOURSE_TEST_REDIS_URL``; ``scripts/services start`` starts both): the actions go to the first,
and each room's tabs alternate between the two, so every change reaches half its tabs through Redis.
``--processes 1 --postgres URL`` is the same single process on PostgreSQL, to compare like with like.
Server CPU and memory are the app processes' sums (PostgreSQL's and Redis's own are not counted).

``--hints N`` (issue 46) measures what hints and reviews cost the other rooms: each run is made
twice in turn, ``--rounds`` times, with ``N`` more rooms (``Learners``) of a seat and three normal
bots at a table that allows hints, played alike in both: the seat takes ``LEARNER_PAUSE`` or its
hint's time at each of its decisions. In one run it plays a legal move of its own and nothing more;
in the other it asks for a hint and plays the hint's best option, while the server reviews finished
games (their seat's review asked for as the window opens). The measured rooms' figures are
compared (the learners' rooms are not among them), and the hints' and reviews' worker processes'
CPU is given apart from the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import datetime
import gc
import http.client
import json
import multiprocessing
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import uvloop

from app.games.base import random_legal_action
from benchmarks.live_client import (
    SEAT_COOKIE_PREFIX,
    Bucket,
    Client,
    Http,
    HttpError,
    Tab,
    handshake,
    merge_buckets,
    percentile,
    raise_open_files_limit,
    summarize,
)
from tests.scale.services import fresh_database  # the tests' own: a new database, dropped afterwards

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
TARGETS = {"bourse": "Bourse", "floor": "floor", "durable": "durable floor"}
P99_LIMIT_MS = 100.0


@dataclass
class Options:
    rooms: tuple[int, ...] = (100,)
    seconds: float = 30.0
    mode: str = "form"
    game: str = "qe"
    players: int = 5
    interval: float = 5.0
    flood: int = 0
    flood_rooms: int = 50
    flood_baseline: float = 3.0
    flood_timeout: float = 60.0
    floor: bool = True
    workers: int = 1
    preplay: int = 0
    lost_after: float = 10.0
    http_timeout: float = 30.0
    setup_timeout: float = 900.0
    seed: str = "bench"
    server_dir: str | None = None  # run ``python -m app`` from this checkout (default: this one)
    processes: int = 1  # app processes (more than one: on PostgreSQL and Redis)
    postgres: str | None = None  # a PostgreSQL server's URL: each run gets a fresh database on it
    redis: str | None = None
    label: str | None = None  # the commit column (default: ``git rev-parse --short HEAD`` of the server)
    api_line: bool = True  # with ``--mode socket``, a JSON API client's run too, on its own line
    compare: str | None = None  # another checkout whose server runs alternately with this one's
    rounds: int = 3  # alternating pairs with ``compare`` or ``hints``
    hints: int = 0  # learners' rooms, asking for hints with reviews running or not, in turn (``Learners``)
    asking: bool = True  # with ``hints``: whether the learners ask for hints and reviews run


# --------------------------------------------------------------------------- /proc
def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def proc_write_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def proc_memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            name, amount, _ = line.split()
            values[name] = int(amount) / 1024
    return values.get("VmRSS:", 0.0), values.get("VmHWM:", 0.0)


def children_cpu_seconds(pid: int) -> dict[int, float]:
    """The CPU seconds so far of each process ``pid`` started (the hints' and reviews' workers)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found[int(entry.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
    return found


def machine_busy_seconds() -> float:
    """CPU seconds all processes of the machine used so far (to tell how busy the rest of it was)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


# --------------------------------------------------------------------------- servers
_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _child_setup() -> None:
    """In the server's process: as many open files as allowed, and die with the benchmark."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Server:
    """``python -m app`` (or the floor) on a free loopback port, with its own temporary database."""

    def __init__(
        self, target: str, folder: Path, server_dir: str | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.target = target
        self.port = free_port()
        self.database = folder / "bench.db"
        self.log_tail: deque[str] = deque(maxlen=40)
        self.error_lines = 0
        module = "app" if target == "bourse" else "benchmarks.floor_server"
        env = {
            **os.environ,
            "HOST": HOST,
            "PORT": str(self.port),
            "BOURSE_DATABASE_URL": f"sqlite:///{self.database}",
            "BOURSE_BOT_DELAY": "0",
            # Every tab of the load comes from one address: the per-client limits would refuse it.
            "BOURSE_RATE_CREATE": "off",
            "BOURSE_RATE_JOIN": "off",
            "BOURSE_RATE_ACT": "off",
            "BOURSE_RATE_CONNECT": "off",
            "BOURSE_MAX_SOCKETS_PER_CLIENT": "0",
            "BOURSE_MAX_SOCKETS_PER_ROOM": "0",
            # two malloc arenas, as scripts/run and the Dockerfile start it
            "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"),
            "FLOOR_DURABLE": "1" if target == "durable" else "0",
            **(env or {}),
        }
        # The log goes to a pipe, not a file, so the server's write_bytes count only the database.
        self.process = subprocess.Popen(
            [sys.executable, "-m", module],
            cwd=server_dir if target == "bourse" and server_dir else ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=_child_setup,  # noqa: PLW1509 - nothing else runs threads at this point
        )
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()
        try:
            self._wait_healthy(60.0)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read_log(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode(errors="replace").rstrip()
            if "Traceback" in line or " ERROR " in line or line.startswith("ERROR"):
                self.error_lines += 1
            if " 200 OK" not in line and " 201 Created" not in line and "[accepted]" not in line:
                self.log_tail.append(line)

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the {self.target} server exited: " + "\n".join(self.log_tail))
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = http.client.HTTPConnection(HOST, self.port, timeout=1)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    connection.close()
                    return
                connection.close()
            time.sleep(0.1)
        raise RuntimeError(f"the {self.target} server did not answer /healthz within {timeout:.0f} s")

    def database_bytes(self) -> int:
        return sum(
            path.stat().st_size
            for path in (self.database, self.database.with_name(self.database.name + "-wal"))
            if path.exists()
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.reader.join(timeout=2)


@contextlib.contextmanager
def running(target: str, server_dir: str | None = None) -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="bench_live_") as folder:
        server = Server(target, Path(folder), server_dir)
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def running_bourse(options: Options) -> Iterator[list[Server]]:
    """Bourse as the options ask: one process on SQLite (the default), or ``processes`` processes on
    a fresh PostgreSQL database (and Redis when more than one), started one after the other."""
    if options.processes == 1 and not options.postgres:
        with running("bourse", options.server_dir) as server:
            yield [server]
        return
    if not options.postgres or (options.processes > 1 and not options.redis):
        raise SystemExit("--processes 2 needs --postgres and --redis (scripts/services start gives both)")
    with (
        tempfile.TemporaryDirectory(prefix="bench_live_") as folder,
        fresh_database(options.postgres) as database,
    ):
        env = {"BOURSE_DATABASE_URL": database, "BOURSE_BROADCAST_URL": options.redis or ""}
        if options.processes == 1:
            env["BOURSE_BROADCAST_URL"] = ""
        servers: list[Server] = []
        try:
            for number in range(options.processes):
                servers.append(Server("bourse", Path(folder) / str(number), options.server_dir, env))
            yield servers
        finally:
            for server in servers:
                server.stop()


# --------------------------------------------------------------------------- workers (sweep)
class SplitClient(Client):
    """A client whose tabs alternate between several processes' ports (seat by seat, shifted by the
    room), while its requests go to the first."""

    def __init__(self, ports: list[int], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ports = ports

    async def open_tab(self, room: Any, seat: int | None, timeout: float, limited: bool = True) -> Any:
        port = self.ports[((seat or 0) + room.index) % len(self.ports)]
        cookie = None if seat is None else f"{SEAT_COOKIE_PREFIX}{room.code}={room.tokens[seat]}"
        tab = Tab(room, seat, handshake(self.host, port, self.tab_path(room), cookie))
        room.tabs.append(tab)
        loop = asyncio.get_running_loop()
        async with contextlib.AsyncExitStack() as stack:
            if limited:
                await stack.enter_async_context(self.connect_slots)
            async with asyncio.timeout(timeout):
                await loop.create_connection(lambda: tab, self.host, port)
                await tab.opened
        return tab


def _client(options: Options, target: str, port: int | list[int], rooms: int) -> Client:
    ports = port if isinstance(port, list) else [port]
    settings: dict[str, Any] = {
        # A connection per room at most, as every browser has its own: requests never queue in the client.
        "http_limit": min(4096, rooms + 16),
        "mode": options.mode,
        "game": options.game,
        "players": options.players,
        "interval": options.interval,
        "lost_after": options.lost_after,
        "http_timeout": options.http_timeout,
        "seed": options.seed,
    }
    driven = "bourse" if target == "bourse" else "floor"  # both floors are driven alike
    if len(ports) > 1:
        return SplitClient(ports, driven, HOST, ports[0], **settings)
    return Client(driven, HOST, ports[0], **settings)


def _cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def worker_main(
    conn: Any,
    options: dict[str, Any],
    target: str,
    port: int | list[int],
    indices: list[int],
    deadline: float,
) -> None:
    """One client process: sets up its share of rooms, then acts from the start time it is sent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # and if the parent is killed, we go too
    raise_open_files_limit()
    uvloop.run(_worker(conn, Options(**options), target, port, indices, deadline))


async def _worker(
    conn: Any, options: Options, target: str, port: int | list[int], indices: list[int], deadline: float
) -> None:
    client = _client(options, target, port, len(indices))
    try:
        try:
            info = await client.prepare(indices, deadline, options.preplay)
        except Exception as failure:  # reported to the parent, which reports the run as failed
            conn.send(("failed", f"set-up: {type(failure).__name__}: {failure}"))
            return
        gc.collect()
        gc.freeze()  # the tabs and rooms live until the end: keep full collections from pausing the client
        conn.send(("ready", info))
        message = await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        if message[0] != "go":
            return
        start = message[1]
        client.window = (start, start + options.seconds)
        client.stop_at = start + options.seconds
        client.start_acting(client.rooms, start)
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        cpu = _cpu_self()
        await asyncio.sleep(max(0.0, client.stop_at - time.monotonic()))
        end = await client.drain(options.http_timeout + options.lost_after + 2)
        tabs = [tab for room in client.rooms for tab in room.tabs]
        conn.send(
            (
                "done",
                {
                    "bucket": client.bucket.to_dict(),
                    "client_cpu_s": _cpu_self() - cpu,
                    "lookup_failures": dict(client.failures),
                    "tabs_dropped": sum(tab.closed for tab in tabs),
                    "finished_rooms": sum(room.finished for room in client.rooms),
                    **end,
                },
            )
        )
    finally:
        await client.shutdown()


def sum_of(figure: Any, servers: list[Server]) -> Any:
    """One /proc figure summed over the servers' processes."""
    return sum(figure(server.pid) for server in servers)


def _receive(conn: Any, deadline: float) -> tuple[str, Any]:
    if not conn.poll(max(0.0, deadline - time.monotonic())):
        return ("timeout", None)
    try:
        return conn.recv()  # type: ignore[no-any-return]
    except EOFError:
        return ("failed", "the worker died")


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


# --------------------------------------------------------------------------- learners (--hints)
HINT_GAME = "basari"  # the hint rooms' game: its hints cost the most
REVIEW_GAME = "qe"  # the reviewed games': played to the end by bots in a few seconds
REVIEWS = 3  # finished games whose review is asked for as the window opens (run one at a time)
LEARNER_PAUSE = 1.3  # seconds a learner not asking for hints takes over a decision (a hint's time)


class Learners:
    """``--hints``: rooms of a seat (Ann) and normal bots at tables that allow hints, each in a thread
    of the benchmark: Ann asks for a hint at each of her decisions and plays its best option (a new
    room when the game ends); and the reviews of ``REVIEWS`` finished games, asked for as the window
    opens. ``stop`` gives the hints' times and the CPU of the server's worker processes meanwhile."""

    def __init__(self, port: int, server_pid: int, rooms: int, asking: bool = True) -> None:
        self.port, self.server_pid, self.rooms, self.asking = port, server_pid, rooms, asking
        self.rng = random.Random(46)
        self.finished: list[tuple[str, str]] = []
        self.times: list[float] = []
        self.figures: dict[str, Any] | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._cpu0: dict[int, float] = {}

    def _call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            connection.request(method, path, None if body is None else json.dumps(body), headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def _room(self, game: str, ann_plays: bool) -> tuple[str, str]:
        body = {"game": game, "players": 4, "name": "Ann", "hints": True}
        _, created = self._call("POST", "/api/rooms", body)
        code, token = created["code"], created["token"]
        self._call("POST", f"/api/rooms/{code}/bots", {"fill": True, "strength": "normal"}, token)
        self._call("POST", f"/api/rooms/{code}/start", None, token)
        if not ann_plays:  # a bot plays Ann's seat to the end
            self._call("POST", f"/api/rooms/{code}/bots", {"seat": 0}, token)
        else:  # Ann opens her page, as a person does (which starts the hints' processes)
            connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
            try:
                connection.request(
                    "GET", f"/r/{code}", headers={"Cookie": f"{SEAT_COOKIE_PREFIX}{code}={token}"}
                )
                connection.getresponse().read()
            finally:
                connection.close()
        return code, token

    def prepare(self, deadline: float) -> None:
        """Before the window: the games to review, played to their end by bots (none without rooms
        or when not asking)."""
        if not self.rooms or not self.asking:
            return
        rooms = [self._room(REVIEW_GAME, ann_plays=False) for _ in range(REVIEWS)]
        for code, token in rooms:
            while self._call("GET", f"/api/rooms/{code}")[1]["status"] != "finished":
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the bots did not finish room {code}")
                time.sleep(0.2)
            self.finished.append((code, token))

    def start(self) -> None:
        if not self.rooms:
            return
        self._cpu0 = children_cpu_seconds(self.server_pid)
        for code, token in self.finished:
            self._call("POST", f"/api/rooms/{code}/review", None, token)
        for _ in range(self.rooms):
            thread = threading.Thread(target=self._ask_hints, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _ask_hints(self) -> None:
        code, token = self._room(HINT_GAME, ann_plays=True)
        while not self._stop.is_set():
            _, room = self._call("GET", f"/api/rooms/{code}", None, token)
            if room["status"] == "finished":
                code, token = self._room(HINT_GAME, ann_plays=True)
                continue
            if 0 not in room["to_act"] or not room["legal"]:
                self._stop.wait(0.1)
                continue
            if not self.asking:
                self._stop.wait(LEARNER_PAUSE)
                action = random_legal_action(room["legal"], self.rng)
            else:
                asked = time.monotonic()
                status, hint = self._call("GET", f"/api/rooms/{code}/hint", None, token)
                if status != 200:  # the coach busy (503): ask again a little later
                    self._stop.wait(0.5)
                    continue
                self.times.append(time.monotonic() - asked)
                action = hint["options"][0]["action"]
            self._call(
                "POST", f"/api/rooms/{code}/actions", {"version": room["version"], "action": action}, token
            )

    def stop(self) -> dict[str, Any]:
        if not self.rooms:
            return {}
        if self.figures is not None:
            return self.figures
        cpu = children_cpu_seconds(self.server_pid)
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=90)
        reviewed = 0
        for code, token in self.finished:
            with contextlib.suppress(OSError, KeyError, TypeError):
                reviewed += self._call("GET", f"/api/rooms/{code}/review", None, token)[1]["reviewed"]
        self.figures = {
            "rooms": self.rooms,
            "asking": self.asking,
            "asked": len(self.times),
            "p50_s": statistics.median(self.times) if self.times else None,
            "max_s": max(self.times) if self.times else None,
            "reviews": len(self.finished),
            "reviewed": reviewed,
            "workers_cpu_s": sum(seconds - self._cpu0.get(pid, 0.0) for pid, seconds in cpu.items()),
        }
        return self.figures


def run_point(options: Options, rooms: int, target: str) -> dict[str, Any]:
    """One room count against one server: the figures of one table row."""
    report: dict[str, Any] = {
        "target": target,
        "rooms": rooms,
        "mode": options.mode,
        "seconds": options.seconds,
    }
    if target == "bourse" and (options.processes > 1 or options.postgres):
        report["processes"] = options.processes
        report["database"] = "postgresql"
    with running_bourse(options) if target == "bourse" else running(target, options.server_dir) as started:
        servers = started if isinstance(started, list) else [started]
        server = servers[0]
        ports: int | list[int] = [one.port for one in servers] if len(servers) > 1 else server.port
        setup_deadline = time.monotonic() + options.setup_timeout
        learners = Learners(
            server.port, server.pid, options.hints if target == "bourse" else 0, options.asking
        )
        pipes: list[Any] = []
        processes: list[Any] = []
        try:
            _start_workers(options, target, ports, rooms, setup_deadline, pipes, processes)
            ready = [_receive(pipe, setup_deadline + 5) for pipe in pipes]
            failed = [str(info) for kind, info in ready if kind != "ready"]
            if failed:
                report["failed"] = "; ".join(failed)
                report["log_tail"] = list(server.log_tail)
                return report
            report["setup_s"] = max(info["setup_s"] for _, info in ready)
            report["connect_s"] = max(info["connect_s"] for _, info in ready)
            report["tabs"] = sum(info["tabs"] for _, info in ready)
            learners.prepare(setup_deadline)
            start = time.monotonic() + 0.5
            for pipe in pipes:
                pipe.send(("go", start))
            _sleep_until(start)
            learners.start()
            cpu0, io = sum_of(proc_cpu_seconds, servers), [sum_of(proc_write_bytes, servers)]
            machine0 = machine_busy_seconds()
            size0 = server.database_bytes()
            for third in (1, 2):
                _sleep_until(start + options.seconds * third / 3)
                io.append(sum_of(proc_write_bytes, servers))
            end_deadline = start + options.seconds + options.http_timeout + options.lost_after + 20
            results = [_receive(pipe, end_deadline) for pipe in pipes]
            ended = time.monotonic()
            io.append(sum_of(proc_write_bytes, servers))
            cpu = sum_of(proc_cpu_seconds, servers) - cpu0
            machine = machine_busy_seconds() - machine0
            memory = [proc_memory_mb(one.pid) for one in servers]
            rss, peak = sum(rss for rss, _ in memory), sum(peak for _, peak in memory)
            growth = server.database_bytes() - size0
            report["hints"] = learners.stop()
        finally:
            _stop_workers(pipes, processes)
            learners.stop()
        failed = [str(info) for kind, info in results if kind != "done"]
        if failed:
            report["failed"] = "; ".join(failed)
        done = [info for kind, info in results if kind == "done"]
        bucket = merge_buckets([info["bucket"] for info in done])
        report.update(summarize(bucket))
        for key in (
            "client_cpu_s",
            "tabs_dropped",
            "finished_rooms",
            "unanswered_at_end",
            "undelivered_at_end",
        ):
            report[key] = sum(info[key] for info in done)
        report["lookup_failures"] = dict(sum((Counter(info["lookup_failures"]) for info in done), Counter()))
        elapsed = ended - start
        accepted = report["accepted"]
        written = [io[number + 1] - io[number] for number in range(3)]
        report["server_cpu_s"] = cpu
        report["server_busy"] = cpu / elapsed
        report["client_busy"] = report["client_cpu_s"] / elapsed
        report["others_busy"] = max(0.0, machine - cpu - report["client_cpu_s"]) / elapsed
        report["cpu_ms_per_action"] = cpu * 1000 / accepted if accepted else None
        report["rss_mb"], report["rss_peak_mb"] = rss, peak
        report["load_average"] = load_average()
        report["server_error_lines"] = sum(one.error_lines for one in servers)
        if report["server_error_lines"]:
            report["log_tail"] = [line for one in servers for line in list(one.log_tail)[-10:]]
        if target == "bourse":
            _add_database_figures(report, written, growth, bucket["accepted_by_third"])
    return report


def _start_workers(
    options: Options,
    target: str,
    ports: int | list[int],
    rooms: int,
    setup_deadline: float,
    pipes: list[Any],
    processes: list[Any],
) -> None:
    """Spawn the client workers, each driving its share of the rooms; ``pipes`` and ``processes``
    grow as they start, so the caller can stop those that did even if a later one fails."""
    context = multiprocessing.get_context("spawn")
    workers = max(1, min(options.workers, rooms))
    shares = [list(range(rooms))[number::workers] for number in range(workers)]
    for share in shares:
        parent, child = context.Pipe()
        process = context.Process(
            target=worker_main,
            args=(child, asdict(options), target, ports, share, setup_deadline),
            daemon=True,
        )
        process.start()
        pipes.append(parent)
        processes.append(process)


def _stop_workers(pipes: list[Any], processes: list[Any]) -> None:
    for pipe in pipes:
        with contextlib.suppress(OSError):
            pipe.send(("stop", None))
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)


def _add_database_figures(
    report: dict[str, Any], written: list[int], growth: int, accepted_by_third: list[int]
) -> None:
    """Bytes the database wrote per accepted action, overall and per third of the run (on SQLite:
    the server's write_bytes, or the file's growth where /proc does not count them)."""
    accepted = report["accepted"]
    if report.get("database") == "postgresql":
        report["db_source"] = "postgresql (its own writes: not counted)"
        report["db_bytes_per_action"] = None
        report["db_bytes_per_action_thirds"] = [None, None, None]
        return
    total = sum(written)
    report["db_source"] = "write_bytes" if total else "db+wal growth"
    if not total:
        written = [growth, 0, 0]
    report["db_bytes_per_action"] = (sum(written) / accepted) if accepted else None
    report["db_bytes_per_action_thirds"] = [
        (amount / count) if count else None for amount, count in zip(written, accepted_by_third, strict=True)
    ]


# --------------------------------------------------------------------------- the spectator flood
def run_flood(options: Options, target: str) -> dict[str, Any]:
    with running(target, options.server_dir) as server:
        report = uvloop.run(_flood(options, target, server))
        report["rss_mb"], report["rss_peak_mb"] = proc_memory_mb(server.pid)
        report["server_error_lines"] = server.error_lines
    return report


async def _probe(http: Http, client: Client, stop: asyncio.Event, every: float, timeout: float) -> None:
    """GET /healthz every ``every`` seconds on its own connection: the stall seen from outside."""
    tick = time.monotonic()
    while not stop.is_set():
        bucket = client.bucket
        started = time.monotonic()
        with contextlib.suppress(HttpError):  # a timeout still records how long it waited
            await http.request("GET", "/healthz", timeout=timeout)
        bucket.probe.append(time.monotonic() - started)
        tick += every
        now = time.monotonic()
        if tick < now:
            tick = now
        await asyncio.sleep(tick - now)


async def _until(condition: Any, deadline: float, step: float = 0.02) -> bool:
    while not condition():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(step)
    return True


async def _flood(options: Options, target: str, server: Server) -> dict[str, Any]:
    raise_open_files_limit()
    client = _client(options, target, server.port, 1 + options.flood_rooms)
    probe_http = Http(HOST, server.port, 1, options.flood_timeout)
    stop = asyncio.Event()
    report: dict[str, Any] = {
        "target": target,
        "spectators": options.flood,
        "other_rooms": options.flood_rooms,
        "flood_timeout": options.flood_timeout,
    }
    phases = {name: Bucket() for name in ("before", "connect", "act", "close")}
    flood_bucket = Bucket()
    probe: asyncio.Task[None] | None = None
    try:
        deadline = time.monotonic() + options.setup_timeout
        info = await client.prepare(list(range(1 + options.flood_rooms)), deadline)
        report["setup_s"], report["connect_s"] = info["setup_s"], info["connect_s"]
        crowded, others = client.rooms[0], client.rooms[1:]
        crowded.bucket = flood_bucket
        client.bucket = phases["before"]
        measured = (time.monotonic(), machine_busy_seconds(), proc_cpu_seconds(server.pid), _cpu_self())
        probe = asyncio.create_task(_probe(probe_http, client, stop, 0.02, options.flood_timeout))
        client.start_acting(others, time.monotonic())
        await asyncio.sleep(options.flood_baseline)

        # 1. N spectator tabs (no seat cookie) open at once
        client.bucket = phases["connect"]
        started = time.monotonic()
        opening = [
            asyncio.create_task(client.open_tab(crowded, None, options.flood_timeout, limited=False))
            for _ in range(options.flood)
        ]
        await _until(lambda: len(crowded.tabs) == options.players + options.flood, started + 5)
        spectators = crowded.tabs[options.players :]
        await _until(
            lambda: all(tab.first_at is not None or tab.closed for tab in spectators),
            started + options.flood_timeout,
        )
        arrived = [tab.first_at for tab in spectators if tab.first_at is not None]
        report["spectators_connected"] = len(arrived)
        report["flood_connect_s"] = (max(arrived) - started) if len(arrived) == len(spectators) else None
        report["flood_connect_timed_out"] = len(arrived) < len(spectators)
        report["flood_connect_p50_s"] = percentile([moment - started for moment in arrived], 50)

        # 2. actions in the crowded room, while the other rooms keep acting
        client.bucket = phases["act"]
        crowded.stop_at = time.monotonic() + options.seconds
        client.start_acting([crowded], time.monotonic() - options.interval * 0.9)  # first move soon
        await asyncio.sleep(options.seconds)
        await _until(
            lambda: not crowded.busy and not crowded.waiters,
            time.monotonic() + options.http_timeout + options.lost_after + 2,
            0.05,
        )

        # 3. every spectator tab closes at once
        client.bucket = phases["close"]
        started = time.monotonic()
        report["flood_close_s"] = await client.close_tabs(spectators, options.flood_timeout)
        for task in opening:
            task.cancel()

        def quiet() -> bool:
            recent = phases["close"].probe[-50:]  # the last ~1 s of probes
            return (
                time.monotonic() - started >= options.flood_baseline
                and len(recent) == 50
                and max(recent) < 0.05
                and all(tab.closed for tab in spectators)
            )

        report["flood_close_quiet"] = await _until(quiet, started + options.flood_timeout, 0.1)
        report["flood_close_phase_s"] = time.monotonic() - started
        client.stop_at = time.monotonic()
        stop.set()
        await client.drain(options.http_timeout + options.lost_after + 2)
        elapsed = time.monotonic() - measured[0]
        server_cpu = proc_cpu_seconds(server.pid) - measured[2]
        client_cpu = _cpu_self() - measured[3]
        report["server_busy"] = server_cpu / elapsed
        report["client_busy"] = client_cpu / elapsed
        report["others_busy"] = (
            max(0.0, machine_busy_seconds() - measured[1] - server_cpu - client_cpu) / elapsed
        )
        with contextlib.suppress(asyncio.TimeoutError, HttpError):
            await asyncio.wait_for(probe, options.flood_timeout)
    except Exception as failure:  # reported, and the server is still stopped by the caller
        report["failed"] = f"{type(failure).__name__}: {failure}"
    finally:
        stop.set()
        if probe is not None:
            probe.cancel()
        probe_http.close()
        await client.shutdown()
    report["flood_room"] = summarize(flood_bucket.to_dict())
    report["phases"] = {name: summarize(bucket.to_dict()) for name, bucket in phases.items()}
    return report


# --------------------------------------------------------------------------- printing
def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 10_000:
        return f"{value / 1000:.0f} s"
    if value >= 1000:
        return f"{value / 1000:.1f} s"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _t(value: float | None) -> str:
    """A duration given in ms, with its unit: "12.3 ms", "6.0 s"."""
    return _ms(value) if value is None or value >= 1000 else f"{_ms(value)} ms"


def _ratio(value: float | None, floor: float | None) -> str:
    if value is None or not floor:
        return "–"
    return f"{value / floor:.1f}×" if value / floor < 100 else f"{value / floor:.0f}×"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def revision(folder: str | Path = ROOT) -> str:
    """The short commit of the server's checkout, ``+dirty`` when its server files have changes."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "app", "templates", "static", "migrations"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return commit + ("+dirty" if dirty else "")


def describe(report: dict[str, Any]) -> str:
    """A readable block with every figure of one run."""
    name = TARGETS[report["target"]]
    if report.get("database") == "postgresql":
        several = report["processes"] > 1
        name += f" ({report['processes']} process{'es' if several else ''}, PostgreSQL{' + Redis' if several else ''})"
    mode = f" {report['mode']}" if report["target"] == "bourse" else ""
    head = f"{name}{mode} · {report['rooms']} rooms × 5 tabs · {report['seconds']:.0f} s"
    if "failed" in report and "accepted" not in report:
        return f"{head}: FAILED {report['failed']}\n" + "\n".join(report.get("log_tail", []))
    lines = [
        f"{head} (set-up {report.get('setup_s', 0):.1f} s, tabs connected in {report.get('connect_s', 0):.1f} s; "
        f"load average {report.get('load_average', '?')})",
        f"  actions scheduled {report['scheduled']}  attempted {report['attempted']}  accepted {report['accepted']}  refused {report['refused']} "
        f"{report['refused_by_status'] or ''}  errors {report['errors']} {report['errors_by_kind'] or ''}  "
        f"lost updates {report['lost_updates']} (in {report['lost_actions']} actions)  "
        f"skipped ticks {report['skipped_ticks']}",
        f"  latency until every tab has it: p50 {_t(report['p50_ms'])}  p95 {_t(report['p95_ms'])}  "
        f"p99 {_t(report['p99_ms'])}  max {_t(report['max_ms'])}",
        f"  server CPU {report['server_cpu_s']:.1f} s ({report['server_busy']:.0%} of a core), "
        f"{_cpu_per_action(report)}; RSS {report['rss_mb']:.0f} MB "
        f"(peak {report['rss_peak_mb']:.0f}); client {report['client_busy']:.0%} of a core; "
        f"other processes {report['others_busy']:.0%} of a core",
    ]
    if report["target"] == "bourse":
        thirds = report["db_bytes_per_action_thirds"]
        lines.append(
            f"  database bytes per action {_kb(report['db_bytes_per_action'])} KB ({report['db_source']}); "
            f"by third of the window: {' → '.join(_kb(value) for value in thirds)} KB; "
            f"lookups per action {report['lookups'] / max(1, report['attempted']):.2f}"
        )
    lines.append(
        f"  bytes to the tabs per accepted action {_kb(report['tab_bytes'] / max(1, report['accepted']))} KB "
        f"(every tab's, as on the wire)"
    )
    if report.get("hints") and not report["hints"]["asking"]:
        lines.append(
            f"  with {report['hints']['rooms']} learners' rooms playing, asking for no hint, no review"
        )
    elif report.get("hints"):
        hints = report["hints"]
        lines.append(
            f"  with {hints['rooms']} rooms asking for hints: {hints['asked']} hints, "
            f"p50 {_num(hints['p50_s'], 2)} s, max {_num(hints['max_s'], 2)} s; "
            f"{hints['reviews']} reviews running ({hints['reviewed']} decisions weighed in the window); "
            f"their workers' CPU {hints['workers_cpu_s']:.1f} s ({hints['workers_cpu_s'] / report['seconds']:.0%} of a core)"
        )
    extra = {
        key: report[key]
        for key in (
            "tabs_dropped",
            "finished_rooms",
            "unanswered_at_end",
            "undelivered_at_end",
            "server_error_lines",
        )
        if report.get(key)
    }
    if report.get("lookup_failures"):
        extra["lookup_failures"] = report["lookup_failures"]
    if report.get("failed"):
        extra["failed"] = report["failed"]
    if extra:
        lines.append(f"  also: {extra}")
    for line in report.get("log_tail", []):
        lines.append(f"  server log: {line}")
    return "\n".join(lines)


def _cpu_per_action(report: dict[str, Any]) -> str:
    """The server's CPU per accepted action: the floor's is per fan-out (one version to 5 sockets),
    Bourse's per move, with its ratio to the floor's of the same run when there is one."""
    if report["target"] != "bourse":
        return f"{_num(report['cpu_ms_per_action'], 2)} ms per fan-out"
    ratio = _ratio(report["cpu_ms_per_action"], report.get("floor_cpu_ms_per_fanout"))
    against = (
        f" ({ratio} the floor's {_num(report['floor_cpu_ms_per_fanout'], 2)} ms per fan-out)"
        if report.get("floor_cpu_ms_per_fanout") is not None
        else ""
    )
    if report.get("durable_cpu_ms_per_move") is not None:
        durable = report["durable_cpu_ms_per_move"]
        against += (
            f", {_ratio(report['cpu_ms_per_action'], durable)} the durable floor's {_num(durable, 2)} ms"
        )
    return f"{_num(report['cpu_ms_per_action'])} ms per accepted action{against}"


def compare_cpu(
    bourse: dict[str, Any], floor: dict[str, Any] | None, durable: dict[str, Any] | None = None
) -> None:
    """Give Bourse's report the floors' server CPU per fan-out of the same run."""
    if floor is not None and floor.get("cpu_ms_per_action") is not None:
        bourse["floor_cpu_ms_per_fanout"] = floor["cpu_ms_per_action"]
    if durable is not None and durable.get("cpu_ms_per_action") is not None:
        bourse["durable_cpu_ms_per_move"] = durable["cpu_ms_per_action"]


def _kb(value: float | None) -> str:
    return "–" if value is None else f"{value / 1024:.1f}"


SWEEP_HEADER = (
    "| date | commit | mode | rooms | p50 ms | p95 ms | p99 ms | max ms | floor p50 / p99 ms | ×floor p50 / p99 "
    "| scheduled / attempted / accepted / refused / errors | lost | CPU ms/action | floor CPU ms/fan-out | CPU ×floor "
    "| RSS MB (floor) | DB KB/action (1st → last third) | other load |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def sweep_row(bourse: dict[str, Any], floor: dict[str, Any] | None, date: str, commit: str) -> str:
    if "accepted" not in bourse:
        return (
            f"| {date} | {commit} | {bourse['mode']} | {bourse['rooms']} | failed: {bourse.get('failed')} |"
        )
    floor = floor if floor and "accepted" in floor else {}
    thirds = bourse.get("db_bytes_per_action_thirds") or [None, None, None]
    return (
        f"| {date} | {commit} | {bourse['mode']} | {bourse['rooms']} | {_ms(bourse['p50_ms'])} | {_ms(bourse['p95_ms'])} "
        f"| {_ms(bourse['p99_ms'])} | {_ms(bourse['max_ms'])} "
        f"| {_ms(floor.get('p50_ms'))} / {_ms(floor.get('p99_ms'))} "
        f"| {_ratio(bourse['p50_ms'], floor.get('p50_ms'))} / {_ratio(bourse['p99_ms'], floor.get('p99_ms'))} "
        f"| {bourse['scheduled']} / {bourse['attempted']} / {bourse['accepted']} / {bourse['refused']} "
        f"/ {bourse['errors'] + sum(bourse.get('lookup_failures', {}).values())} "
        f"| {bourse['lost_updates']} | {_num(bourse['cpu_ms_per_action'])} "
        f"| {_num(floor.get('cpu_ms_per_action'), 2)} | {_ratio(bourse['cpu_ms_per_action'], floor.get('cpu_ms_per_action'))} "
        f"| {bourse['rss_mb']:.0f} ({_num(floor.get('rss_mb'), 0)}) "
        f"| {_kb(bourse.get('db_bytes_per_action'))} ({_kb(thirds[0])} → {_kb(thirds[2])}) "
        f"| {bourse['others_busy']:.0%} |"
    )


def describe_flood(report: dict[str, Any]) -> str:
    name = TARGETS[report["target"]]
    connect = report.get("flood_connect_s")
    lines = [
        f"{name} spectator flood: {report['spectators']} spectator tabs on one room, "
        f"{report['other_rooms']} other rooms acting",
        f"  connected {report.get('spectators_connected')} of {report['spectators']} "
        + (
            f"in {connect:.2f} s"
            if connect is not None
            else f"(gave up after {report['flood_timeout']:.0f} s)"
        )
        + f"; closing: the server hung up on all in {_num(report.get('flood_close_s'))} s, "
        f"{'quiet again' if report.get('flood_close_quiet') else 'NOT quiet'} after "
        f"{_num(report.get('flood_close_phase_s'))} s",
    ]
    room = report["flood_room"]
    lines.append(
        f"  actions in the crowded room: scheduled {room['scheduled']} attempted {room['attempted']} "
        f"accepted {room['accepted']} "
        f"errors {room['errors']} lost updates {room['lost_updates']}; until every tab has it: "
        f"p50 {_t(room['p50_ms'])} p99 {_t(room['p99_ms'])} max {_t(room['max_ms'])}"
    )
    for phase, figures in report["phases"].items():
        lines.append(
            f"  {phase:8} other rooms: actions accepted/attempted/scheduled "
            f"{figures['accepted']}/{figures['attempted']}/{figures['scheduled']} errors {figures['errors']} "
            f"lost {figures['lost_updates']} p50 {_t(figures['p50_ms'])} p99 {_t(figures['p99_ms'])} "
            f"max {_t(figures['max_ms'])} · /healthz probe ({figures['probes']}): "
            f"p99 {_t(figures['probe_p99_ms'])} max {_t(figures['probe_max_ms'])}"
        )
    if report.get("failed"):
        lines.append(f"  FAILED: {report['failed']}")
    lines.append(
        f"  server RSS {report.get('rss_mb', 0):.0f} MB (peak {report.get('rss_peak_mb', 0):.0f}); "
        f"busy: server {report.get('server_busy', 0):.0%}, client {report.get('client_busy', 0):.0%}, "
        f"other processes {report.get('others_busy', 0):.0%} of a core"
    )
    return "\n".join(lines)


FLOOD_HEADER = (
    "| date | commit | server | spectators | other rooms | connected in | crowded-room p50 / p99 ms (lost) "
    "| other rooms max ms (sent of scheduled): connect / act / close | /healthz max ms: connect / act / close | quiet after close "
    "| RSS MB | other load |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _other(figures: dict[str, Any]) -> str:
    return f"{_ms(figures['max_ms'])} ({figures['attempted']}/{figures['scheduled']})"


def flood_row(report: dict[str, Any], date: str, commit: str) -> str:
    phases = report["phases"]
    room = report["flood_room"]
    connect = report.get("flood_connect_s")
    connected = (
        f"{connect:.2f} s"
        if connect is not None
        else f"only {report.get('spectators_connected')} in {report.get('flood_timeout', 0):.0f} s"
    )
    return (
        f"| {date} | {commit} | {TARGETS[report['target']]} | {report['spectators']} | {report['other_rooms']} "
        f"| {connected} | {_ms(room['p50_ms'])} / {_ms(room['p99_ms'])} ({room['lost_updates']} lost, "
        f"{room['errors']} err, {room['accepted']} ok) "
        f"| {' / '.join(_other(phases[name]) for name in ('connect', 'act', 'close'))} "
        f"| {' / '.join(_ms(phases[name]['probe_max_ms']) for name in ('connect', 'act', 'close'))} "
        f"| {'yes' if report.get('flood_close_quiet') else 'no'} after {_num(report.get('flood_close_phase_s'))} s "
        f"| {report.get('rss_mb', 0):.0f} | {report.get('others_busy', 0):.0%} |"
    )


# --------------------------------------------------------------------------- main
def load_average() -> str:
    """The machine's load average (1, 5, 15 minutes): how busy the rest of it was."""
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def compare_alternately(options: Options, rooms: int, out: Any) -> None:
    """Bourse from this checkout and from ``--compare``'s, one run each in turn, ``--rounds`` times:
    each pair's ratio of CPU per accepted move (this / that), then their median. On a shared machine
    only such same-period ratios mean much."""
    ratios = []
    for number in range(options.rounds):
        reports = []
        for server_dir in (options.server_dir, options.compare):
            report = run_point(replace(options, server_dir=server_dir), rooms, "bourse")
            reports.append(report)
            print(f"  round {number + 1}, {revision(server_dir or ROOT)}:", file=out)
            print(describe(report), file=out, flush=True)
        this, that = (report.get("cpu_ms_per_action") for report in reports)
        if this and that:
            ratios.append(this / that)
            print(
                f"  round {number + 1}: CPU per move {this:.2f} / {that:.2f} ms = {this / that:.3f}", file=out
            )
    if ratios:
        print(
            f"CPU per move against {revision(options.compare or ROOT)}: median ratio "
            f"{statistics.median(ratios):.3f} of {len(ratios)} alternating pairs ({', '.join(f'{r:.3f}' for r in ratios)})",
            file=out,
            flush=True,
        )


def compare_hints(options: Options, rooms: int, out: Any) -> None:
    """The same run without and with ``--hints`` rooms, in turn, ``--rounds`` times: the measured
    rooms' latency and the server's CPU per move of each pair, then their medians."""
    pairs = []
    for number in range(options.rounds):
        pair = []
        for asking in (False, True):
            report = run_point(replace(options, asking=asking), rooms, "bourse")
            pair.append(report)
            print(f"  round {number + 1}, {'with' if asking else 'without'} hints and reviews:", file=out)
            print(describe(report), file=out, flush=True)
        pairs.append(pair)
    print(
        "\n| round | p50 without / with | p99 without / with | server CPU per move without / with | "
        "hints' and reviews' workers' CPU |\n|---|---|---|---|---|",
        file=out,
    )
    for number, (without, with_hints) in enumerate(pairs):
        hints = with_hints.get("hints") or {}
        print(
            f"| {number + 1} | {_t(without.get('p50_ms'))} / {_t(with_hints.get('p50_ms'))} | "
            f"{_t(without.get('p99_ms'))} / {_t(with_hints.get('p99_ms'))} | "
            f"{_num(without.get('cpu_ms_per_action'), 2)} / {_num(with_hints.get('cpu_ms_per_action'), 2)} ms | "
            f"{hints.get('workers_cpu_s', 0):.1f} s ({hints.get('asked', 0)} hints, p50 {_num(hints.get('p50_s'), 2)} s) |",
            file=out,
            flush=True,
        )
    for figure in ("p50_ms", "p99_ms", "cpu_ms_per_action"):
        ratios = [b[figure] / a[figure] for a, b in pairs if a.get(figure) and b.get(figure)]
        if ratios:
            print(
                f"{figure} with hints / without: median ratio {statistics.median(ratios):.3f} "
                f"({', '.join(f'{r:.3f}' for r in ratios)})",
                file=out,
                flush=True,
            )


def run(options: Options, out: Any = sys.stdout) -> dict[str, Any]:
    """Every run the options ask for; prints as it goes; returns all reports."""
    date = datetime.date.today().isoformat()
    commit = options.label or revision(options.server_dir or ROOT)
    print(
        f"bench_live {date} commit {commit} · {os.cpu_count()} cores · game {options.game} · "
        f"mode {options.mode} · one action per room every {options.interval:g} s · window {options.seconds:g} s · "
        f"load average {load_average()}",
        file=out,
        flush=True,
    )
    results: dict[str, Any] = {"date": date, "commit": commit, "sweep": [], "flood": []}
    rows = []
    for rooms in options.rooms:
        floor = run_point(options, rooms, "floor") if options.floor else None
        durable = run_point(options, rooms, "durable") if options.floor else None
        for report in (floor, durable):
            if report is not None:
                print(describe(report), file=out, flush=True)
        if options.hints:
            compare_hints(options, rooms, out)
            continue
        bourse = run_point(options, rooms, "bourse")
        compare_cpu(bourse, floor, durable)
        print(describe(bourse), file=out, flush=True)
        if options.mode == "socket" and options.api_line:  # a client of the JSON API: its own line
            api = run_point(replace(options, mode="api"), rooms, "bourse")
            compare_cpu(api, floor, durable)
            print(describe(api), file=out, flush=True)
        results["sweep"].append({"rooms": rooms, "bourse": bourse, "floor": floor, "durable": durable})
        rows.append(sweep_row(bourse, floor, date, commit))
        if options.compare:
            compare_alternately(options, rooms, out)
        print("\n" + SWEEP_HEADER + "\n" + "\n".join(rows) + "\n", file=out, flush=True)
    if options.rooms:
        crossing = next(
            (
                point["rooms"]
                for point in results["sweep"]
                if point["bourse"].get("p99_ms") is None or point["bourse"]["p99_ms"] > P99_LIMIT_MS
            ),
            None,
        )
        results["p99_crosses_100ms_at"] = crossing
        print(
            f"Bourse's p99 crosses {P99_LIMIT_MS:.0f} ms at {crossing} rooms"
            if crossing
            else f"Bourse's p99 stays under {P99_LIMIT_MS:.0f} ms up to {max(options.rooms)} rooms",
            file=out,
            flush=True,
        )
    if options.flood:
        flood_rows = []
        for target in ("floor", "bourse") if options.floor else ("bourse",):
            report = run_flood(options, target)
            print(describe_flood(report), file=out, flush=True)
            results["flood"].append(report)
            flood_rows.append(flood_row(report, date, commit))
        print("\n" + FLOOD_HEADER + "\n" + "\n".join(flood_rows) + "\n", file=out, flush=True)
    return results


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_live", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--rooms", default=None, help="room counts, comma-separated (default 100; none with --flood)"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring window per run (default 30)")
    parser.add_argument(
        "--mode", choices=("form", "api", "socket"), default="form", help="how actions are sent"
    )
    parser.add_argument("--game", default="qe", help="game id (default qe)")
    parser.add_argument("--players", type=int, default=5, help="seats per room, all live tabs (default 5)")
    parser.add_argument(
        "--interval", type=float, default=5.0, help="seconds between a room's actions (default 5)"
    )
    parser.add_argument("--flood", type=int, default=0, help="spectator tabs opened at once on one room")
    parser.add_argument("--flood-rooms", type=int, default=50, help="other rooms acting during the flood")
    parser.add_argument(
        "--flood-timeout", type=float, default=60.0, help="cap of each flood phase (default 60 s)"
    )
    parser.add_argument("--no-floor", action="store_true", help="skip the floor server")
    parser.add_argument(
        "--workers", type=int, default=1, help="client processes sharing the rooms (default 1)"
    )
    parser.add_argument("--preplay", type=int, default=0, help="unmeasured moves per room before the window")
    parser.add_argument("--server-dir", help="run the server from this checkout (e.g. an exported commit)")
    parser.add_argument(
        "--processes", type=int, default=1, help="app processes (2: on --postgres and --redis; default 1)"
    )
    parser.add_argument(
        "--postgres",
        help="PostgreSQL server URL, a fresh database per run (default with --processes 2: "
        "$BOURSE_TEST_POSTGRES_URL; with 1 process: SQLite unless given)",
    )
    parser.add_argument("--redis", help="Redis URL (default with --processes 2: $BOURSE_TEST_REDIS_URL)")
    parser.add_argument("--label", help="what the commit column says (default: the server checkout's commit)")
    parser.add_argument("--no-api", action="store_true", help="with --mode socket, no JSON API line")
    parser.add_argument(
        "--compare", help="another checkout (with its own .venv) run alternately with this one"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating pairs with --compare or --hints (default 3)"
    )
    parser.add_argument(
        "--hints", type=int, default=0, help="rooms asking for hints, reviews running: runs without and with"
    )
    parser.add_argument(
        "--setup-timeout", type=float, default=900.0, help="cap of set-up per run (default 900 s)"
    )
    arguments = parser.parse_args(argv)
    if arguments.rooms is not None:
        rooms = tuple(int(part) for part in arguments.rooms.split(",") if part.strip())
    else:
        rooms = () if arguments.flood else (100,)
    return Options(
        rooms=rooms,
        seconds=arguments.seconds,
        mode=arguments.mode,
        game=arguments.game,
        players=arguments.players,
        interval=arguments.interval,
        flood=arguments.flood,
        flood_rooms=arguments.flood_rooms,
        flood_timeout=arguments.flood_timeout,
        floor=not arguments.no_floor,
        workers=arguments.workers,
        preplay=arguments.preplay,
        setup_timeout=arguments.setup_timeout,
        server_dir=arguments.server_dir,
        label=arguments.label,
        api_line=not arguments.no_api,
        compare=arguments.compare,
        rounds=arguments.rounds,
        hints=arguments.hints,
        processes=arguments.processes,
        postgres=arguments.postgres or several(arguments.processes, "BOURSE_TEST_POSTGRES_URL"),
        redis=arguments.redis or several(arguments.processes, "BOURSE_TEST_REDIS_URL"),
    )


def several(processes: int, variable: str) -> str | None:
    """The service ``scripts/services`` started, when several processes need it."""
    return os.environ.get(variable) if processes > 1 else None


def _terminate(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: servers and workers are stopped on the way


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
    signal.signal(signal.SIGTERM, _terminate)
    raise_open_files_limit()
    options = parse(argv)
    try:
        run(options)
    except KeyboardInterrupt:  # the servers and workers are already stopped by the context managers
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
