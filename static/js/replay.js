// The replay's keys: ← and → step back and forth, Home and End go to the first and last move (the
// links do the same without this script). Keys typed into a field, or with a modifier, are left alone.
// The address bar is always the step and seat drawn: each htmx step pushes the server's own address
// for it (HX-Push-Url), and a page opened at another (no step, a step past the end) is replaced by it,
// so Reload, Back and a copied link show what was on the screen.
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
  function settleAddress() {
    var frame = document.getElementById("replay-frame");
    var address = frame && frame.getAttribute("data-address");
    if (address && location.pathname + location.search !== address) {
      history.replaceState(history.state, "", address + location.hash);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", settleAddress);
  else settleAddress();
})();
