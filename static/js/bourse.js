// Small page glue; all game logic and state live on the server. Everything here is an enhancement:
// without it the forms still post and the pages still render.
(function () {
  "use strict";
  var baseTitle = document.title;
  var store = window.localStorage;
  var reduceMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  function setting(name, fallback) {
    try {
      var value = store.getItem("bourse." + name);
      return value === null ? fallback : value === "1";
    } catch (e) {
      return fallback;
    }
  }

  function remember(name, on) {
    try {
      store.setItem("bourse." + name, on ? "1" : "0");
    } catch (e) { /* private mode: the choice lasts this page */ }
  }

  // ------------------------------------------------------------ your turn: title, icon, alerts
  function yourMove() {
    var status = document.querySelector("#r-status [data-your-move]");
    return Boolean(status && status.getAttribute("data-your-move") === "yes");
  }

  // The words a sighted person reads there: not what the stylesheet hides (the spectators' line on a
  // seat's page), nor the rules link's "?" and its label beside the decision.
  function shownText(node) {
    if (node.nodeType === Node.TEXT_NODE) {
      return node.nodeValue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || node.matches(".rules-help, [aria-hidden='true']") ||
        getComputedStyle(node).display === "none") {
      return "";
    }
    var text = "";
    node.childNodes.forEach(function (child) { text += shownText(child); });
    return text;
  }

  function promptText() {
    var prompt = document.querySelector("#r-status .status");
    return prompt ? shownText(prompt).replace(/\s+/g, " ").trim() : "";
  }

  var favicon = document.getElementById("favicon");
  var plainIcon = favicon ? favicon.href : null;
  var badgeIcon = null;

  function drawBadge(done) {
    if (badgeIcon || !plainIcon) {
      done();
      return;
    }
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = canvas.height = 64;
      var pen = canvas.getContext("2d");
      pen.drawImage(image, 0, 0, 64, 64);
      pen.fillStyle = "#d62828";
      pen.strokeStyle = "#ffffff";
      pen.lineWidth = 5;
      pen.beginPath();
      pen.arc(48, 16, 14, 0, 2 * Math.PI);
      pen.fill();
      pen.stroke();
      badgeIcon = canvas.toDataURL("image/png");
      done();
    };
    image.src = plainIcon;
  }

  function markTitle() {
    var yours = yourMove();
    var turn = document.body.getAttribute("data-turn-title") || "";
    document.title = yours ? "● " + turn + " · " + baseTitle : baseTitle;
    if (!favicon) {
      return;
    }
    if (yours) {
      drawBadge(function () { if (yourMove()) { favicon.href = badgeIcon; } });
    } else {
      favicon.href = plainIcon;
    }
  }

  var audio = null;

  function beep() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) {
      return;
    }
    audio = audio || new Context();
    [0, 0.18].forEach(function (start, index) {
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.frequency.value = index ? 880 : 660;
      gain.gain.setValueAtTime(0.0001, audio.currentTime + start);
      gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + start + 0.16);
      tone.connect(gain).connect(audio.destination);
      tone.start(audio.currentTime + start);
      tone.stop(audio.currentTime + start + 0.17);
    });
  }

  function alertTurn() {
    if (setting("alert-sound", false)) {
      beep();
    }
    if (!document.hidden) {
      return;
    }
    if (setting("alert-vibrate", true) && navigator.vibrate) {
      navigator.vibrate([120, 60, 120]);
    }
    if (setting("alert-notify", false) && window.Notification && Notification.permission === "granted") {
      var note = new Notification(document.body.getAttribute("data-turn-title") || baseTitle, {
        body: promptText(), tag: "bourse-turn", icon: plainIcon || undefined
      });
      note.onclick = function () { window.focus(); note.close(); };
    }
  }

  function setUpAlertSettings() {
    var box = document.getElementById("alert-settings");
    if (!box) {
      return;
    }
    box.querySelectorAll("input[type=checkbox]:not([data-push-key])").forEach(function (input) {
      input.checked = setting(input.name, input.defaultChecked);
      input.addEventListener("change", function () {
        remember(input.name, input.checked);
        if (input.name === "alert-sound" && input.checked) {
          beep();  // a sample, and browsers allow sound only after a gesture like this one
        }
        if (input.name === "alert-notify" && input.checked && window.Notification) {
          Notification.requestPermission().then(function (answer) {
            if (answer !== "granted") {
              input.checked = false;
              remember(input.name, false);
            }
          });
        }
      });
    });
  }

  // ------------------------------------------------------------ told of your turn with the tab closed
  // "Tell me when it's my turn" (issue 23): the browser's push subscription, made with the server's
  // VAPID key (data-push-key), is posted to the room; the service worker shows what the server pushes.
  // One browser has one subscription for all its rooms: turning a room off only tells that room.
  function pushKey(base64url) {
    var padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var key = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) { key[i] = raw.charCodeAt(i); }
    return key;
  }

  function pushSubscription(input) {
    return navigator.serviceWorker.register("/service-worker.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      var options = {userVisibleOnly: true, applicationServerKey: pushKey(input.getAttribute("data-push-key"))};
      return registration.pushManager.getSubscription().then(function (existing) {
        if (!existing) {
          return registration.pushManager.subscribe(options);
        }
        // Made with another key (the server's changed): only a new one reaches this server.
        var known = existing.options && existing.options.applicationServerKey;
        var same = !known || new Uint8Array(known).join() === options.applicationServerKey.join();
        return same ? existing : existing.unsubscribe().then(function () {
          return registration.pushManager.subscribe(options);
        });
      });
    });
  }

  function postPush(code, path, body) {
    return window.fetch("/r/" + code + path, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body),
      credentials: "same-origin"
    }).then(function (answer) {
      if (answer.ok) { return null; }
      return answer.json().then(function (refusal) { throw new Error(refusal.detail); });
    });
  }

  function setUpPush() {
    var input = document.querySelector("#alert-settings input[data-push-key]");
    if (!input || !("serviceWorker" in navigator) || !window.PushManager || !window.Notification) {
      return;  // the option stays hidden: this browser cannot be told with its tab closed
    }
    var code = input.getAttribute("data-room");
    var note = document.getElementById("push-note");
    var key = "bourse.push-endpoint." + code;  // the endpoint this room was last given: opted in
    input.closest(".push-option").hidden = false;

    function given() {
      try { return store.getItem(key); } catch (e) { return null; }
    }

    function noteGiven(endpoint) {
      try {
        if (endpoint) { store.setItem(key, endpoint); } else { store.removeItem(key); }
      } catch (e) { /* private mode: the choice lasts this page */ }
    }

    function say(text) {
      note.textContent = text || "";
      note.hidden = !text;
    }

    // The subscription posted to the room; ``renewing`` (a visit): only if the browser's has changed
    // since (a new server key, a subscription its push service dropped), so a visit costs no write.
    function turnOn(renewing) {
      return Notification.requestPermission().then(function (answer) {
        if (answer !== "granted") { throw new Error(input.getAttribute("data-blocked")); }
        return pushSubscription(input);
      }).then(function (subscription) {
        if (renewing && subscription.endpoint === given()) { return null; }
        return postPush(code, "/push", subscription.toJSON()).then(function () { noteGiven(subscription.endpoint); });
      });
    }

    input.checked = given() !== null && Notification.permission === "granted";
    if (input.checked) {
      turnOn(true).catch(function () { /* tried again at the next visit; the choice stays */ });
    }
    input.addEventListener("change", function () {
      say("");
      if (input.checked) {
        turnOn(false).then(function () { say(input.getAttribute("data-on")); }).catch(function (failure) {
          input.checked = false;
          say((failure && failure.message) || input.getAttribute("data-failed"));
        });
        return;
      }
      var endpoint = given();
      noteGiven(null);
      if (endpoint) {
        postPush(code, "/push/off", {endpoint: endpoint}).catch(function (failure) { say(failure.message); });
      }
    });
  }

  // A tap on this room's notification (static/js/service-worker.js): a line waiting to come back
  // comes back now, not after its back-off.
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.kind === "bourse-opened" && retry !== null && line) {
        reopen();
      }
    });
  }

  // ------------------------------------------------------------ what changed in a push
  // Whether the game waits for the seat a tracked piece stands for (data-turn-seat): the page shows
  // that from the turn region (bourse.css, "whose turn it is"), not from the piece's own text.
  function waitedFor(element) {
    var seat = element.getAttribute("data-turn-seat");
    var holder = seat === null ? null : element.closest("[data-viewer-seat]");
    var marks = holder ? holder.querySelector(".turn-marks") : null;
    return marks ? (marks.getAttribute("data-to-act") || "").split(" ").indexOf(seat) >= 0 : null;
  }

  // Every piece the page tracks (data-track) as it stands: what a push changed in it is marked.
  // (What moved travels: motion.js.)
  function tracked() {
    var found = {};
    document.querySelectorAll("[data-track]").forEach(function (element) {
      found[element.getAttribute("data-track")] = {
        element: element,
        text: element.textContent.replace(/\s+/g, " ").trim(),
        value: element.getAttribute("data-value"),
        waited: waitedFor(element)
      };
    });
    return found;
  }

  function flash(element) {
    element.classList.remove("changed");
    // restart the animation when it changes twice in a row: a layout read between the class's removal
    // and its return (getBoundingClientRect, which SVG elements have too; offsetWidth is HTML's only)
    element.getBoundingClientRect();
    element.classList.add("changed");
    window.setTimeout(function () { element.classList.remove("changed"); }, 2600);
  }

  function markChanges(before) {
    var after = tracked();
    Object.keys(after).forEach(function (key) {
      var old = before[key];
      var now = after[key];
      // New on the page: nothing to compare. A push morphs its regions (idiomorph): a piece that
      // stays is the same element, changed in place.
      if (old && (old.text !== now.text || old.value !== now.value || old.waited !== now.waited)) {
        flash(now.element);
      }
    });
  }

  // What a person has typed or ticked survives a push that redraws its form.
  function typed() {
    var kept = {};
    document.querySelectorAll("form[id]").forEach(function (form) {
      var values = {};
      Array.prototype.forEach.call(form.elements, function (input) {
        if (!input.name || input.type === "hidden") {
          return;
        }
        if ((input.type === "checkbox" || input.type === "radio") && input.checked !== input.defaultChecked) {
          values[input.name + "=" + input.value] = input.checked;
        } else if (input.value !== undefined && "defaultValue" in input && input.value !== input.defaultValue) {
          values[input.name] = input.value;
        }
      });
      kept[form.id] = { form: form, values: values };
    });
    var focus = document.activeElement;
    kept.focus = focus && focus.form && focus.form.id ? { form: focus.form.id, name: focus.name } : null;
    kept.armed = Array.prototype.map.call(document.querySelectorAll("button.armed"), function (button) {
      return { form: button.form ? button.form.id : "", question: button.getAttribute("data-confirm") };
    });
    return kept;
  }

  function restoreTyped(kept) {
    // A button waiting for its second tap still waits when a push redraws it (others moved meanwhile).
    kept.armed.forEach(function (was) {
      var form = was.form && document.getElementById(was.form);
      var button = form && form.querySelector("button[data-confirm]");
      if (button && !button.classList.contains("armed") && button.getAttribute("data-confirm") === was.question) {
        arm(button);
      }
    });
    Object.keys(kept).forEach(function (id) {
      if (id === "focus" || id === "armed") {
        return;
      }
      // A morph keeps the form but takes its fields back to the values they were sent with.
      var form = document.getElementById(id);
      if (!form) {
        return;
      }
      Object.keys(kept[id].values).forEach(function (key) {
        var value = kept[id].values[key];
        if (typeof value === "boolean") {
          var parts = key.split("=");
          var box = form.querySelector("[name='" + CSS.escape(parts[0]) + "'][value='" + CSS.escape(parts.slice(1).join("=")) + "']");
          if (box) { box.checked = value; }
        } else {
          var input = form.elements.namedItem(key);
          if (input && input.value === input.defaultValue && !input.disabled) {
            input.value = value;
          }
        }
      });
    });
    if (kept.focus) {
      var form = document.getElementById(kept.focus.form);
      var input = form && kept.focus.name ? form.elements.namedItem(kept.focus.name) : null;
      if (input && input.focus && document.activeElement === document.body) {
        input.focus();
      }
    }
  }

  // ------------------------------------------------------------ the game log
  var logOpen = false;
  var unread = 0;

  function logList() {
    return document.getElementById("event-list");
  }

  function scrollLog(list) {
    list.scrollTop = list.scrollHeight;
    var drawer = document.getElementById("r-events");
    if (drawer) { drawer.scrollTop = drawer.scrollHeight; }
  }

  function setUpLog() {
    var log = document.getElementById("r-events");
    var toggle = document.getElementById("log-toggle");
    if (!log || !toggle) {
      return;
    }
    var label = toggle.getAttribute("data-label") || toggle.textContent;
    toggle.setAttribute("data-label", label);
    var shown = !log.hidden;
    toggle.hidden = !shown;
    document.body.classList.toggle("has-drawer", shown);
    toggle.textContent = unread ? label + " (" + unread + ")" : label;
    var list = logList();
    if (list) { scrollLog(list); }
  }

  function toggleLog(open) {
    var toggle = document.getElementById("log-toggle");
    logOpen = open;
    document.body.classList.toggle("log-open", open);
    if (toggle) { toggle.setAttribute("aria-expanded", open ? "true" : "false"); }
    if (open) {
      unread = 0;
      setUpLog();
      var list = logList();
      if (list) { scrollLog(list); }
    }
  }

  function newLines(before) {
    var list = logList();
    if (!list) {
      return;
    }
    var lines = list.querySelectorAll("li");
    var added = Array.prototype.slice.call(lines, Math.min(before, lines.length));
    if (!added.length || before === 0) {
      scrollLog(list);
      return;
    }
    added.forEach(function (line) {
      line.classList.add("fresh");
      window.setTimeout(function () { line.classList.remove("fresh"); }, 5000);
    });
    scrollLog(list);
    var latest = document.getElementById("latest-events");
    if (latest) {
      latest.textContent = added.slice(-3).map(function (line) { return line.textContent.trim(); }).join(" · ");
      latest.hidden = false;
    }
    if (!logOpen) {
      unread += added.length;
      setUpLog();
    }
  }

  // ------------------------------------------------------------ a push morphs its regions
  // The server sends each changed region whole, marked hx-swap-oob="morph": htmx's idiomorph
  // extension morphs the region on the page into it, keeping the elements that stay (their focus,
  // CSS transitions, the page's own marks). What the person opened stays open.
  if (window.Idiomorph) {
    Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, element, change) {
      return !(name === "open" && change === "remove" && element.tagName === "DETAILS");
    };
  }

  // ------------------------------------------------------------ whose page this is
  // Public regions are the same for every viewer; the page marks its own seat (data-viewer-seat on
  // the room, or on a replay's frame) so "you" shows there and the host's buttons skip it. A game's
  // public region marks a seat's row or piece with data-seat-row: the viewer's gets "you" too.
  function markViewer() {
    document.querySelectorAll(".seat[data-seat], [data-seat-row]").forEach(function (seat) {
      var holder = seat.closest("[data-viewer-seat]");
      var number = seat.hasAttribute("data-seat-row") ? seat.getAttribute("data-seat-row") : seat.getAttribute("data-seat");
      var mine = holder !== null && holder.getAttribute("data-viewer-seat") === number;
      seat.classList.toggle("you", mine);
    });
  }
  // A pushed region is morphed to the classes it was sent with, "you" not among them: marked again
  // at once, in the same task, so the mark never shows gone.
  document.addEventListener("htmx:afterSwap", markViewer);
  document.addEventListener("htmx:oobAfterSwap", markViewer);

  // ------------------------------------------------------------ rules at the table
  // The "?" beside a decision loads that phase's rules into the room's dialog (hx-get); opened modal,
  // it keeps the focus until closed (Esc, its Close button or a tap beside it), and a push that
  // redraws the status underneath does not close it.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "rules-dialog-body") return;
    var dialog = document.getElementById("rules-dialog");
    if (dialog && !dialog.open && dialog.showModal) dialog.showModal();
  });
  document.addEventListener("click", function (event) {
    var dialog = event.target.id === "rules-dialog" ? event.target : null;
    if (!dialog) return;
    var box = dialog.getBoundingClientRect();  // the dialog itself is the target inside its padding too
    var outside = event.clientX < box.left || event.clientX > box.right || event.clientY < box.top || event.clientY > box.bottom;
    if (outside) dialog.close();  // a tap on the backdrop, beside the box
  });

  // ------------------------------------------------------------ tooltips on a tap
  // Every piece with a name or a value carries a title (an SVG piece: its own <title>). A mouse shows
  // it on hover and a screen reader reads it; phones have no hover, so a tap on the piece shows it
  // in a bubble under it until the next tap, a scroll or a push. Controls keep their own tap.
  var tapTip = null;
  function hideTapTip() {
    if (tapTip) tapTip.remove();
    tapTip = null;
  }
  function titled(element) {
    for (var node = element; node && node !== document.body; node = node.parentElement) {
      if (node.matches("a, button, input, select, textarea, summary, label, dialog")) return null;
      if (node.getAttribute("title")) return { node: node, text: node.getAttribute("title") };
      // (a <title> with an id names a whole figure for aria-labelledby: not a piece's tooltip)
      var own = node instanceof SVGElement ? node.querySelector(":scope > title:not([id])") : null;
      if (own && own.textContent.trim()) return { node: node, text: own.textContent.trim() };
    }
    return null;
  }
  document.addEventListener("click", function (event) {
    hideTapTip();
    var found = titled(event.target);
    if (!found) return;
    tapTip = document.createElement("div");
    tapTip.className = "tap-tip";
    tapTip.setAttribute("aria-hidden", "true");  // the title already is the piece's description
    tapTip.textContent = found.text;
    document.body.appendChild(tapTip);
    var box = found.node.getBoundingClientRect();
    var widest = document.documentElement.clientWidth - tapTip.offsetWidth - 4;
    tapTip.style.left = (window.scrollX + Math.max(4, Math.min(box.left, widest))) + "px";
    tapTip.style.top = (window.scrollY + box.bottom + 4) + "px";
  });
  window.addEventListener("scroll", hideTapTip, { passive: true });
  document.addEventListener("htmx:wsAfterMessage", hideTapTip);

  // ------------------------------------------------------------ one push
  var before = null;

  document.addEventListener("htmx:wsBeforeMessage", function () {
    var list = logList();
    before = {
      tracked: tracked(),
      typed: typed(),
      lines: list ? list.querySelectorAll("li").length : 0,
      yours: yourMove(),
      prompt: promptText(),
      lobby: Boolean(document.getElementById("r-lobby"))
    };
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!before) {
      markTitle();
      return;
    }
    var was = before;
    before = null;
    markChanges(was.tracked);
    restoreTyped(was.typed);
    newLines(was.lines);
    setUpLog();
    markTitle();
    var prompt = promptText();
    if (prompt !== was.prompt) {
      var announcer = document.getElementById("announcer");
      if (announcer) { announcer.textContent = prompt; }
    }
    if (yourMove() && !was.yours) {
      alertTurn();
    }
    var menu = document.getElementById("room-menu");
    if (menu && was.lobby && !document.getElementById("r-lobby")) {
      menu.open = false;  // the game started: the invite folds away, the table comes first
    }
  });

  // ------------------------------------------------------------ your own clock, beside "Your turn"
  // groups.js counts every clock down and marks it clock-low under 10 s; a screen reader hears that
  // once per decision (a role=timer is never read out by itself).
  var warnedFor = null;

  function warnClock() {
    var clock = document.querySelector("#r-status .status-clock.clock-low");
    var deadline = clock ? clock.getAttribute("data-deadline") : null;
    if (!clock || deadline === warnedFor) {
      return;
    }
    warnedFor = deadline;
    var announcer = document.getElementById("announcer");
    if (announcer) { announcer.textContent = clock.getAttribute("data-low-warning") || ""; }
  }

  // ------------------------------------------------------------ confirm a one-tap irreversible action
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-confirm]");
    if (!button) {
      return;
    }
    if (button.classList.contains("armed")) {
      window.setTimeout(function () { disarm(button); }, 0);
      return;  // the second tap: let it submit
    }
    event.preventDefault();
    event.stopPropagation();
    document.querySelectorAll("button.armed").forEach(disarm);
    arm(button);
  }, true);

  document.addEventListener("pointerdown", function (event) {
    document.querySelectorAll("button.armed").forEach(function (button) {
      if (!button.contains(event.target)) { disarm(button); }
    });
  }, true);

  function arm(button) {
    button.setAttribute("data-label", button.innerHTML);
    button.textContent = button.getAttribute("data-confirm");
    button.classList.add("armed");
    button.setAttribute("aria-live", "polite");
    // Long enough to read the question (4 s was not, for the newcomer trial); a tap elsewhere disarms it.
    button._bourseDisarm = window.setTimeout(function () { disarm(button); }, 10000);
  }

  function disarm(button) {
    if (!button.classList.contains("armed")) {
      return;
    }
    window.clearTimeout(button._bourseDisarm);
    button.classList.remove("armed");
    button.innerHTML = button.getAttribute("data-label");
    button.removeAttribute("aria-live");
  }

  // ------------------------------------------------------------ a refused form: the message at its control
  function refusalText(xhr) {
    var text = xhr.responseText || "";
    try {
      var parsed = new DOMParser().parseFromString(text, "text/html");
      var flashed = parsed.querySelector(".flash");
      if (flashed && flashed.textContent.trim()) {
        return flashed.textContent.trim();
      }
    } catch (e) { /* not HTML */ }
    return "";
  }

  function clearFlash() {
    var region = document.getElementById("r-flash");
    if (region) {
      region.querySelectorAll(".flash").forEach(function (note) { note.remove(); });
    }
  }

  function clearControlError(form) {
    form.querySelectorAll(".control-error").forEach(function (note) { note.remove(); });
    form.querySelectorAll("[aria-invalid]").forEach(function (input) {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    });
  }

  function showControlError(form, message) {
    clearControlError(form);
    var note = document.createElement("p");
    note.className = "control-error";
    note.setAttribute("role", "alert");
    note.id = (form.id || "form") + "-error";
    note.textContent = message;
    form.appendChild(note);
    var inputs = form.querySelectorAll("input:not([type=hidden]), select, textarea");
    inputs.forEach(function (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", note.id);
    });
    if (note.scrollIntoView) {
      note.scrollIntoView({ block: "nearest", behavior: reduceMotion ? "auto" : "smooth" });
    }
    if (inputs.length && inputs[0].focus) {
      inputs[0].focus({ preventScroll: true });
    }
  }

  // What a form's answer means for it: posted (htmx:afterRequest) or a move sent over the live line.
  // The page is told either way ("bourse:answered", with the status: on the form, or on the
  // document once the new table has replaced the form).
  function settle(form, status, message) {
    var told = document.body.contains(form) ? form : document;
    told.dispatchEvent(new CustomEvent("bourse:answered", { bubbles: true, detail: { status: status } }));
    if (status >= 400) {
      if (status === 409) {
        catchUp(message);  // the table is redrawn, this form with it: the flash keeps the message
      } else if (message) {
        showControlError(form, message);
        clearFlash();  // shown once, at the control
      }
      return;  // what was typed stays, to be corrected
    }
    clearControlError(form);
    // A move was sent: its form starts afresh. A form that only fetches (the replay's slider) keeps its values.
    if (form.hasAttribute("hx-post") && form.dataset.reset !== "keep") {
      form.reset();
    }
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.tagName !== "FORM") {
      return;
    }
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (status >= 400 && status < 500) {
      settle(form, status, refusalText(event.detail.xhr));
    } else if (event.detail.successful) {
      settle(form, status, "");
    }
  });

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
    markViewer();
    markTitle();
    resumeFromLink();
    setUpAlertSettings();
    setUpPush();
    setUpLog();
    var toggle = document.getElementById("log-toggle");
    if (toggle) {
      toggle.addEventListener("click", function () { toggleLog(!logOpen); });
    }
    var latest = document.getElementById("latest-events");
    if (latest) {
      latest.addEventListener("click", function () {
        if (toggle && !toggle.hidden && window.getComputedStyle(toggle).display !== "none") {
          toggleLog(true);  // a phone: the drawer opens on the newest lines
        } else {
          var list = logList();
          if (list) { list.focus({ preventScroll: true }); scrollLog(list); }
        }
      });
    }
    window.setInterval(warnClock, 500);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && logOpen) { toggleLog(false); }
    });
    document.querySelectorAll("input.copy").forEach(function (input) {
      input.addEventListener("focus", function () { input.select(); });
    });
  });

  // ------------------------------------------------------------ the live line comes back by itself
  // The ws extension reopens a socket only after 1006, 1011, 1012 and 1013, but the server closes a tab
  // that fell too far behind with 4408 (and a proxy in between may say anything). Every close but a
  // refusal reopens here, after a back-off with jitter (a crowd of tabs must not come back at once),
  // and the new socket names the version the tab shows (?v=): the server sends what changed since.
  var EXTENSION_REOPENS = [1006, 1011, 1012, 1013];
  // The server's refusals (another site's page, an unknown room) are final. It sends them before the
  // handshake, though, which a browser reports as 1006: the extension retries those, within the back-off.
  var REFUSALS = [4403, 4404];
  var FIRST_RETRY_MS = 1000;
  var LONGEST_RETRY_MS = 30000;
  var attempts = 0;  // connection attempts since the line was last open
  var socket = null;  // the socket opened last: the close of one it replaced is no news
  var line = null;  // the extension's wrapper of it, whose reconnect() opens a new one
  var retry = null;  // our own pending reopening
  var shownVersion = null;  // the room version the last push brought
  var refusedBecauseStale = null;  // the message of a refusal that made this tab catch up
  // A line closed longer than this comes back with "while you were away" (?away=: the log lines shown).
  var AWAY_AFTER_MS = 30000;
  var closedAt = null;  // when the open line last closed

  function retryDelay() {
    var ceiling = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * Math.pow(2, attempts));
    return ceiling / 2 + Math.random() * ceiling / 2;
  }

  // A page opened again (a reload, the personal link, taking a seat back) is told what happened since
  // this browser last showed the room: it keeps, per room and seat, how many log lines it showed.
  var roomBox = document.getElementById("room");
  var seenKey = roomBox ? "bourse-seen:" + roomBox.getAttribute("data-code") + ":" + roomBox.getAttribute("data-viewer-seat") : null;
  function linesShown() { return document.querySelectorAll("#event-list > li").length; }
  function rememberLinesShown() {
    if (!seenKey || !document.getElementById("event-list")) return;
    try { window.localStorage.setItem(seenKey, String(linesShown())); } catch (error) { /* storage off: no note */ }
  }
  var seenBefore = null;  // the lines shown at this browser's last visit, when fewer than now
  try {
    var stored = seenKey ? window.localStorage.getItem(seenKey) : null;
    if (stored !== null && /^\d+$/.test(stored) && Number(stored) < linesShown()) seenBefore = Number(stored);
  } catch (error) { /* storage off */ }
  rememberLinesShown();
  document.addEventListener("htmx:wsAfterMessage", rememberLinesShown);

  if (window.htmx && htmx.createWebSocket) {
    var openSocket = htmx.createWebSocket;
    htmx.createWebSocket = function (url) {
      var address = new URL(url, window.location.href);
      if (shownVersion !== null) {
        address.searchParams.set("v", shownVersion);
      }
      if (seenBefore !== null) {
        address.searchParams.set("away", String(seenBefore));
        address.searchParams.set("back", "1");
        seenBefore = null;
      } else if (closedAt !== null && Date.now() - closedAt > AWAY_AFTER_MS) {
        address.searchParams.set("away", String(linesShown()));
      }
      socket = openSocket(address.href);
      return socket;
    };
    htmx.config.wsReconnectDelay = retryDelay;  // the extension's own reopenings wait as ours do
  }

  function reopen() {
    window.clearTimeout(retry);
    retry = null;
    line.reconnect();
  }

  // A 409 (a stale version, a double submit, a room in another state) means the table shown is old:
  // an open line is reopened now, and the server sends the table as it is. A line that is opening,
  // or that the extension retries, brings it when it opens.
  function catchUp(message) {
    refusedBecauseStale = message;
    if (socket && socket.readyState === WebSocket.OPEN) {
      line.reconnect();
    } else if (retry !== null) {
      reopen();
    }
  }

  document.addEventListener("htmx:wsConnecting", function () {
    attempts += 1;
  });
  document.addEventListener("htmx:wsOpen", function (event) {
    attempts = 0;
    closedAt = null;
    line = event.detail.socketWrapper;
    document.body.classList.add("ws-online");
  });
  document.addEventListener("htmx:wsClose", function (event) {
    var closed = event.detail.event;
    if (closed.target !== socket) {
      return;
    }
    line = event.detail.socketWrapper;
    document.body.classList.remove("ws-online");
    if (closedAt === null) {
      closedAt = Date.now();
    }
    var reopensItself = EXTENSION_REOPENS.indexOf(closed.code) >= 0;
    if (!reopensItself && REFUSALS.indexOf(closed.code) < 0 && document.body.contains(event.target)) {
      retry = window.setTimeout(reopen, retryDelay());
    }
  });
  // ------------------------------------------------------------ moves over the live line
  // While the line is open a move's form is sent over it (app/web/moves.py) instead of posted: the
  // same fields, checked and refused alike, without an HTTP request. The table comes by the line as
  // ever, then a word on the move, which the form takes as it would a post's answer. Without the
  // line (or without JavaScript) the form posts as before.
  var MOVE_PATH = /^\/r\/[^\/]+\/act$/;
  // A line that looks open may be dead (a phone changed networks): a move it has not answered by
  // then is posted after all, and the line reopened. Played already, the post is refused as stale.
  var ANSWER_WITHIN_MS = 8000;
  var movesSent = 0;
  var unanswered = {};  // move number -> {form, fields, timer}, until the line answers

  function waitingForAnswer(form) {
    return Object.keys(unanswered).some(function (number) { return unanswered[number].form === form; });
  }

  function postInstead(number, path) {
    var move = unanswered[number];
    delete unanswered[number];
    if (line) {
      line.reconnect();
    }
    var body = new URLSearchParams();
    move.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    fetch(path, { method: "POST", body: body, headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (answer) {
        return answer.text().then(function (text) {
          settle(move.form, answer.status, refusalText({ responseText: text }));
        });
      })
      .catch(function () { /* offline: the line brings the table when it comes back */ });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig;
    var form = event.detail.elt;
    if (!config || config.verb !== "post" || !socket || socket.readyState !== WebSocket.OPEN ||
        !MOVE_PATH.test(new URL(config.path, window.location.href).pathname)) {
      return;
    }
    event.preventDefault();  // htmx does not post it
    if (waitingForAnswer(form)) {
      return;  // a second press while the first is on its way: one move, as a post would be
    }
    var fields = [];
    config.formData.forEach(function (value, name) {
      if (typeof value === "string") {
        fields.push([name, value]);
      }
    });
    movesSent += 1;
    var number = movesSent;
    unanswered[number] = {
      form: form,
      fields: fields,
      timer: window.setTimeout(function () { postInstead(number, config.path); }, ANSWER_WITHIN_MS)
    };
    socket.send(JSON.stringify({ move: number, fields: fields }));
  });

  // Answers are read before anything else looks at a message (they are no page to swap in).
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var text = event.detail.message;
    if (typeof text !== "string" || text.indexOf('{"move"') !== 0) {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    var answer;
    try {
      answer = JSON.parse(text);
    } catch (error) {
      return;
    }
    var move = unanswered[answer.move];
    delete unanswered[answer.move];
    if (move) {
      window.clearTimeout(move.timer);
      settle(move.form, answer.status, answer.message);
    }
  }, true);

  // A line that closes takes its unanswered moves with it: the table it brings back when it opens
  // again shows whether they were played.
  document.addEventListener("htmx:wsClose", function () {
    Object.keys(unanswered).forEach(function (number) { window.clearTimeout(unanswered[number].timer); });
    unanswered = {};
  });

  // The "while you were away" note (one per return: a newer one replaces it) goes when dismissed.
  document.addEventListener("click", function (event) {
    var dismiss = event.target.closest && event.target.closest(".away-dismiss");
    if (dismiss) {
      dismiss.closest(".away-note").remove();
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var notes = document.querySelectorAll(".away-note");
    for (var i = 0; i < notes.length - 1; i += 1) {
      notes[i].remove();
    }
    var stamp = document.querySelector("#r-flash[data-room-version]");
    if (!stamp) {
      return;
    }
    shownVersion = stamp.getAttribute("data-room-version");
    if (refusedBecauseStale) {
      // The table came back with a version stamp that clears old messages: this one is still news.
      var note = document.createElement("div");
      note.className = "flash";
      note.setAttribute("role", "alert");
      note.textContent = refusedBecauseStale;
      stamp.replaceChildren(note);
      refusedBecauseStale = null;
    }
  });
})();
