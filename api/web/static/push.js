// Push to this device (issue 31; api/web/push.py): register the service worker, ask the browser's permission and a
// push subscription for the service's VAPID key, put the subscription in the form's hidden fields and post the form.
(function () {
  function key(text) {  // base64url -> bytes, the applicationServerKey
    var b64 = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function start() {
    var form = document.getElementById("push");
    if (!form) { return; }
    var status = document.getElementById("push-status"), button = document.getElementById("push-on");
    document.getElementById("push-needs-js").hidden = true;
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
      status.textContent = form.dataset.wUnsupported;
      return;
    }
    button.hidden = false;
    form.addEventListener("submit", function (event) {
      if (form.elements.endpoint.value) { return; }  // filled in: the form goes as it is
      event.preventDefault();
      status.textContent = form.dataset.wWorking;
      navigator.serviceWorker.register("/sw.js", { scope: "/" })
        .then(function () { return navigator.serviceWorker.ready; })
        .then(function (registration) {
          return Notification.requestPermission().then(function (permission) {
            if (permission !== "granted") { throw new Error("denied"); }
            return registration.pushManager.getSubscription();
          }).then(function (found) {
            return found || registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(form.dataset.key) });
          });
        })
        .then(function (subscription) {
          var json = subscription.toJSON();
          form.elements.endpoint.value = json.endpoint;
          form.elements.p256dh.value = json.keys.p256dh;
          form.elements.auth.value = json.keys.auth;
          form.submit();
        })
        .catch(function (error) {
          status.textContent = error && error.message === "denied" ? form.dataset.wDenied
            : form.dataset.wFailed + " " + ((error && (error.name + ": " + error.message)) || "");
        });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
