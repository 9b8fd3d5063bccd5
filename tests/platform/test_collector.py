"""The server's cycle collector (app/collector.py): young passes, freezes and the full pass."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from app.collector import Collector


class Node:
    """An object that can be part of a reference cycle and be watched by a weak reference."""

    def __init__(self) -> None:
        self.other: Any = None


@pytest.fixture(autouse=True)
def unfrozen_after() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process must not keep what a test froze out of every pass's sight


@pytest.fixture
def clock() -> list[float]:
    return [1000.0]


def collector_on(clock: list[float]) -> Collector:
    return Collector(freeze_every=3600, full_every=600, clock=lambda: clock[0])


def garbage_cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_a_young_pass_collects_a_cycle_that_is_garbage_before_anything_is_frozen(clock: list[float]) -> None:
    collector = collector_on(clock)
    watched = garbage_cycle()
    collector.tick()
    assert watched() is None


def test_what_survives_a_tick_is_frozen_and_still_freed_by_reference_counts(clock: list[float]) -> None:
    collector = collector_on(clock)
    kept = Node()
    watched = weakref.ref(kept)
    collector.tick()
    assert gc.get_freeze_count() > 0
    assert gc.get_objects(1) == gc.get_objects(2) == []  # a young pass, then the freeze: all out of sight
    del kept  # no cycle: freed at once, frozen or not
    assert watched() is None


def test_a_cycle_frozen_alive_is_collected_by_the_full_pass_once_full_every_has_gone_by(
    clock: list[float],
) -> None:
    collector = collector_on(clock)
    first, second = Node(), Node()
    first.other, second.other = second, first
    watched = weakref.ref(first)
    collector.tick()  # frozen while alive
    del first, second
    gc.collect()
    assert watched() is not None  # out of every pass's sight
    clock[0] += 599
    collector.tick()
    assert watched() is not None
    clock[0] += 1
    collector.tick()
    assert watched() is None
    assert gc.get_freeze_count() > 0  # what survived the full pass is frozen again


def test_the_thread_freezes_until_stopped() -> None:
    gc.unfreeze()
    collector = Collector(freeze_every=0.01, full_every=600)
    collector.start()  # a full pass, then a young pass and a freeze every 10 ms
    try:
        kept = [Node() for _ in range(100)]
        frozen = gc.get_freeze_count()
        deadline = time.monotonic() + 5
        while gc.get_freeze_count() < frozen + len(kept) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.get_freeze_count() >= frozen + len(kept)  # the collector alone freezes
    finally:
        collector.stop()
    gc.unfreeze()
    after = gc.get_freeze_count()
    time.sleep(0.05)
    assert gc.get_freeze_count() == after == 0  # stopped: nothing freezes any more
