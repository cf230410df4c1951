// Little JavaScript: a countdown next to each deadline, and a live preview of conversions.
(function () {
  // The words come from the page (data-w-* on <body>, translated there), with English if a page has none.
  var english = { closed: "closed", in: "in {time}", dhm: "{d} d {h} h {m} min", hm: "{h} h {m} min", copied: "Copied",
    previewOne: "{s} successes, {n} consequence", previewMany: "{s} successes, {n} consequences" };
  function w(key, values) {
    var attr = "w" + key.charAt(0).toUpperCase() + key.slice(1);
    var text = (document.body && document.body.dataset[attr]) || english[key];
    return text.replace(/\{(\w+)\}/g, function (all, name) { return name in (values || {}) ? values[name] : all; });
  }
  function tick() {
    document.querySelectorAll("time[data-countdown]").forEach(function (t) {
      var left = Math.floor((new Date(t.getAttribute("datetime")) - new Date()) / 1000);
      var out = t.nextElementSibling && t.nextElementSibling.classList.contains("countdown")
        ? t.nextElementSibling : null;
      if (!out) { out = document.createElement("span"); out.className = "countdown"; t.after(out); }
      if (left <= 0) { out.textContent = " (" + w("closed") + ")"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60);
      out.textContent = " (" + w("in", { time: d ? w("dhm", { d: d, h: h, m: m }) : w("hm", { h: h, m: m }) }) + ")";
    });
  }
  function previews() {
    document.querySelectorAll("form.convert").forEach(function (f) {
      var input = f.querySelector("input[name=convert]"), out = f.querySelector("output");
      var base = parseInt(f.dataset.base, 10) || 0;
      function show() {
        var n = Math.max(0, Math.min(parseInt(input.value, 10) || 0, parseInt(input.max, 10)));
        out.textContent = " → " + w(n === 1 ? "previewOne" : "previewMany", { s: base + n, n: n });
      }
      input.addEventListener("input", show); show();
    });
  }
  function copies() {  // a Copy button beside each read-only link (without JavaScript: select and copy the text)
    document.querySelectorAll("button[data-copy]").forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        var field = document.getElementById(b.dataset.copy);
        field.select();
        (navigator.clipboard ? navigator.clipboard.writeText(field.value) : Promise.reject()).then(
          function () { b.textContent = w("copied"); }, function () { document.execCommand("copy"); b.textContent = w("copied"); });
      });
    });
  }
  function guessZone() {  // the new-game form starts at this browser's zone when the list has it (else UTC)
    var s = document.querySelector("select[data-guess-zone]"), z = null;
    try { z = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (s && z && Array.prototype.some.call(s.options, function (o) { return o.value === z; })) s.value = z;
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); previews(); copies(); guessZone(); setInterval(tick, 30000); });
})();
