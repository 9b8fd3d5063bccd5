// The service worker (issue 23): it shows the pushes the server sends when it is a player's turn
// (static/js/bourse.js subscribes from the room menu; app/web/push.py sends), and a tap on one opens
// its room. Served from the site's root (/service-worker.js), so its scope is every page.
"use strict";

self.addEventListener("install", function () {
  self.skipWaiting();  // a new version takes over at once: it only shows notifications
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
