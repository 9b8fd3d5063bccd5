"""A finished game's replay, its record (a JSON download) and the import of a record.

The replay page draws each step with the room's own region templates (``render.seat_context`` and
``render_regions``) from the state ``app.replay`` rebuilds from the action log, as a spectator saw it
or, the game being over, as any seat did. It works as plain links and a form; with htmx a step swaps
only ``#replay-frame``. Replays of finished rooms are kept in a bounded cache (``ReplayCache``), so a
step costs one parse of that step's state, however long the game. A refusal (a game not over, no
such step) is a ``RoomError``, answered by ``answers.room_refused``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.games.base import N_, visible_events
from app.games.registry import ENGINES, package_of
from app.i18n import format_event
from app.replay import (
    RECORD_MAX_BYTES,
    GameRecord,
    RecordSeat,
    Replay,
    ReplayCache,
    parse_record,
    redacted_record,
    replay_game,
)
from app.rooms import Conflict, Forbidden, RoomError, RoomService, RoomSnapshot
from app.web.answers import is_htmx, page
from app.web.deps import LocaleDep, PageRoom, ServiceDep
from app.web.render import (
    EVENTS,
    ROOT,
    Table,
    event_line,
    events_region,
    render_page,
    render_regions,
    seat_context,
    wrap_region,
)

router = APIRouter(include_in_schema=False)

NOT_OVER = N_("A game can be replayed once it is over.")


def replay_cache(request: Request) -> ReplayCache:
    """The app's replays (made on first use: the cache belongs to this router alone)."""
    state = request.app.state
    cache: ReplayCache | None = getattr(state, "replays", None)
    if cache is None:
        cache = state.replays = ReplayCache()
    return cache


def finished_room(service: RoomService, code: str) -> RoomSnapshot:
    snapshot = service.load(code)
    if snapshot.status != "finished":
        raise Conflict(NOT_OVER)
    return snapshot


def room_replay(service: RoomService, cache: ReplayCache, snapshot: RoomSnapshot) -> Replay:
    def build() -> Replay:
        actions, logged = service.records.action_log_with_events(snapshot.code)
        return replay_game(
            snapshot.engine, snapshot.players, snapshot.options, snapshot.seed, actions, logged=logged
        )

    return cache.get(snapshot.code, build)


def _number(raw: str | None, message: str) -> int | None:
    """A query parameter that is absent/empty (None) or a small whole number; else refused."""
    if raw is None or raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
        raise RoomError(message)
    return int(raw)


def replay_table(snapshot: RoomSnapshot, replay: Replay, step: int, seat: int | None) -> Table:
    """The public facts of the table at ``step``: no host, nobody's presence, nothing to do."""
    core = replay.core(step)
    result = snapshot.engine.result(core)
    return Table(
        code=snapshot.code,
        game=snapshot.game,
        status="finished" if result is not None else "playing",
        players=[
            {
                "seat": s.seat,
                "name": s.name,
                "is_bot": s.is_bot,
                "bot_controlled": False,
                "is_host": False,
                "connected": True,
                "is_you": s.seat == seat,
            }
            for s in snapshot.seats
        ],
        to_act=snapshot.engine.to_act(core) if result is None else [],
        result=result.to_json() if result is not None else None,
        next_code=None,
        capacity=snapshot.players,
    )


def replay_position(step: int, before: bool = False) -> str:
    """The query naming ``step``: ``step=<step>``, or with ``before`` the position the next move was
    made from, ``before=<move>``."""
    return f"before={step + 1}" if before else f"step={step}"


def replay_address(code: str, step: int, seat: int | None, before: bool = False) -> str:
    """The address of ``step`` as ``seat`` saw it: what the address bar shows while it is drawn."""
    return f"/r/{code}/replay?{replay_position(step, before)}" + ("" if seat is None else f"&seat={seat}")


def replay_views(snapshot: RoomSnapshot, reader: int | None) -> frozenset[int]:
    """The seats whose view of the game this reader may replay: every seat's if the table agreed to a
    full record at creation, else only their own (a spectator's view is always open). The record
    download follows the same rule."""
    if snapshot.full_record:
        return frozenset(s.seat for s in snapshot.seats)
    return frozenset() if reader is None else frozenset({reader})


def frame_context(
    snapshot: RoomSnapshot,
    replay: Replay,
    step: int,
    seat: int | None,
    locale: str,
    viewable: frozenset[int],
    before: bool = False,
) -> dict[str, Any]:
    """What ``platform/replay_frame.html`` draws: the table at ``step`` as ``seat`` saw it, with a
    link to each view in ``viewable``. ``before``: shown as the position the next move was made from
    (a review's mark links there: "Before move 41"), not as the step after the move before it."""
    engine = snapshot.engine
    table = replay_table(snapshot, replay, step, seat)
    context = seat_context(engine, replay.core(step), seat, table, locale, legal=[])
    regions = {
        region: html
        for region, html in render_regions(engine, context, table.status, locale).items()
        if region != "status"  # the room's status region offers what a replay cannot (play again, ...)
    }
    lines = [
        event_line(event, locale, engine.info.id, table.name_of)
        for event in visible_events({"events": replay.events_upto(step)}, seat)
    ]
    regions[EVENTS] = events_region(reversed(lines), locale)
    latest = [
        format_event(locale, event, table.name_of, package_of(snapshot.game))
        for event in replay.step_events(step, seat)
    ]
    return {
        "code": snapshot.code,
        "address": replay_address(snapshot.code, step, seat, before),
        "position": replay_position(step, before),
        "step": step,
        # The move made from this position, and who made it, when the page shows it as "before" it.
        "before": step + 1 if before else None,
        "mover": table.name_of(replay.actions[step][0]) if before else None,
        "last": replay.last_step,
        "seat": seat,
        "players": table.players,
        "viewable": viewable,
        "actor": table.name_of(replay.actions[step - 1][0]) if step > 0 else None,
        "latest": latest,
        "to_act": [table.name_of(number) for number in table.to_act],
        "finished": table.status == "finished",
        "regions": Markup("".join(wrap_region(region, html, oob=False) for region, html in regions.items())),
    }


