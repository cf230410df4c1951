// Little JavaScript: a countdown next to each deadline, and a live preview of conversions.
(function () {
  function tick() {
    document.querySelectorAll("time[data-countdown]").forEach(function (t) {
      var left = Math.floor((new Date(t.getAttribute("datetime")) - new Date()) / 1000);
      var out = t.nextElementSibling && t.nextElementSibling.classList.contains("countdown")
        ? t.nextElementSibling : null;
      if (!out) { out = document.createElement("span"); out.className = "countdown"; t.after(out); }
      if (left <= 0) { out.textContent = " (closed)"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60);
      out.textContent = " (in " + (d ? d + " d " : "") + h + " h " + m + " min)";
    });
  }
  function previews() {
    document.querySelectorAll("form.convert").forEach(function (f) {
      var input = f.querySelector("input[name=convert]"), out = f.querySelector("output");
      var base = parseInt(f.dataset.base, 10) || 0;
      function show() {
        var n = Math.max(0, Math.min(parseInt(input.value, 10) || 0, parseInt(input.max, 10)));
        out.textContent = " → " + (base + n) + " successes, " + n + " consequence" + (n === 1 ? "" : "s");
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
          function () { b.textContent = "Copied"; }, function () { document.execCommand("copy"); b.textContent = "Copied"; });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); previews(); copies(); setInterval(tick, 30000); });
})();
