// Little JavaScript: a countdown next to each deadline, a live preview of conversions, and the open decision's
// live updates held back from a form being typed in.
(function () {
  // The words come from the page (data-w-* on <body>, translated there), with English if a page has none.
  var english = { closed: "closed", in: "in {time}", dhm: "{d} d {h} h {m} min", hm: "{h} h {m} min", copied: "Copied",
    previewOne: "{s} successes, {n} consequence", previewMany: "{s} successes, {n} consequences",
    decisionChanged: "This decision has changed", decisionUpdate: "update" };
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
  function previews(root) {
    (root || document).querySelectorAll("form.convert").forEach(function (f) {
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
  // The open decision (issue 28 item 6, api/web/decision.py): the live answer carries it out of band when it has
  // changed. It is swapped in unless the viewer is in it: a control of it has the focus or differs from the value it
  // was served with. Then the new version waits behind a polite notice whose button applies it; focus stays put.
  var held = null;
  function served(c) {
    if (c.type === "checkbox" || c.type === "radio") return c.checked === c.defaultChecked;
    if (c.tagName === "SELECT") {
      var any = Array.prototype.some.call(c.options, function (o) { return o.defaultSelected; });
      return Array.prototype.every.call(c.options, function (o, i) {
        return o.selected === (any ? o.defaultSelected : !c.multiple && i === 0);
      });
    }
    return c.value === c.defaultValue;
  }
  function inUse(region) {
    var active = document.activeElement;
    if (active && active !== region && region.contains(active)) return true;
    return !Array.prototype.every.call(region.querySelectorAll("input, select, textarea"), served);
  }
  function settle(region) { previews(region); tick(); }
  function notice(show) {
    var box = document.getElementById("decision-notice");
    if (!box) return;
    box.textContent = "";
    if (!show) return;
    var p = document.createElement("p"), b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = w("decisionUpdate");
    b.addEventListener("click", function () {
      var region = document.getElementById("open-decision"), next = held;
      held = null; notice(false);
      if (!region || !next) return;
      region.replaceWith(next);
      if (window.htmx) window.htmx.process(next);
      settle(next);
      var heading = next.querySelector("h1, h2");
      if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus(); }
    });
    p.append(w("decisionChanged") + " — ", b);
    box.append(p);
  }
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var region = e.detail.target;
    if (!region || region.id !== "open-decision") return;
    if (!inUse(region)) { held = null; notice(false); return; }
    e.detail.shouldSwap = false;
    held = e.detail.fragment.firstElementChild;
    held.removeAttribute("hx-swap-oob");
    notice(true);
  });
  document.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.detail.shouldSwap && e.detail.target && e.detail.target.id === "open-decision") {
      settle(document.getElementById("open-decision"));
    }
  });
  document.addEventListener("DOMContentLoaded", function () { tick(); previews(); copies(); guessZone(); setInterval(tick, 30000); });
})();
