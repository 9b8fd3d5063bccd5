"""What changed moves (static/js/motion.js), watched as a person watches it: frames ~150 ms after a push
show a price marker between its two cells on Tulipmania 1637's board, a gem between the pile that gave
it and the pile that got it in Basari, a company on its way to its winner's tableau and a bid slip
turning over in Q.E.; a tap that skips the moves acts on nothing; under reduced motion, or in a browser
without the View Transitions API, nothing moves and every push is swapped in as it comes."""

from __future__ import annotations

import math
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action

pytestmark = pytest.mark.browser

# The page's probe: after each push a frame 150 ms into its moves, with every running animation of the kinds the tests
# look for: where its piece started, where it is in that frame and where it ends. ``freeze`` names a kind
# (glides, flights, groups, won: a company's group on its way to a tableau): the first frame with one is
# paused there while the test takes a screenshot.
PROBE = """(freeze) => {
  const probe = window.__motion = { held: 0, swapped: 0, frames: [], frozen: false, freeze: freeze,
    playing: 0, clicks: 0, before: {} };
  const centre = (box) => ({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
  document.addEventListener("htmx:wsBeforeMessage", (event) => {
    if (event.defaultPrevented) { probe.held += 1; return; }
    probe.before = {};
    document.querySelectorAll("[data-move][data-track]").forEach((element) => {
      probe.before[element.getAttribute("data-track")] = centre(element.getBoundingClientRect());
    });
  });
  document.body.addEventListener("click", () => { probe.clicks += 1; });
  new MutationObserver(() => {
    if (document.documentElement.classList.contains("vt-playing")) probe.playing += 1;
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  const collect = (before) => {
    const frame = { glides: [], flights: [], groups: [], turning: [], all: 0, playing:
      document.documentElement.classList.contains("vt-playing") };
    document.getAnimations().forEach((animation) => {
      if (animation.playState !== "running") return;
      frame.all += 1;
      const effect = animation.effect;
      const target = effect && effect.target;
      if (effect && effect.pseudoElement) {
        const name = effect.pseudoElement;
        if (name.startsWith("::view-transition-group(piece-")) {
          const key = name.slice("::view-transition-group(piece-".length, -1);
          const element = document.querySelector(`[data-track="${key}"]`);
          const frames = effect.getKeyframes();
          frame.groups.push({ key: key, moves: frames[0].transform !== frames[frames.length - 1].transform,
            toTableau: Boolean(element && element.closest(".qe-seat-card")) });
        }
        return;
      }
      if (!target || animation instanceof CSSAnimation) return;  // (the highlight of what changed)
      if (target.classList.contains("flying-token")) {
        const box = target.getBoundingClientRect();
        const first = effect.getKeyframes()[0].transform.match(/translate\\(([-\\d.e]+)px, ?([-\\d.e]+)px\\)/);
        const end = { x: parseFloat(target.style.left) + parseFloat(target.style.width) / 2,
                      y: parseFloat(target.style.top) + parseFloat(target.style.height) / 2 };
        frame.flights.push({ mid: centre(box), end: end,
          start: { x: end.x + parseFloat(first[1]), y: end.y + parseFloat(first[2]) } });
      } else if (target.hasAttribute("data-move") && target.hasAttribute("data-track")) {
        const key = target.getAttribute("data-track");
        const glide = { key: key, kind: target.getAttribute("class"), start: before[key] || null,
          mid: centre(target.getBoundingClientRect()) };
        frame.glides.push(glide);
        animation.finished.then(() => { glide.end = centre(target.getBoundingClientRect()); }, () => {});
      }
    });
    document.querySelectorAll(".turning").forEach((slip) => {
      frame.turning.push({ key: slip.getAttribute("data-flip"), inBidsTable: Boolean(slip.closest(".qe-bids")),
        transform: getComputedStyle(slip).transform });
    });
    frame.won = frame.groups.filter((group) => group.toTableau && group.moves);
    probe.frames.push(frame);
    if (probe.freeze && frame[probe.freeze].length) {
      probe.freeze = "";
      probe.frozen = true;
      document.getAnimations().forEach((animation) => animation.pause());
    }
  };
  document.addEventListener("htmx:wsAfterMessage", () => {
    probe.swapped += 1;
    const before = probe.before;
    // 150 ms into the moves by the animations' own clock, once they have started (a busy machine may
    // start them, and draw its frames, late)
    const later = (from) => requestAnimationFrame(() => {
      if (document.timeline.currentTime - from >= 150) collect(before); else later(from);
    });
    requestAnimationFrame(() => requestAnimationFrame(() => {
      Promise.all(document.getAnimations().map((animation) => animation.ready.catch(() => {})))
        .then(() => requestAnimationFrame(() => later(document.timeline.currentTime)));
    }));
  });
}"""

