// Turn clocks and table chat: page glue only. The server renders every clock as its absolute
// deadline (data-deadline, epoch milliseconds; a paused one as the time it has left, data-left),
// a long clock's end also as an ISO time, and every chat message as HTML; this counts down, shows
// when a long clock runs out in the reader's time zone, and keeps the chat pleasant to use. Without it the forms still post and the pages still render.
(function () {
  "use strict";
  var store = window.localStorage;
  var skew = 0;  // server time minus this device's time, in milliseconds

  // ------------------------------------------------------------ clocks
  // A device's clock may be off by minutes: learn the server's from the Date header of one small
  // request (to the second, which is what a countdown shows).
  function learnServerTime() {
    if (!document.querySelector("[data-deadline]") && !document.getElementById("room")) {
      return;
    }
    var sent = Date.now();
    fetch("/healthz", { cache: "no-store" }).then(function (answer) {
      var date = Date.parse(answer.headers.get("date") || "");
      if (!isNaN(date)) {
        var received = Date.now();
        skew = date + 500 - (sent + received) / 2;  // a Date header is truncated to the second
        if (Math.abs(skew) < 1500) {
          skew = 0;  // closer than the header can tell: trust this device
        }
      }
    }).catch(function () { /* offline: count by this device's clock */ });
  }

  function format(ms) {
    var seconds = Math.max(0, Math.ceil(ms / 1000));
    var days = Math.floor(seconds / 86400);
    var hours = Math.floor((seconds % 86400) / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    function two(n) { return (n < 10 ? "0" : "") + n; }
    if (days) {  // "1d 23:59", in the page's language (base.html's data-clock-days: "1天 23:59")
      var pattern = document.body.getAttribute("data-clock-days") || "{days}d {time}";
      return pattern.replace("{days}", days).replace("{time}", hours + ":" + two(minutes));
    }
    if (hours) {
      return hours + ":" + two(minutes) + ":" + two(rest);
    }
    return minutes + ":" + two(rest);
  }

  // When a long clock runs out, in this reader's own time zone and language ("until Thu 14:05"):
  // the server writes the moment as an ISO time, the same for every reader.
  function localDeadline(iso) {
    var moment = new Date(iso);
    if (isNaN(moment.getTime())) {
      return "";
    }
    var options = { weekday: "short", hour: "2-digit", minute: "2-digit" };
    if (moment.getTime() - Date.now() > 6 * 86400000) {
      options.month = "short";
      options.day = "numeric";
    }
    var text = new Intl.DateTimeFormat(document.documentElement.lang || undefined, options).format(moment);
    var pattern = document.body.getAttribute("data-clock-until") || "until {time}";
    return pattern.replace("{time}", text);
  }

  function showLocalDeadlines() {
    var times = document.querySelectorAll("time.clock-until");
    for (var i = 0; i < times.length; i++) {
      var time = times[i];
      var iso = time.getAttribute("datetime");
      if (time.getAttribute("data-shown") !== iso) {
        time.textContent = localDeadline(iso);
        time.setAttribute("data-shown", iso);
      }
    }
  }

  function show(clock, left) {
    var shown = clock.querySelector(".clock-left") || clock;
    var text = format(left);
    if (shown.textContent !== text) {
      shown.textContent = text;
    }
  }

  function tick() {
    var now = Date.now() + skew;
    var clocks = document.querySelectorAll("[data-deadline]");
    for (var i = 0; i < clocks.length; i++) {
      var clock = clocks[i];
      var left = Number(clock.getAttribute("data-deadline")) - now;
      show(clock, left);
      clock.classList.toggle("clock-low", left > 0 && left <= 10000);
      clock.classList.toggle("clock-out", left <= 0);
    }
    var paused = document.querySelectorAll("[data-left]");  // the host paused the clock: it stands
    for (var j = 0; j < paused.length; j++) {
      show(paused[j], Number(paused[j].getAttribute("data-left")));
    }
    showLocalDeadlines();
  }

  // ------------------------------------------------------------ chat
  function chatList() {
    return document.getElementById("chat-list");
  }

  function scrollChat() {
    var list = chatList();
    if (list) {
      list.scrollTop = list.scrollHeight;
    }
  }

  function hidingSpectators() {
    var box = document.getElementById("chat-hide-spectators");
    return Boolean(box && box.checked);
  }

  // Messages pushed later carry no reader's controls: the host's page shows its mute buttons here
  // (not on the host's own messages), and a player who hid spectators' messages does not see new ones.
  function dressMessages() {
    var panel = document.getElementById("chat");
    if (!panel) {
      return;
    }
    var host = panel.getAttribute("data-host") === "yes";
    var mySeat = panel.getAttribute("data-seat");
    var hide = hidingSpectators();
    var lines = panel.querySelectorAll(".chat-line");
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i];
      var mute = line.querySelector(".chat-mute");
      if (mute) {
        mute.hidden = !host || (mySeat !== "" && line.getAttribute("data-seat") === mySeat);
      }
      if (line.classList.contains("from-spectator")) {
        line.hidden = hide;
      }
    }
  }

  function setUpChat() {
    var list = chatList();
    if (!list) {
      return;
    }
    var box = document.getElementById("chat-hide-spectators");
    if (box) {
      try {
        box.checked = store.getItem("bourse.hideSpectatorChat") === "1";
      } catch (e) { /* private mode */ }
      box.addEventListener("change", function () {
        try {
          store.setItem("bourse.hideSpectatorChat", box.checked ? "1" : "0");
        } catch (e) { /* private mode: the choice lasts this page */ }
        dressMessages();
      });
    }
    new MutationObserver(function () {
      dressMessages();
      scrollChat();
    }).observe(list, { childList: true });
    dressMessages();
    scrollChat();
  }

  // After a message is sent, empty the box (a spectator's name stays) and keep the focus there.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.id !== "chat-form" || !event.detail.successful) {
      return;
    }
    var text = form.elements.text;
    if (text) {
      text.value = "";
      text.focus({ preventScroll: true });
    }
  });

  // Pushes are not replayed: a tab whose WebSocket comes back fetches the messages it missed.
  var wasOffline = false;
  document.addEventListener("htmx:wsClose", function () { wasOffline = true; });
  document.addEventListener("htmx:wsOpen", function () {
    var list = chatList();
    var room = document.getElementById("room");
    if (!wasOffline || !list || !room) {
      return;
    }
    wasOffline = false;
    fetch("/r/" + encodeURIComponent(room.getAttribute("data-code")) + "/chat", { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html !== null) {
          list.innerHTML = html;  // our own escaped lines; the observer dresses and scrolls them
        }
      })
      .catch(function () { /* offline again: the next reconnection tries again */ });
  });

  document.addEventListener("DOMContentLoaded", function () {
    learnServerTime();
    tick();
    window.setInterval(tick, 250);
    setUpChat();
  });
})();
