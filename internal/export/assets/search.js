// The export's search: every word of the query must appear (case does not
// matter) in a message's subject, body, sender, recipients, thread or
// topic. It reads the index search-index.js defines and builds results
// with text nodes only: nothing of a message is read as HTML.
(function () {
  "use strict";
  var index = window.AGENTMAIL_SEARCH || [];
  // Fields of an entry of the index.
  var ID = 0, CREATED = 1, FROM = 2, TO = 3, SUBJECT = 4, THREAD = 5, TOPIC = 6, TEXT = 7, FILE = 8;
  var hay = null;
  function haystacks() {
    if (hay === null) {
      hay = index.map(function (e) {
        return [e[SUBJECT], e[FROM], e[TO], e[THREAD], e[TOPIC], e[TEXT]].join("\n").toLowerCase();
      });
    }
    return hay;
  }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  function snippet(text, term) {
    var i = text.toLowerCase().indexOf(term);
    if (i < 0) return text.slice(0, 160);
    var start = Math.max(0, i - 60);
    return (start > 0 ? "…" : "") + text.slice(start, i + 100) + (i + 100 < text.length ? "…" : "");
  }
  function run(q) {
    var status = document.getElementById("status");
    var list = document.getElementById("results");
    list.textContent = "";
    var terms = q.toLowerCase().split(/\s+/).filter(function (t) { return t !== ""; });
    if (terms.length === 0) {
      status.textContent = index.length + " messages to search.";
      list.hidden = true;
      return;
    }
    var hs = haystacks(), found = [];
    for (var i = 0; i < index.length; i++) {
      var ok = true;
      for (var j = 0; j < terms.length && ok; j++) ok = hs[i].indexOf(terms[j]) >= 0;
      if (ok) found.push(index[i]);
    }
    var shown = found.slice(0, 200);
    status.textContent = found.length + (found.length === 1 ? " message" : " messages") +
      (found.length > shown.length ? ", the newest " + shown.length + " shown" : "");
    shown.forEach(function (e) {
      var li = el("li", "row");
      li.appendChild(el("span", "dot"));
      li.appendChild(el("span", "from", e[FROM]));
      var a = el("a", "subject");
      a.href = e[FILE];
      a.appendChild(el("span", "text", e[SUBJECT] || "(no subject)"));
      li.appendChild(a);
      li.appendChild(el("span", "state muted small", snippet(e[TEXT], terms[0])));
      var date = el("span", "date", e[CREATED].slice(0, 10));
      date.title = e[CREATED];
      li.appendChild(date);
      list.appendChild(li);
    });
    list.hidden = shown.length === 0;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var input = document.getElementById("q");
    if (!input) return;
    var q = new URLSearchParams(window.location.search).get("q") || "";
    input.value = q;
    run(q);
    input.form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      run(input.value);
      try { history.replaceState(null, "", "?q=" + encodeURIComponent(input.value)); } catch (e) { /* file:// may refuse */ }
    });
  });
})();
