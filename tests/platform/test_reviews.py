"""The review after the game: queued, kept with the room, resumed after a restart, only the seat's
own, and a clearly worse move marked."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.config import Settings
from app.games.base import Budget, random_legal_action, view_without_log
from app.games.registry import ENGINES
from app.learn import review
from app.learn.review import Reviewer, review_decision
from app.learn.workers import LearnWorkers
from app.models import Review, utcnow
from app.web.app import create_app
from tests.platform.test_hints import auth, decisions, qe_room


@pytest.fixture
def client(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(review, "REVIEW_BUDGET", Budget(seconds=60, iterations=4))
    with TestClient(create_app(settings)) as client:
        workers = LearnWorkers(processes=False)
        client.app.state.learn = workers  # type: ignore[attr-defined]
        client.app.state.reviewer.workers = workers  # type: ignore[attr-defined]
        yield client


def finished_qe_room(client: TestClient, hints: bool) -> tuple[str, list[str]]:
    code, tokens = qe_room(client, hints)
    rng = random.Random(2)
    for _ in range(500):
        room = client.get(f"/api/rooms/{code}").json()
        if room["status"] == "finished":
            return code, tokens
        seat = room["to_act"][0]
        mine = client.get(f"/api/rooms/{code}", headers=auth(tokens[seat])).json()
        client.post(
            f"/api/rooms/{code}/actions",
            json={"version": mine["version"], "action": random_legal_action(mine["legal"], rng)},
            headers=auth(tokens[seat]),
        )
    raise AssertionError("the game did not end")


def reviewed(client: TestClient, code: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = client.get(f"/api/rooms/{code}/review", headers=auth(token)).json()
        if answer["status"] == "done":
            return answer
        time.sleep(0.2)
    raise AssertionError("the review did not finish")


def test_a_review_is_queued_kept_and_only_the_seats_own(client: TestClient) -> None:
    code, tokens = finished_qe_room(client, True)
    assert client.get(f"/api/rooms/{code}/review", headers=auth(tokens[0])).json()["status"] == "none"
    asked = client.post(f"/api/rooms/{code}/review", headers=auth(tokens[0]))
    assert asked.status_code == 202 and asked.json()["status"] in ("queued", "done")
    done = reviewed(client, code, tokens[0])
    assert done["decisions"] > 0 and done["reviewed"] == done["decisions"]
    # asked again: the same review, kept with the room
    again = client.post(f"/api/rooms/{code}/review", headers=auth(tokens[0])).json()
    assert again == done
    # another seat has none of its own, and a spectator none at all
    assert client.get(f"/api/rooms/{code}/review", headers=auth(tokens[1])).json()["status"] == "none"
    assert client.get(f"/api/rooms/{code}/review").status_code == 403
    assert client.post(f"/api/rooms/{code}/review").status_code == 403
    client.cookies.set(f"bourse_seat_{code}", tokens[0])
    panel = client.get(f"/r/{code}/review")
    assert panel.status_code == 200 and "Review of your game" in panel.text
    assert 'id="review"' in client.get(f"/r/{code}").text  # the end screen offers it (the coach's region)


def test_no_review_where_the_table_allows_no_hints_nor_before_the_end(client: TestClient) -> None:
    code, tokens = finished_qe_room(client, False)
    assert client.post(f"/api/rooms/{code}/review", headers=auth(tokens[0])).status_code == 403
    assert client.get(f"/api/rooms/{code}/review", headers=auth(tokens[0])).status_code == 403
    client.cookies.set(f"bourse_seat_{code}", tokens[0])
    assert "Review my game" not in client.post(f"/r/{code}/review").text
    playing, playing_tokens = qe_room(client, True)
    assert client.post(f"/api/rooms/{playing}/review", headers=auth(playing_tokens[0])).status_code == 409


def test_a_review_a_restart_interrupted_resumes_where_it_was(client: TestClient) -> None:
    code, tokens = finished_qe_room(client, True)
    service = client.app.state.service  # type: ignore[attr-defined]
    snapshot = service.load(code)
    calls: list[int] = []
    works: set[Any] = set()

    class Counting(LearnWorkers):
        def run(self, work: Any, *args: Any) -> Any:
            works.add(work)
            if work is review.review_decision:
                calls.append(args[1])  # the move's number
            return super().run(work, *args)

    first = Reviewer(service, Counting(processes=False), name="first")
    with service.writer.db.write() as session:
        session.add(Review(room_id=snapshot.room_id, seat=0))
    assert first._claim(snapshot.room_id, 0)
    # a "restart" after two decisions: their progress was saved
    numbers = [d.number for d in review.seat_decisions(snapshot.engine, _replay(service, code), 0)]
    first._save(snapshot, 0, len(numbers), 2, [])
    calls.clear()
    second = Reviewer(service, Counting(processes=False), name="second")
    second.resume()  # the first's claim is fresh: it may still be running
    time.sleep(0.5)
    assert calls == [] and second.state(snapshot, 0).reviewed == 2
    _age_claim(service, snapshot.room_id)  # ... until it is too old: the first process died
    second.resume()
    deadline = time.monotonic() + 120
    while second.state(snapshot, 0).status != "done" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert second.state(snapshot, 0).status == "done"
    assert calls == numbers[2:]  # only the decisions not yet weighed
    # the replay and the views too are made in the worker, never in the server's event loop's process
    assert works == {review.decisions_of, review.review_decision}
    with pytest.raises(review.ClaimLost):  # the first, had it lived, could save nothing more
        first._save(snapshot, 0, len(numbers), 3, [])


def _age_claim(service: Any, room_id: int) -> None:
    with service.writer.db.write() as session:
        for row in session.exec(select(Review).where(Review.room_id == room_id)).all():
            row.claimed_at = utcnow() - timedelta(seconds=review.CLAIM_SECONDS + 1)
            session.add(row)


@pytest.mark.both_databases
def test_two_reviewers_racing_on_one_database_run_a_review_once(settings: Settings) -> None:
    """Two server processes' reviewers (one database) asked for the same review at once, and both
    resuming it: one claims it and weighs each decision once; the other weighs none."""
    with TestClient(create_app(settings)) as client:
        code, tokens = finished_qe_room(client, True)
        service = client.app.state.service  # type: ignore[attr-defined]
        snapshot = service.load(code)
        calls: list[tuple[str, int]] = []
        lock = threading.Lock()

        class Counting(LearnWorkers):
            def __init__(self, name: str) -> None:
                super().__init__(processes=False)
                self.name = name

            def run(self, work: Any, *args: Any) -> Any:
                with lock:
                    if work is review.review_decision:
                        calls.append((self.name, args[1]))
                time.sleep(0.01)  # the other reviewer's thread gets its turn meanwhile
                return super().run(work, *args)

        reviewers = [Reviewer(service, Counting(name), name=name) for name in ("a", "b")]
        start = threading.Barrier(2)

        def ask(reviewer: Reviewer) -> None:
            start.wait()
            reviewer.ask(snapshot, 0)
            reviewer.resume()

        askers = [threading.Thread(target=ask, args=(reviewer,)) for reviewer in reviewers]
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join()
        deadline = time.monotonic() + 120
        while reviewers[0].state(snapshot, 0).status != "done" and time.monotonic() < deadline:
            time.sleep(0.1)
        for reviewer in reviewers:  # both threads done with their queues
            while reviewer._thread is not None and reviewer._thread.is_alive():
                time.sleep(0.05)
        done = reviewers[1].state(snapshot, 0)
        assert done.status == "done" and done.reviewed == done.decisions > 0
        numbers = [number for _, number in calls]
        assert sorted(numbers) == sorted(set(numbers)) and len(numbers) == done.decisions
        assert len({name for name, _ in calls}) == 1, calls


def _replay(service: Any, code: str) -> Any:
    from app.replay import replay_game

    snapshot = service.load(code)
    actions = service.records.action_log(code)
    return replay_game(snapshot.engine, snapshot.players, snapshot.options, snapshot.seed, actions)


def test_a_clearly_worse_move_is_marked_with_what_would_have_been_better() -> None:
    """A Q.E. bid far above anything the table will spend eliminates its bidder: the review marks it
    as a mistake and names a better bid."""
    engine = ENGINES["qe"]
    for state, seat in decisions("qe", 4, seed=8, every=1):
        if state["phase"] == "bidding" and seat in engine.to_act(state):
            break
    view = view_without_log(engine, state, seat)
    legal = engine.legal_actions(state, seat)
    reckless = {"type": "bid", "amount": 10**9}
    mark = review_decision("qe", 7, view, seat, legal, reckless, 5, Budget(seconds=60, iterations=24))
    assert mark is not None
    assert mark["kind"] == "mistake" and mark["move"] == 7
    assert mark["better"] != reckless and mark["better_won"] > mark["played_won"]
    assert mark["played_said"] == ["Bid {amount}", {"amount": 10**9}]


def test_a_gain_is_marked_only_when_it_clears_its_worlds_noise() -> None:
    """The newcomer trial read a review that praised and faulted the same kind of move a few decisions
    apart, each on a few playouts: a gain is marked only when it clears the rounds' spread."""
    from app.bots.search import Candidate
    from app.learn.review import INACCURACY, MIN_ROUNDS, clearly_ahead

    def played(wins: Sequence[float]) -> Candidate:
        return Candidate({"type": "pass"}, wins=dict(enumerate(wins)))

    lucky = played([1, 1, 0, 0, 0])  # a fifth of a game ahead on average, from worlds going both ways
    assert clearly_ahead(lucky, played([0, 0, 1, 0, 0])) is None
    steady = played([1, 1, 1, 1, 0, 1] * 4)  # half a game ahead, never behind, over 24 worlds
    assert clearly_ahead(steady, played([0, 1, 0, 1, 0, 0] * 4)) == pytest.approx(0.5)
    never_behind = played([1] + [0] * 9)  # never behind, but by less than an inaccuracy
    assert INACCURACY > 1 / 10 and clearly_ahead(never_behind, played([0] * 10)) is None
    assert clearly_ahead(played([1] * (MIN_ROUNDS - 1)), played([0] * (MIN_ROUNDS - 1))) is None
    assert clearly_ahead(played([1] * MIN_ROUNDS), played([0] * MIN_ROUNDS)) == 1.0