@router.get("/r/{code}/replay", response_class=HTMLResponse)
def replay_page(request: Request, room: PageRoom) -> Response:
    locale = room.locale
    snapshot = finished_room(room.service, room.code)
    replay = room_replay(room.service, replay_cache(request), snapshot)
    step = _number(request.query_params.get("step"), N_("There is no such step."))
    # ``before=<move>``: the position that move was made from, said so (a review's mark links there).
    before = _number(request.query_params.get("before"), N_("There is no such step."))
    if before is not None:
        if not 1 <= before <= replay.last_step:
            raise RoomError(N_("There is no such step."))
        step = before - 1
    seat = _number(request.query_params.get("seat"), N_("There is no such seat."))
    if seat is not None and snapshot.seat(seat) is None:
        raise RoomError(N_("There is no such seat."))
    viewable = replay_views(snapshot, room.seat)
    if seat is not None and seat not in viewable:
        raise Forbidden(
            N_("This table kept its secrets: you can replay it as a spectator, or as your own seat.")
        )
    step = replay.last_step if step is None else min(step, replay.last_step)
    context = frame_context(snapshot, replay, step, seat, locale, viewable, before is not None)
    if is_htmx(request) and not request.headers.get("hx-history-restore-request"):
        html = render_page("platform/replay_frame.html", locale, snapshot.game, **context)
        # The address pushed is the step and seat drawn (a step past the end is the last one).
        return HTMLResponse(html, headers={"HX-Push-Url": context["address"]})
    info = snapshot.engine.info
    return page(
        request,
        locale,
        "platform/replay.html",
        game_id=info.id,
        info=info,
        has_game_css=(ROOT / "static" / "games" / f"{info.id}.css").is_file(),
        imported=snapshot.imported,
        **context,
    )


def room_record(service: RoomService, snapshot: RoomSnapshot) -> GameRecord:
    return GameRecord(
        game=snapshot.game,
        options=dict(snapshot.options),
        seed=snapshot.seed,
        seats=tuple(RecordSeat(s.name, s.is_bot) for s in snapshot.seats),
        actions=tuple(service.records.action_log(snapshot.code)),
    )


@router.get("/r/{code}/record.json")
def record_download(request: Request, room: PageRoom) -> Response:
    """The game record of a finished game (never of one still played: the seed foretells every card):
    the full record if the table agreed to it at creation, else what this reader (their seat, or a
    spectator) saw, as the replay shows them. The record says which it is."""
    code = room.code
    snapshot = finished_room(room.service, code)
    record = room_record(room.service, snapshot)
    assert snapshot.result is not None
    result = snapshot.result.to_json()
    if snapshot.full_record:
        body = record.to_json(result, imported=snapshot.imported)
    else:
        replay = room_replay(room.service, replay_cache(request), snapshot)
        body = redacted_record(record, replay, room.seat, result, imported=snapshot.imported)
    body["hints"] = snapshot.hints  # the table allowed the coach, hints and reviews
    return JSONResponse(
        body,
        headers={
            "Content-Disposition": f'attachment; filename="bourse-{snapshot.game}-{code}.json"',
            "Cache-Control": "no-store",  # what it holds depends on the reader's seat cookie
        },
    )


@router.get("/rooms/import", response_class=HTMLResponse)
def import_page(request: Request, locale: LocaleDep) -> HTMLResponse:
    return page(request, locale, "platform/replay_import.html", max_kib=RECORD_MAX_BYTES // 1024)


@router.post("/rooms/import")
async def import_record(request: Request, service: ServiceDep) -> Response:
    """Replay an uploaded record (a form's file ``record``, or a JSON body) into a new finished room.
    A form is answered with the new room's replay; JSON with ``{"code", "url"}`` (201), and a refusal
    of a JSON body with ``{"detail"}`` (``answers.room_refused`` answers a JSON body so)."""
    as_json = request.headers.get("content-type", "").startswith("application/json")
    raw = await _uploaded(request, as_json)
    record, replay = await run_in_threadpool(parse_record, raw, ENGINES)
    code = await run_in_threadpool(_store, service, record, replay)
    if as_json:
        url = str(request.base_url).rstrip("/") + f"/r/{code}"
        return JSONResponse({"code": code, "url": url}, status_code=201)
    return RedirectResponse(f"/r/{code}/replay", status_code=303)


async def _uploaded(request: Request, as_json: bool) -> bytes:
    if as_json:
        return await request.body()
    form = await request.form(max_files=1, max_fields=4)
    upload = form.get("record")
    if not isinstance(upload, UploadFile):
        raise RoomError(N_("Choose a game record file to import."))
    return await upload.read(RECORD_MAX_BYTES + 1)


def _store(service: RoomService, record: GameRecord, replay: Replay) -> str:
    log = [
        (seat, action, replay.events[replay.event_counts[step - 1] : replay.event_counts[step]])
        for step, (seat, action) in enumerate(replay.actions, start=1)
    ]
    return service.records.import_finished(
        record.game,
        record.options,
        record.seed,
        [(seat.name, seat.bot) for seat in record.seats],
        list(replay.events[: replay.event_counts[0]]),
        [(seat, action, list(events)) for seat, action, events in log],
        replay.core(replay.last_step),
    )
