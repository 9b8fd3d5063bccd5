// The service worker (issue 23): it shows the pushes the server sends when it is a player's turn
// (static/js/bourse.js subscribes from the room menu; app/web/push.py sends), and a tap on one opens
// its room; and it keeps the My games page for opening offline (the end of this file). Served from
// the site's root (/service-worker.js), so its scope is every page.
"use strict";

self.addEventListener("install", function () {
  self.skipWaiting();  // a new version takes over at once: it shows notifications and keeps one page
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

// A push is JSON: {title, body, url, tag, lang}, already in the player's language.
self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  event.waitUntil(self.registration.showNotification(data.title || "Bourse", {
    body: data.body || "",
    tag: data.tag || "bourse",
    renotify: true,  // the same room's newer turn replaces the old notification, and still rings
    lang: data.lang || "",
    icon: "/static/icons/favicon.svg",
    data: {url: data.url || "/"}
  }));
});

// The room a notification is about, on this site only.
function roomOf(notification) {
  var url = new URL((notification.data && notification.data.url) || "/", self.location.origin);
  return url.origin === self.location.origin ? url : new URL("/", self.location.origin);
}

// Bring the room's tab forward if one is open (and tell it, so it catches up at once: a phone may
// have left its connection asleep), else open the room.
function openRoom(url) {
  return self.clients.matchAll({type: "window", includeUncontrolled: true}).then(function (tabs) {
    for (var i = 0; i < tabs.length; i += 1) {
      if (new URL(tabs[i].url).pathname === url.pathname) {
        tabs[i].postMessage({kind: "bourse-opened", url: url.pathname});
        return tabs[i].focus();
      }
    }
    return self.clients.openWindow(url.href);
  });
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(openRoom(roomOf(event.notification)));
});

// ------------------------------------------------------------ My games offline (issue 23)
// The My games page opens from a home-screen icon without a connection: it and what it loads are
// kept in a cache, asked of the network first (a fresh list whenever online) and answered from the
// cache only when the network fails. No other request is touched: rooms, their sockets and the
// API always go to the server.
var OFFLINE_CACHE = "bourse-my-games-1";
var OFFLINE_PAGE = "/my-games";
var OFFLINE_ASSETS = [
  OFFLINE_PAGE,
  "/static/css/bourse.css",
  "/static/js/bourse.js",
  "/static/js/groups.js",
  "/static/js/my-games.js",
  "/static/icons/favicon.svg",
  "/static/manifest.json",
  "/vendor/htmx/htmx.min.js",
  "/vendor/htmx-ext-ws/ws.min.js"
];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(OFFLINE_CACHE).then(function (cache) {
    return cache.addAll(OFFLINE_ASSETS);
  }).catch(function () { /* offline at install: the page's next visit fills the cache */ }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("bourse-my-games-") === 0 && name !== OFFLINE_CACHE;
    }).map(function (name) { return caches.delete(name); }));
  }));
});

function keptOffline(url) {
  return url.origin === self.location.origin && OFFLINE_ASSETS.indexOf(url.pathname) !== -1;
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || !keptOffline(url)) {
    return;  // the browser fetches it as if there were no worker
  }
  event.respondWith(fetch(request).then(function (answer) {
    if (answer.ok) {
      var copy = answer.clone();
      caches.open(OFFLINE_CACHE).then(function (cache) { return cache.put(url.pathname, copy); });
    }
    return answer;
  }).catch(function () {
    return caches.match(url.pathname).then(function (kept) {
      return kept || Response.error();
    });
  }));
});
