// What changed moves (issue 45): a push that changes the table is swapped in inside a View Transition,
// so the pieces that carry a key (data-piece, or data-track on a piece marked data-move) travel from
// where they were to where they are now — a company to its winner's tableau, a tulip card into a hand.
// Pushes arriving together (bots) play one after another, each with its log lines marked by bourse.js;
// a tap or a key skips to the end. The overlay takes no pointer events, so input is never blocked.
// Nothing happens without the API, under prefers-reduced-motion, or while the tab is hidden: the
// push is swapped in at once, as htmx-ext-ws does by itself.
(function () {
  "use strict";

  if (typeof document.startViewTransition !== "function") {
    return;
  }
  var reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  var MOST_WAITING = 6;  // more pushes waiting than that: the table is behind, show where it is now
  var waiting = [];
  var running = null;
  var replaying = false;

  function room() {
    return document.querySelector("[ws-connect]");
  }

  // The live socket htmx-ext-ws reads its messages from: a push let through is handed back to it
  // as the message it was, so the extension (and bourse.js around it) swaps it in as usual.
  function socketOf(element) {
    var internal = element && element["htmx-internal-data"];
    var wrapper = internal && internal.webSocket;
    return wrapper && wrapper.socket;
  }

  function still() {
    return reduced.matches || document.visibilityState !== "visible";
  }

  // A push is held back only when it brings a move: new lines of the game log (not an answer to a
  // move, which bourse.js reads before anything else; not a chat line, a clock or the watchers).
  function bringsAMove(text) {
    return typeof text === "string" && text.indexOf("<") === 0 && text.indexOf("#event-list") >= 0;
  }

  function pieceName(element) {
    var key = element.getAttribute("data-piece") || element.getAttribute("data-track");
    return "piece-" + key.replace(/[^A-Za-z0-9_-]/g, "_");
  }

  // View-transition names must be unique on the page: the first piece of a key takes it. A piece
  // inside an SVG drawing is no box of its own (bourse.js glides those in place instead).
  function nameThePieces() {
    var taken = {};
    document.querySelectorAll("[data-piece], [data-move][data-track]").forEach(function (element) {
      var name = pieceName(element);
      var inDrawing = element instanceof SVGElement && !(element instanceof SVGSVGElement);
      if (taken[name] || inDrawing || !element.getClientRects().length) {
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

  // A bid slip (data-flip) not on the table before this push turns over as it lands.
  function slipsShown() {
    var shown = {};
    document.querySelectorAll("[data-flip]").forEach(function (element) {
      shown[element.getAttribute("data-flip")] = true;
    });
    return shown;
  }

  function turnNewSlips(before) {
    document.querySelectorAll("[data-flip]").forEach(function (element) {
      if (!before[element.getAttribute("data-flip")]) {
        element.classList.add("turning");
        window.setTimeout(function () { element.classList.remove("turning"); }, 600);
      }
    });
  }

  function swapIn(text) {
    var socket = socketOf(room());
    if (!socket) {
      return;
    }
    replaying = true;
    try {
      socket.dispatchEvent(new MessageEvent("message", { data: text }));
    } finally {
      replaying = false;
    }
  }

  function swapAllWaiting() {
    while (waiting.length) {
      swapIn(waiting.shift());
    }
  }

  function playNext() {
    if (running || !waiting.length) {
      return;
    }
    if (still() || waiting.length > MOST_WAITING) {
      swapAllWaiting();
      return;
    }
    var text = waiting.shift();
    var slips = slipsShown();
    nameThePieces();
    document.documentElement.classList.add("vt-playing");
    running = document.startViewTransition(function () {
      unnameThePieces();
      swapIn(text);
      turnNewSlips(slips);
      nameThePieces();
    });
    running.finished.finally(function () {
      unnameThePieces();
      document.documentElement.classList.remove("vt-playing");
      running = null;
      playNext();
    });
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var text = event.detail && event.detail.message;
    var idle = !waiting.length && !running;
    if (replaying || (idle && (!bringsAMove(text) || still()))) {
      return;  // swapped in at once; while moves play, every push waits its turn behind them
    }
    event.preventDefault();
    waiting.push(text);
    playNext();
  }, true);

  // A tap or a key: the moves still playing jump to their end, and what waits is swapped in at once.
  function skipToTheEnd() {
    if (!running && !waiting.length) {
      return;
    }
    if (running) {
      running.skipTransition();
      // the push being played is swapped in by its transition (at once, now): the rest after it
      running.updateCallbackDone.finally(swapAllWaiting);
      return;
    }
    swapAllWaiting();
  }
  document.addEventListener("pointerdown", skipToTheEnd, true);
  document.addEventListener("keydown", skipToTheEnd, true);
  document.addEventListener("visibilitychange", skipToTheEnd);
  // The line closing: nothing waits for a socket that is gone (the table comes back when it opens).
  document.addEventListener("htmx:wsClose", function () {
    waiting = [];
  });
})();
