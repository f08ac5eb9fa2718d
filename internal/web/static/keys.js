// Keyboard shortcuts of the web UI (listed in the page's footer):
//   /      focus the search box
//   g t    the project's timeline      g a  its agents
//   g b    the tasks board             g r  reservations
//   g h    history                     g m  your mail      g c  compose
//   j / k  the next / previous item of the page's list (Enter opens it)
// Keys typed into a form field, or with Ctrl, Alt or Meta, are the
// browser's. No inline script: the CSP allows only files of this origin.
(function () {
  "use strict";
  var tabs = function () { return document.querySelectorAll("nav.tabs a"); };
  var tab = function (label) {
    var all = tabs();
    for (var i = 0; i < all.length; i++) {
      if (all[i].textContent.trim() === label) { return all[i].getAttribute("href"); }
    }
    return null;
  };
  var go = {
    t: function () { var a = tab("Agents"); return a && a + "#timeline"; },
    a: function () { return tab("Agents"); },
    b: function () { return tab("Tasks"); },
    r: function () { return tab("Reservations"); },
    h: function () { return tab("History"); },
    m: function () { return tab("Your mail"); },
    c: function () { return tab("Compose"); }
  };
  // The items j and k move through: the rows of a mail list, a history's
  // commits, a board's cards, the agents' cards.
  var items = function () {
    return Array.prototype.slice.call(document.querySelectorAll(
      "main ol.mail > li, main ol.history.commits > li, main .board li, main ul.agents > li, main ol.thread > li"));
  };
  var move = function (step) {
    var list = items();
    if (!list.length) { return; }
    var at = -1;
    for (var i = 0; i < list.length; i++) {
      if (list[i].contains(document.activeElement)) { at = i; break; }
    }
    var next = list[Math.min(list.length - 1, Math.max(0, at + step))];
    var link = next.querySelector("a[href]");
    for (var j = 0; j < list.length; j++) { list[j].classList.remove("kbd-at"); }
    next.classList.add("kbd-at");
    if (link) { link.focus(); } else { next.setAttribute("tabindex", "-1"); next.focus(); }
    next.scrollIntoView({ block: "nearest" });
  };
  var pending = false, timer = null;
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented) { return; }
    var t = e.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) { return; }
    if (pending) {
      pending = false;
      clearTimeout(timer);
      var f = go[e.key], href = f && f();
      if (href) { e.preventDefault(); window.location.href = href; }
      return;
    }
    switch (e.key) {
      case "/":
        var q = document.querySelector("form.quick input[name=q]") || document.querySelector("main input[type=search], main input[name=q]");
        if (q) { e.preventDefault(); q.focus(); q.select(); }
        break;
      case "g":
        pending = true;
        timer = setTimeout(function () { pending = false; }, 1500);
        break;
      case "j": e.preventDefault(); move(1); break;
      case "k": e.preventDefault(); move(-1); break;
    }
  });
})();
