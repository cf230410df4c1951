// Emissary's service worker (issue 31; served at /sw.js, scope: the whole site): a push becomes a notification, and
// clicking it opens the seat's board. A push's message is JSON: {title, body, url, tag}, made by application/push.py.
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

// Only a page of this site ("/play/<game>", or its whole address): anything else opens My games.
function boardUrl(url) {
  var found = null;
  try { found = new URL(typeof url === "string" ? url : "/me", self.location.origin); } catch (e) { found = null; }
  return found && found.origin === self.location.origin ? found.href : new URL("/me", self.location.origin).href;
}
self.boardUrl = boardUrl;

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { body: event.data ? event.data.text() : "" }; }
  event.waitUntil(self.registration.showNotification(String(data.title || "Emissary"), {
    body: String(data.body || ""),
    tag: data.tag ? String(data.tag) : undefined,
    icon: "/static/icon-192.png",
    data: { url: boardUrl(data.url) }
  }));
});

// The board: a window of it already open is focused, else one is opened.
function openBoard(url) {
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (windows[i].url === url && "focus" in windows[i]) { return windows[i].focus(); }
    }
    return self.clients.openWindow(url);
  });
}
self.openBoard = openBoard;

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(openBoard(boardUrl(event.notification.data && event.notification.data.url)));
});
