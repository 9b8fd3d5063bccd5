// My games (issue 23): page glue only. The list is server-rendered and htmx asks for it again
// every half minute; this says when that fails (offline: the page shows the list as last seen)
// and lets the service worker keep a copy, so the page opens from a home-screen icon offline.
(function () {
  "use strict";

  function note(offline) {
    var shown = document.getElementById("my-games-offline");
    if (shown) {
      shown.hidden = !offline;
    }
  }

  document.addEventListener("htmx:sendError", function () { note(true); });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "my-games-list") {
      note(false);
    }
  });
  window.addEventListener("offline", function () { note(true); });
  window.addEventListener("online", function () { note(false); });

  document.addEventListener("DOMContentLoaded", function () {
    note(navigator.onLine === false);
    if ("serviceWorker" in navigator) {  // the worker keeps this page for opening offline
      navigator.serviceWorker.register("/service-worker.js").catch(function () { /* no worker: online only */ });
    }
  });
})();
