// The replay's keys: ← and → step back and forth, Home and End go to the first and last move (the
// links do the same without this script). Keys typed into a field, or with a modifier, are left alone.
(function () {
  "use strict";
  var keys = { ArrowLeft: "replay-prev", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last" };
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (target && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(target.tagName)) return;
    var link = keys[event.key] && document.getElementById(keys[event.key]);
    if (!link || link.getAttribute("aria-disabled") === "true") return;
    event.preventDefault();
    link.click();
  });
})();
