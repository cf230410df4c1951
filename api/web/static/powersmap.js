// The Powers map's hexes fill in the board's forms in place (issue 28). Without JavaScript each hex's link reloads
// the board with them filled in (?hex=q,r, api.powers.mapsvg.picked); here the same address is fetched and only the
// chosen hex's panel, its mark on the map and the fields it fills are taken from it, so what is typed elsewhere stays.
(function () {
  var FIELDS = ["location", "aim-town", "aim-feature", "db-id", "db-hex", "db-enemies", "sk-hex", "aa-kind", "aa-params",
    "db-power", "gapa-hex", "sin-hex", "gi-hex", "cd-hex", "rl-hex", "rf-feature", "sc-town", "dc-town"];  // the GM's too
  // the board's folded parts a chosen hex opens (issue 28 item 2), so the forms it fills are in view
  var OPENED = ["seek", "army-aims", "fold-map", "fold-world", "fold-catalogue", "fold-armies", "fold-battles"];
  var WHOLE = ["map-editor"];  // taken whole: the GM's map editor shows the chosen hex's own towns and features
  function copy(doc) {
    FIELDS.forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (mine && theirs) mine.value = theirs.value;
    });
    OPENED.forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (mine && theirs && theirs.open) mine.open = true;
    });
    document.querySelectorAll("svg.hexmap a.hex").forEach(function (a) {
      var other = doc.getElementById(a.id), mark = a.querySelector("polygon");
      if (!other || !mark) return;
      a.setAttribute("class", other.getAttribute("class"));
      if (other.hasAttribute("aria-current")) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
      ["stroke", "stroke-width"].forEach(function (k) { mark.setAttribute(k, other.querySelector("polygon").getAttribute(k)); });
    });
    WHOLE.forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (mine && theirs) mine.replaceWith(theirs);
    });
    var panel = doc.getElementById("map-pick"), here = document.getElementById("map-pick");
    if (panel && here) here.replaceWith(panel);
    else if (panel) document.querySelector("figure.map").after(panel);
  }
  function choose(link, event) {
    var href = link.getAttribute("href");
    if (!href || href.charAt(0) !== "?" || !window.fetch || !window.DOMParser) return;
    event.preventDefault();
    var url = new URL(href, location.href);
    fetch(url.pathname + url.search, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error(String(r.status));
      return r.text();
    }).then(function (html) {
      copy(new DOMParser().parseFromString(html, "text/html"));
      history.replaceState(null, "", href);
      var target = document.getElementById(url.hash.slice(1));
      if (!target) return;
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.scrollIntoView();
      target.focus();
    }).catch(function () { location.href = href; });
  }
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("svg.hexmap a.hex, #map-pick a[href^='?']");
    if (link) choose(link, e);
  });
})();