RESUME = """() => { window.__motion.frozen = false;
  document.getAnimations().forEach((animation) => { if (animation.playState === "paused") animation.play(); }); }"""


def _room(server_url: str, game: str, players: int) -> tuple[str, dict[str, str]]:
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": game, "players": players, "name": "Ann"}
    ).json()
    headers = {"Authorization": f"Bearer {created['token']}"}
    httpx.post(f"{server_url}/api/rooms/{created['code']}/bots", json={"fill": True}, headers=headers)
    return created["code"], headers


def _watch(browser: Any, server_url: str, code: str, width: int, errors: list[str], **options: Any) -> Any:
    """A spectator's page on the room, its probe in place, live."""
    context = browser.new_context(viewport={"width": width, "height": 900}, **options)
    page = context.new_page()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message} {error.stack}"))
    page.goto(f"{server_url}/r/{code}?lang=en")
    page.wait_for_selector("body.ws-online")
    return page


def _probe(page: Any, freeze: str, look_at: str = "") -> None:
    """The probe in place; ``look_at``: the part of the table scrolled into view for the screenshot."""
    if look_at:
        page.locator(look_at).first.wait_for()
        page.locator(look_at).first.scroll_into_view_if_needed()
    page.evaluate(PROBE, freeze)


def _play(server_url: str, code: str, headers: dict[str, str], rng: random.Random) -> str | None:
    """Ann's move when the game waits for her (the bots move by themselves): the room's version after
    it, or None once the game is over."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
        if room["status"] != "playing":
            return None
        if 0 in room["to_act"] and room["legal"]:
            answer = httpx.post(
                f"{server_url}/api/rooms/{code}/actions",
                json={"version": room["version"], "action": random_legal_action(room["legal"], rng)},
                headers=headers,
            )
            assert answer.status_code in (200, 409, 422), answer.text
            return str(httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()["version"])
        time.sleep(0.05)
    raise AssertionError("the game never waited for Ann")


def _follow(page: Any, version: str, artifacts: Path, shot: str) -> bool:
    """Wait until the page shows ``version`` and has finished playing; a frame paused by the probe on
    the way is saved as ``shot`` (and let go). Whether one was."""
    took = False
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if page.evaluate("() => window.__motion.frozen"):
            page.screenshot(path=str(artifacts / shot))
            page.evaluate(RESUME)
            took = True
        if page.evaluate(
            "(v) => Number(document.querySelector('#r-flash').dataset.roomVersion) >= Number(v)"
            " && !document.documentElement.classList.contains('vt-playing')",
            version,
        ):
            page.wait_for_timeout(700)  # the last push's frame and glides
            if page.evaluate("() => window.__motion.frozen"):
                continue
            return took
        page.wait_for_timeout(30)
    raise AssertionError(f"the page never showed version {version}")


def _between(glide: dict[str, Any]) -> bool:
    """Whether a piece's frame shows it on its way: away from where it started and from where it ends,
    on the straight line between them (the arrow it follows)."""
    start, mid, end = glide["start"], glide["mid"], glide.get("end")
    if not (start and end):
        return False
    length = math.dist((start["x"], start["y"]), (end["x"], end["y"]))
    if length < 8:
        return False
    off_line = (
        abs(
            (end["x"] - start["x"]) * (start["y"] - mid["y"])
            - (start["x"] - mid["x"]) * (end["y"] - start["y"])
        )
        / length
    )
    return (
        math.dist((start["x"], start["y"]), (mid["x"], mid["y"])) > 2
        and math.dist((end["x"], end["y"]), (mid["x"], mid["y"])) > 2
        and off_line < 3
    )


def _frames(page: Any) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = page.evaluate("() => window.__motion.frames")
    return frames


@pytest.mark.parametrize(
    ("game", "board", "marker", "width"),
    [
        ("tulipmania-1637", ".tm-board-svg", "tm-marker", 360),
        ("tulipmania-1637", ".tm-board-svg", "tm-marker", 1280),
        ("tulip-bubble", "#r-g-board svg", "tb-marker", 360),
        ("tulip-bubble", "#r-g-board svg", "tb-marker", 1280),
    ],
)
def test_a_price_marker_glides_along_its_track(
    browser: Any, server_url: str, artifacts: Path, game: str, board: str, marker: str, width: int
) -> None:
    """A spectator watches Ann and two bots: when a price changes, its marker is seen ~150 ms later
    between its old place and its new one, on the line between them (Tulipmania's arrow, Tulip
    Bubble's track), and it ends in its new place."""
    code, headers = _room(server_url, game, 3)
    errors: list[str] = []
    page = _watch(browser, server_url, code, width, errors)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    _probe(page, "glides", look_at=board)
    rng = random.Random(11)
    shot = False
    for _ in range(60):
        version = _play(server_url, code, headers, rng)
        if version is None:
            break
        shot = _follow(page, version, artifacts, f"motion-{game}-marker-{width}.png") or shot
        glides = [g for frame in _frames(page) for g in frame["glides"] if marker in (g["kind"] or "")]
        if any(_between(glide) for glide in glides) and shot:
            break
    assert any(_between(glide) for glide in glides), glides
    assert shot
    assert page.evaluate("() => window.__motion.held") > 0  # pushes were held, then swapped in by motion.js
    assert errors == []
    page.context.close()


@pytest.mark.parametrize("width", [360, 1280])
def test_basari_gems_travel_from_the_pile_that_gives_them_to_the_pile_that_gets_them(
    browser: Any, server_url: str, artifacts: Path, width: int
) -> None:
    """Gems taken from the bank or handed over in a bargain are seen in flight between the two piles,
    and a market card drawn onto a display glides in from the deck."""
    code, headers = _room(server_url, "basari", 3)
    errors: list[str] = []
    page = _watch(browser, server_url, code, width, errors)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    _probe(page, "flights", look_at=".bs-players")
    rng = random.Random(3)
    flights: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    for _ in range(60):
        version = _play(server_url, code, headers, rng)
        if version is None:
            break
        _follow(page, version, artifacts, f"motion-basari-gems-{width}.png")
        frames = _frames(page)
        flights = [f for frame in frames for f in frame["flights"]]
        cards = [g for frame in frames for g in frame["glides"] if (g["kind"] or "").startswith("bs-card")]
        if flights and cards:
            break
    assert flights, "no gem was seen travelling"
    assert any(_between(flight) for flight in flights), flights
    assert cards, "no market card was seen gliding onto a display"
    # a card comes from the deck, outside its display: it started elsewhere and is on its way
    assert any(
        math.dist((c["mid"]["x"], c["mid"]["y"]), (c["end"]["x"], c["end"]["y"])) > 2
        for c in cards
        if "end" in c
    )
    assert (artifacts / f"motion-basari-gems-{width}.png").exists()
    assert page.locator(".flying-token").count() == 0  # every copy in flight is gone once it lands
    assert errors == []
    page.context.close()


@pytest.mark.parametrize("width", [360, 1280])
def test_a_won_company_travels_to_its_tableau_and_revealed_slips_turn_over(
    browser: Any, server_url: str, artifacts: Path, width: int
) -> None:
    """Q.E.: the company won is carried from the auction to its winner's tableau by the transition, and
    an open bid revealed turns over on its slip outside the auctioneer's bids table."""
    code, headers = _room(server_url, "qe", 3)
    errors: list[str] = []
    page = _watch(browser, server_url, code, width, errors)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    _probe(page, "won", look_at=".qe-auction")
    rng = random.Random(5)
    for _ in range(40):
        version = _play(server_url, code, headers, rng)
        if version is None:
            break
        _follow(page, version, artifacts, f"motion-qe-company-{width}.png")
        frames = _frames(page)
        won = [g for frame in frames for g in frame["groups"] if g["toTableau"] and g["moves"]]
        turned = [t for frame in frames for t in frame["turning"] if not t["inBidsTable"]]
        if won and turned:
            break
    assert won, [frame["groups"] for frame in frames]
    assert turned, [frame["turning"] for frame in frames]
    assert any(t["transform"] != "none" for t in turned)  # caught mid-turn
    assert errors == []
    page.context.close()


def test_a_tap_that_skips_the_moves_acts_on_nothing_and_the_next_acts(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    """While a push plays (held in its frame), a tap on the room menu skips to the end; the table it
    ends on has moved under the finger, so the tap acts on nothing (the menu stays as it was, no click
    reaches the page); the next tap acts."""
    code, headers = _room(server_url, "tulipmania-1637", 3)
    errors: list[str] = []
    page = _watch(browser, server_url, code, 1280, errors)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    _probe(page, "glides")
    rng = random.Random(11)
    for _ in range(40):
        version = _play(server_url, code, headers, rng)
        assert version is not None
        try:
            page.wait_for_function("() => window.__motion.frozen", timeout=3_000)
            break
        except Exception:
            continue  # that move moved nothing: the next
    assert page.evaluate("() => document.documentElement.classList.contains('vt-playing')")
    summary = page.locator("#room-menu > summary")
    was_open = page.locator("#room-menu").evaluate("(menu) => menu.open")
    box = summary.bounding_box()
    # what the skip swaps in moves the table under the finger (here: a block the page gains above it)
    page.evaluate(
        """() => window.addEventListener("pointerdown", () => {
             const block = document.createElement("div");
             block.style.height = "160px";
             document.querySelector("main").prepend(block);
           }, { capture: true, once: true })"""
    )
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => !document.documentElement.classList.contains('vt-playing')", timeout=5_000)
    page.screenshot(path=str(artifacts / "motion-tap-skipped-1280.png"))
    assert page.evaluate("() => window.__motion.clicks") == 0
    assert page.locator("#room-menu").evaluate("(menu) => menu.open") == was_open
    page.evaluate(RESUME)
    box = summary.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "(was) => document.getElementById('room-menu').open !== was", arg=was_open, timeout=3_000
    )
    assert page.evaluate("() => window.__motion.clicks") == 1
    assert errors == []
    page.context.close()


@pytest.mark.parametrize("how", ["reduced-motion", "no-view-transitions"])
def test_nothing_moves_under_reduced_motion_or_without_the_api(
    browser: Any, server_url: str, how: str
) -> None:
    """Under prefers-reduced-motion, or in a browser without the View Transitions API, every push is
    swapped in as it comes (none held), nothing animates after it, and the page keeps up."""
    code, headers = _room(server_url, "basari", 3)
    errors: list[str] = []
    options = {"reduced_motion": "reduce"} if how == "reduced-motion" else {}
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    if how == "no-view-transitions":
        context.add_init_script("delete Document.prototype.startViewTransition;")
    page = context.new_page()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{server_url}/r/{code}?lang=en")
    page.wait_for_selector("body.ws-online")
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    _probe(page, "")
    rng = random.Random(3)
    for _ in range(12):
        version = _play(server_url, code, headers, rng)
        if version is None:
            break
        page.wait_for_function(
            "(v) => Number(document.querySelector('#r-flash').dataset.roomVersion) >= Number(v)",
            arg=version,
            timeout=10_000,
        )
    page.wait_for_timeout(400)
    frames = _frames(page)
    assert len(frames) >= 12
    moved = [f for f in frames if f["glides"] or f["flights"] or f["groups"] or f["turning"] or f["playing"]]
    assert moved == []
    if how == "reduced-motion":  # not even the highlight of what changed: a still outline
        assert all(frame["all"] == 0 for frame in frames), [frame for frame in frames if frame["all"]]
    assert page.evaluate("() => window.__motion.held") == 0
    assert page.evaluate("() => window.__motion.playing") == 0
    assert errors == []
    context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_phone_tab_bar_slides_in_only_where_motion_is_welcome(
    browser: Any, server_url: str, motion: str
) -> None:
    """The phone's tab bar to the rest of the table comes up with the page's scroll once the decision is
    scrolled past: sliding in, or, under reduced motion, simply there."""
    code, headers = _room(server_url, "basari", 3)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    context = browser.new_context(viewport={"width": 360, "height": 780}, reduced_motion=motion)
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}?lang=en")
    page.wait_for_selector("body.ws-online")
    bar = (
        "() => { const s = getComputedStyle(document.querySelector('.table-tabs'));"
        " return [s.transform, s.visibility]; }"
    )
    page.evaluate("() => window.scrollTo(0, 0.85 * 0.4 * window.innerHeight)")  # most of the way in
    page.wait_for_timeout(200)
    transform, visibility = page.evaluate(bar)
    assert visibility == "visible"
    if motion == "reduce":
        assert transform == "none"
    else:
        assert transform != "none"  # still on its way up
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(200)
    assert page.evaluate(bar)[1] == "hidden"  # the first screen is the decision's
    context.close()
