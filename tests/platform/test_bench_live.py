"""The live-path benchmark runs end to end on a tiny configuration (figures are not checked here:
timing belongs to the benchmark, never to a test)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest

from benchmarks.bench_live import (
    SWEEP_HEADER,
    Options,
    compare_cpu,
    describe,
    run_flood,
    run_point,
    sweep_row,
)
from benchmarks.live_client import raise_open_files_limit

FIGURES = {
    "attempted",
    "accepted",
    "refused",
    "errors",
    "lost_updates",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "max_ms",
    "server_cpu_s",
    "cpu_ms_per_action",
    "rss_mb",
}


@pytest.fixture(scope="module")
def options() -> Options:
    raise_open_files_limit()
    return Options(
        seconds=3,
        interval=1,
        flood=20,
        flood_rooms=2,
        flood_baseline=1,
        flood_timeout=20,
        setup_timeout=60,
    )


@pytest.fixture(scope="module")
def reports(options: Options) -> dict[str, dict[str, Any]]:
    """One tiny run of each server, as ``run`` makes them (the floor first)."""
    return {target: run_point(options, 2, target) for target in ("floor", "bourse")}


@pytest.mark.timeout(240)
@pytest.mark.parametrize("target", ["bourse", "floor"])
def test_every_accepted_action_reaches_every_tab(reports: dict[str, dict[str, Any]], target: str) -> None:
    report = reports[target]
    assert "failed" not in report, report
    assert report.keys() >= FIGURES
    assert report["accepted"] > 0 and report["attempted"] >= report["accepted"]
    assert report["errors"] == 0 and report["lost_updates"] == 0, report
    assert report["delivered"] == report["accepted"]
    if target == "bourse":
        assert {"db_bytes_per_action", "db_bytes_per_action_thirds", "db_source"} <= report.keys()


@pytest.mark.timeout(240)
def test_a_socket_client_looks_up_only_seats_the_game_waits_for(options: Options) -> None:
    """Over the socket a move's answer comes after its push, whose turn region names the seats the
    game now waits for: the next lookup asks one of them, so a window looks once an action at most
    (a lookup asking a seat whose turn had passed would look again)."""
    report = run_point(replace(options, mode="socket"), 2, "bourse")
    assert report["accepted"] > 0 and report["errors"] == 0 and report["lost_updates"] == 0, report
    assert report["lookups"] <= report["attempted"], report


@pytest.mark.timeout(120)
def test_spectator_flood_runs(options: Options) -> None:
    # Its own thread: an event loop the browser tests' Playwright left on this one must not matter.
    with ThreadPoolExecutor(1) as thread:
        report = thread.submit(run_flood, options, "bourse").result()
    assert report["spectators_connected"] == 20
    room = report["flood_room"]
    assert room["accepted"] > 0 and room["errors"] == 0 and room["lost_updates"] == 0, room
    assert {"before", "connect", "act", "close"} == report["phases"].keys()
    for phase in report["phases"].values():
        assert phase["errors"] == 0 and phase["lost_updates"] == 0, phase
    assert report["phases"]["act"]["probes"] > 0


def test_cpu_is_reported_against_the_floors_per_fan_out(reports: dict[str, dict[str, Any]]) -> None:
    floor, bourse = reports["floor"], dict(reports["bourse"])
    compare_cpu(bourse, floor)
    per_fanout = floor["cpu_ms_per_action"]
    assert bourse["floor_cpu_ms_per_fanout"] == per_fanout
    assert "ms per fan-out" in describe(floor)
    assert f"the floor's {per_fanout:.2f} ms per fan-out" in describe(bourse)
    names = [name.strip() for name in SWEEP_HEADER.splitlines()[0].strip("|").split("|")]
    cells = [cell.strip() for cell in sweep_row(bourse, floor, "today", "abc").strip("|").split("|")]
    assert len(cells) == len(names)
    row = dict(zip(names, cells, strict=True))
    assert row["floor CPU ms/fan-out"] == f"{per_fanout:.2f}"
    ratio = bourse["cpu_ms_per_action"] / per_fanout if per_fanout else None  # a tiny run may round to 0
    assert row["CPU ×floor"] == ("–" if ratio is None else f"{ratio:.{1 if ratio < 100 else 0}f}×")


@pytest.mark.timeout(300)
def test_a_run_with_rooms_asking_for_hints_reports_their_hints_apart(options: Options) -> None:
    """``--hints``: the hint rooms ask and play, the reviews run, and what they cost is reported
    apart from the measured rooms' figures."""
    report = run_point(replace(options, hints=1, seconds=6), 2, "bourse")
    assert "failed" not in report, report.get("failed")
    hints = report["hints"]
    assert hints["rooms"] == 1 and hints["asked"] > 0 and hints["reviews"] > 0
    assert hints["workers_cpu_s"] > 0
    assert "rooms asking for hints" in describe(report)
