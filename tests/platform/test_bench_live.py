"""The live-path benchmark runs end to end on a tiny configuration (figures are not checked here:
timing belongs to the benchmark, never to a test)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.bench_live import Options, run_flood, run_point
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


@pytest.mark.timeout(120)
@pytest.mark.parametrize("target", ["bourse", "floor"])
def test_every_accepted_action_reaches_every_tab(options: Options, target: str) -> None:
    report = run_point(options, 2, target)
    assert "failed" not in report, report
    assert report.keys() >= FIGURES
    assert report["accepted"] > 0 and report["attempted"] >= report["accepted"]
    assert report["errors"] == 0 and report["lost_updates"] == 0, report
    assert report["delivered"] == report["accepted"]
    if target == "bourse":
        assert {"db_bytes_per_action", "db_bytes_per_action_thirds", "db_source"} <= report.keys()


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
