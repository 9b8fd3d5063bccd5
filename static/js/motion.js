// What changed moves (issue 45). A push that changes the table is swapped in inside a View Transition,
// and what it moved travels from where it was to where it is now:
// - a piece that is a box of its own (data-piece, or data-track on a piece marked data-move) is named
//   for the transition, which carries it across the page: a company to its winner's tableau;
// - a piece drawn inside an SVG drawing (a <g> marked data-move, keyed by data-track) glides in its
//   drawing from its old place: a price marker along its arrow; one new on the page glides in from
//   the source it names (data-enter-from, a data-source's name): a market card from the deck;
// - a pile of like things with a count (data-pile, its kind; data-count; keyed by data-track) that
//   grew while another of its kind shrank sends a copy of its token (data-token) across: gems handed
//   over in a bargain, or taken from the bank;
// - a bid slip (data-flip) not on the table before turns over.
// Pushes arriving together (bots) play one after another, each with its log lines marked by bourse.js;
// a tap or a key skips to the end, and the tap that skips acts only on the control it came down on
// (the table under the finger may have changed). The overlay takes no pointer events, so input is never blocked. Nothing happens
// without the API, under prefers-reduced-motion, or while the tab is hidden: the push is swapped in at
// once, as htmx-ext-ws does by itself.
(function () {
  "use strict";

  if (typeof document.startViewTransition !== "function") {
    return;
  }
  var reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  var MOST_WAITING = 6;  // more pushes waiting than that: the table is behind, show where it is now
  var MOST_FLYING = 10;  // tokens in the air for one push: more is noise, not news
  var GLIDE_MS = 420;
  var EASE = "cubic-bezier(0.2, 0.7, 0.2, 1)";
  var SWALLOW_MS = 1000;  // the click of a tap that skipped comes within this
  var waiting = [];
  var playing = false;  // a push is playing: its transition, its moves, the pause after them
  var running = null;  // its View Transition
  var pause = null;
  var hurry = false;  // skipped: the push being played is swapped in without moving anything
  var moving = [];  // the animations started for the push being played
  var replaying = false;
  var noop = function () {};

  // The live socket htmx-ext-ws reads the room's pushes from. The extension's documented hook
  // htmx.createWebSocket makes it (bourse.js wraps it too), and the extension reads it with the
  // socket's "message" event: a push let through is dispatched to it again as the message it was, so
  // the extension (and bourse.js around it, on htmx:wsBeforeMessage/AfterMessage) swaps it in as
  // usual. (htmx.swap would morph it in too, but without those events.)
  var line = null;
  if (window.htmx && typeof htmx.createWebSocket === "function") {
    var openLine = htmx.createWebSocket;
    htmx.createWebSocket = function (url) {
      line = openLine(url);
      return line;
    };
  }

  function still() {
    return reduced.matches || document.visibilityState !== "visible";
  }

  // A push is held back only when it brings a move: new lines of the game log (not an answer to a
  // move, which bourse.js reads before anything else; not a chat line, a clock or the watchers).
  function bringsAMove(text) {
    return typeof text === "string" && text.indexOf("<") === 0 && text.indexOf("#event-list") >= 0;
  }

  // ------------------------------------------------------------ pieces the transition carries
  function drawnIn(element) {
    return element instanceof SVGElement && !(element instanceof SVGSVGElement);
  }

  function pieceName(element) {
    var key = element.getAttribute("data-piece") || element.getAttribute("data-track");
    return "piece-" + key.replace(/[^A-Za-z0-9_-]/g, "_");
  }

  // View-transition names must be unique on the page: the first piece of a key takes it. A piece
  // inside an SVG drawing is no box of its own: it glides in its drawing instead.
  function nameThePieces() {
    var taken = {};
    document.querySelectorAll("[data-piece], [data-move][data-track]").forEach(function (element) {
      var name = pieceName(element);
      if (taken[name] || drawnIn(element) || !element.getClientRects().length) {
        return;
      }
      taken[name] = true;
      element.style.viewTransitionName = name;
      element.classList.add("vt-piece");
    });
  }

  function unnameThePieces() {
    document.querySelectorAll(".vt-piece").forEach(function (element) {
      element.style.viewTransitionName = "";
      element.classList.remove("vt-piece");
    });
  }

  // ------------------------------------------------------------ where things were
  function shown(box) {
    return box.width > 0 || box.height > 0;
  }

  function centre(box) {
    return new DOMPoint(box.left + box.width / 2, box.top + box.height / 2);
  }

  function tokenOf(pile) {
    return pile.querySelector("[data-token]") || pile;
  }

  function measure() {
    var before = { pieces: {}, sources: {}, piles: {}, slips: {} };
    document.querySelectorAll("[data-move][data-track]").forEach(function (element) {
      var box = element.getBoundingClientRect();
      if (drawnIn(element) && shown(box)) {
        before.pieces[element.getAttribute("data-track")] = {
          drawing: element.ownerSVGElement, at: centre(box), frame: element.parentNode.getScreenCTM()
        };
      }
    });
    document.querySelectorAll("[data-source]").forEach(function (element) {
      var box = element.getBoundingClientRect();
      if (shown(box)) {
        before.sources[element.getAttribute("data-source")] = box;
      }
    });
    document.querySelectorAll("[data-pile][data-track]").forEach(function (element) {
      var box = tokenOf(element).getBoundingClientRect();
      before.piles[element.getAttribute("data-track")] = {
        count: Number(element.getAttribute("data-count")), box: shown(box) ? box : null
      };
    });
    document.querySelectorAll("[data-flip]").forEach(function (element) {
      before.slips[element.getAttribute("data-flip")] = true;
    });
    return before;
  }

  // ------------------------------------------------------------ moving them
  function started(animation, done) {
    moving.push(animation);
    animation.finished.catch(noop).then(done || noop);
    animation.addEventListener("cancel", done || noop);
    return animation;
  }

  // The transform a drawn piece has of its own (a transform attribute), which its glide ends on.
  function ownTransform(element) {
    var list = element.transform && element.transform.baseVal;
    if (!list || !list.numberOfItems) {
      return "";
    }
    var matrix = new DOMMatrix();
    for (var i = 0; i < list.numberOfItems; i += 1) {
      matrix = matrix.multiply(list.getItem(i).matrix);
    }
    return "matrix(" + [matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f].join(",") + ")";
  }

  // ``dx``, ``dy``: where the piece starts, from where it is, in its drawing's units (which its
  // transform uses: a drawing is scaled to its box, so a screen pixel is not one of them).
  function glideInDrawing(element, dx, dy, leaves) {
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) {
      return;
    }
    var own = ownTransform(element);
    var drawing = element.ownerSVGElement;
    if (leaves && drawing) {
      drawing.style.overflow = "visible";  // it comes from outside the drawing's box
    }
    started(element.animate(
      [{ transform: "translate(" + dx + "px," + dy + "px) " + own }, { transform: own || "none" }],
      { duration: GLIDE_MS, easing: EASE }
    ), function () {
      if (leaves && drawing) {
        drawing.style.overflow = "";
      }
    });
  }

  function glideThePieces(before) {
    document.querySelectorAll("[data-move][data-track]").forEach(function (element) {
      if (!drawnIn(element)) {
        return;
      }
      var box = element.getBoundingClientRect();
      if (!shown(box)) {
        return;
      }
      var frame = element.parentNode.getScreenCTM();
      if (!frame) {
        return;
      }
      var back = frame.inverse();
      var now = centre(box).matrixTransform(back);
      var old = before.pieces[element.getAttribute("data-track")];
      var from = null;
      var leaves = false;
      if (old && old.drawing === element.ownerSVGElement && old.frame) {
        from = old.at.matrixTransform(old.frame.inverse());  // within its drawing, wherever that now is
      } else if (old) {
        from = old.at.matrixTransform(back);  // from another drawing: across the screen
        leaves = true;
      } else if (before.sources[element.getAttribute("data-enter-from")]) {
        from = centre(before.sources[element.getAttribute("data-enter-from")]).matrixTransform(back);
        leaves = true;
      }
      if (from) {
        glideInDrawing(element, from.x - now.x, from.y - now.y, leaves);
      }
    });
  }

  // A copy of a token, looking as the token does wherever it is put (its look may come from its
  // ancestors: a gem's colour from its pile). Where it is and how it moves are the flight's own.
  var PLACING = /^(position|inset|top|right|bottom|left|margin|inline-size|block-size|min-|max-|width|height|transform|translate|rotate|scale|transition|animation|view-transition|z-index)/;

  function copyOf(token) {
    var copy = token.cloneNode(true);
    var look = window.getComputedStyle(token);
    for (var i = 0; i < look.length; i += 1) {
      if (!PLACING.test(look[i])) {
        copy.style.setProperty(look[i], look.getPropertyValue(look[i]));
      }
    }
    copy.removeAttribute("id");
    copy.removeAttribute("data-token");
    copy.setAttribute("aria-hidden", "true");
    copy.classList.add("flying-token");
    return copy;
  }

  function fly(token, from, to, delay) {
    var copy = copyOf(token);
    var place = {
      position: "fixed", left: to.left + "px", top: to.top + "px", width: to.width + "px",
      height: to.height + "px", margin: "0", zIndex: "40", pointerEvents: "none", transform: "none",
      viewTransitionName: "none"
    };
    Object.keys(place).forEach(function (name) { copy.style[name] = place[name]; });
    document.body.appendChild(copy);
    var dx = from.left - to.left;
    var dy = from.top - to.top;
    started(copy.animate(
      [{ transform: "translate(" + dx + "px," + dy + "px) scale(1.15)" }, { transform: "none" }],
      { duration: GLIDE_MS, delay: delay, easing: EASE, fill: "both" }
    ), function () { copy.remove(); });
  }

  // Each unit a pile of a kind gained came from a pile of that kind that lost one.
  function sendTheTokens(before) {
    var kinds = {};
    document.querySelectorAll("[data-pile][data-track]").forEach(function (element) {
      var old = before.piles[element.getAttribute("data-track")];
      var change = old ? Number(element.getAttribute("data-count")) - old.count : 0;
      if (!change) {
        return;
      }
      var kind = kinds[element.getAttribute("data-pile")] || { from: [], to: [] };
      kinds[element.getAttribute("data-pile")] = kind;
      for (var i = 0; i < Math.abs(change); i += 1) {
        if (change < 0) {
          kind.from.push(old.box);
        } else {
          kind.to.push(tokenOf(element));
        }
      }
    });
    var flights = [];
    Object.keys(kinds).forEach(function (name) {
      var kind = kinds[name];
      for (var i = 0; i < Math.min(kind.from.length, kind.to.length); i += 1) {
        var to = kind.to[i].getBoundingClientRect();
        if (kind.from[i] && shown(to)) {
          flights.push([kind.to[i], kind.from[i], to]);
        }
      }
    });
    flights.slice(0, MOST_FLYING).forEach(function (flight, index, all) {
      fly(flight[0], flight[1], flight[2], index * Math.min(70, 280 / all.length));
    });
  }

  function turnNewSlips(before) {
    document.querySelectorAll("[data-flip]").forEach(function (element) {
      if (!before.slips[element.getAttribute("data-flip")]) {
        element.classList.add("turning");
        window.setTimeout(function () { element.classList.remove("turning"); }, GLIDE_MS + 100);
      }
    });
  }

  function move(before) {
    glideThePieces(before);
    sendTheTokens(before);
    turnNewSlips(before);
  }

  // ------------------------------------------------------------ playing the pushes
  function swapIn(text) {
    if (!line) {
      return;
    }
    replaying = true;
    try {
      line.dispatchEvent(new MessageEvent("message", { data: text }));
    } finally {
      replaying = false;
    }
  }

  function swapAllWaiting() {
    while (waiting.length) {
      swapIn(waiting.shift());
    }
  }

  function rest() {
    document.documentElement.classList.remove("vt-playing");
  }

  function playNext() {
    if (playing) {
      return;
    }
    if (!waiting.length) {
      rest();
      return;
    }
    if (still() || waiting.length > MOST_WAITING) {
      swapAllWaiting();
      rest();
      return;
    }
    playing = true;
    hurry = false;
    var text = waiting.shift();
    document.documentElement.classList.add("vt-playing");
    nameThePieces();
    running = document.startViewTransition(function () {
      unnameThePieces();
      var before = hurry ? null : measure();
      swapIn(text);
      if (before && !hurry) {
        move(before);
      }
      nameThePieces();
    });
    running.ready.catch(noop);  // skipped (a tap): its end is what counts
    running.finished.catch(noop).then(function () {
      return Promise.all(moving.map(function (animation) { return animation.finished.catch(noop); }));
    }).then(function () {
      unnameThePieces();
      running = null;
      moving = [];
      pause = window.setTimeout(function () {  // the next push after this one's moves, in a task of its own
        pause = null;
        playing = false;
        playNext();
      }, 0);
    });
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var text = event.detail && event.detail.message;
    var idle = !waiting.length && !playing;
    if (replaying || (idle && (!bringsAMove(text) || still()))) {
      return;  // swapped in at once; while moves play, every push waits its turn behind them
    }
    event.preventDefault();
    waiting.push(text);
    playNext();
  }, true);

  // A tap or a key: the moves playing jump to their end, and what waits is swapped in at once.
  // Whether there was anything to skip.
  function skipToTheEnd() {
    if (!playing && !waiting.length) {
      return false;
    }
    hurry = true;
    moving.slice().forEach(function (animation) { animation.finish(); });
    if (running) {
      running.skipTransition();
      // the push being played is swapped in by its transition (at once, now): the rest after it
      running.updateCallbackDone.catch(noop).then(swapAllWaiting);
      return true;
    }
    if (pause) {
      window.clearTimeout(pause);
      pause = null;
      playing = false;
    }
    swapAllWaiting();
    rest();
    return true;
  }

  // The tap that skips: the table it ends on may have moved under the finger. Its click acts only on
  // the control the finger came down on (the same button, link or field: a push may have drawn it
  // afresh); when the finger comes up on another, the browser clicks what holds both, which the person
  // did not aim at: then the click acts on nothing, and the next tap acts as ever.
  var aimed = null;  // {control, until} of the pointerdown that skipped

  function controlOf(target) {
    var element = target instanceof Element ? target : null;
    var control = element && (element.closest("button, a, input, select, textarea, label, summary") || element);
    if (!control) {
      return "";
    }
    return [control.tagName, control.id, control.getAttribute("name"), control.getAttribute("value"),
      control.form ? control.form.id : "", control.textContent.replace(/\s+/g, " ").trim()].join("|");
  }

  document.addEventListener("pointerdown", function (event) {
    var control = controlOf(event.target);
    aimed = skipToTheEnd() ? { control: control, until: Date.now() + SWALLOW_MS } : null;
  }, true);
  document.addEventListener("click", function (event) {
    var was = aimed;
    aimed = null;
    if (was && Date.now() <= was.until && controlOf(event.target) !== was.control) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  document.addEventListener("keydown", skipToTheEnd, true);
  document.addEventListener("visibilitychange", skipToTheEnd);
  // The line closing: nothing waits for a socket that is gone (the table comes back when it opens).
  document.addEventListener("htmx:wsClose", function () {
    waiting = [];
  });
})();
