// Small page glue; all game logic and state live on the server.
(function () {
  "use strict";
  var baseTitle = document.title;

  function markTitle() {
    var status = document.querySelector("#r-status [data-your-move]");
    var yours = status && status.getAttribute("data-your-move") === "yes";
    document.title = (yours ? "● " : "") + baseTitle;
  }

  // A personal link is /r/<code>/resume#<token>: the token stays out of every URL a server sees.
  // Take it from the fragment, drop the fragment from the address bar and history, and post it.
  function resumeFromLink() {
    var form = document.getElementById("resume-form");
    var token = window.location.hash.slice(1);
    if (!form || !token) {
      return;
    }
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    form.elements.token.value = decodeURIComponent(token);
    form.submit();
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (window.htmx) {
      // 4xx answers carry a readable message (and fresh regions) to swap in.
      htmx.config.responseHandling = [
        { code: "204", swap: false },
        { code: "[23]..", swap: true },
        { code: "4..", swap: true, error: false },
        { code: "...", swap: false, error: true }
      ];
    }
    markTitle();
    resumeFromLink();
    document.querySelectorAll("input.copy").forEach(function (input) {
      input.addEventListener("focus", function () { input.select(); });
    });
  });

  document.addEventListener("htmx:wsOpen", function () {
    document.body.classList.add("ws-online");
  });
  document.addEventListener("htmx:wsClose", function () {
    document.body.classList.remove("ws-online");
  });
  document.addEventListener("htmx:oobAfterSwap", markTitle);
  document.addEventListener("htmx:wsAfterMessage", markTitle);
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (event.detail.successful && form && form.tagName === "FORM" && form.dataset.reset !== "keep") {
      form.reset();
    }
  });
})();
