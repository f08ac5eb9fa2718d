// Live updates for agentmail's pages: the page works without this script.
// The body's data-events names the server's event stream (server-sent
// events) and data-live the event types this page shows; when one arrives,
// a banner offers to reload the page. The stream's address carries the
// project's head as the page was made (last_event_id), and EventSource
// reconnects by itself sending Last-Event-ID, so nothing is missed across
// a dropped connection or a restart of the server, even by an idle page.
(function () {
  "use strict";
  var body = document.body;
  var src = body.getAttribute("data-events");
  var banner = document.getElementById("live");
  if (!src || !banner || !window.EventSource) {
    return;
  }
  var text = document.getElementById("live-text");
  var labels = {
    message: "New mail",
    receipt: "Messages were read or acknowledged",
    reservation: "Reservations changed",
    lock: "Locks changed",
    contact: "New contact request",
    agent: "Agents changed",
    task: "Tasks changed",
    work: "Work became ready"
  };
  var types = (body.getAttribute("data-live") || "message").split(" ");
  // The page's own messages, when it shows some: message events of its
  // thread (data-thread) or from its agent (data-from), receipts of the
  // messages it lists (data-ids). The stream selects by recipient only.
  var thread = body.getAttribute("data-thread");
  var from = body.getAttribute("data-from");
  var ids = (body.getAttribute("data-ids") || "").split(" ");
  var narrowed = thread !== null || from !== null;
  function concerns(type, ev) {
    if (!narrowed) {
      return true;
    }
    var d;
    try {
      d = JSON.parse(ev.data);
    } catch (e) {
      return false;
    }
    if (type === "message" && d.message) {
      return (thread !== null && d.message.thread === thread) || (from !== null && d.message.from === from);
    }
    if (type === "receipt" && d.receipt) {
      return ids.indexOf(d.receipt.message) >= 0;
    }
    return false;
  }
  // A timeline on its newest page (ol[data-insert], the base of its
  // messages' addresses) takes each new message in place, newest first,
  // when it passes the list's filters (data-agent, data-category,
  // data-importance, data-topic, data-awaiting); a message makes an event
  // per recipient, so one already listed is skipped. Such a message needs
  // no banner.
  var list = document.querySelector("ol[data-insert]");
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) {
      e.className = cls;
    }
    if (text !== undefined) {
      e.textContent = text;
    }
    return e;
  }
  function fits(m) {
    var want = function (key, v) {
      var w = list.getAttribute("data-" + key);
      return w === null || w === v;
    };
    var agent = list.getAttribute("data-agent");
    var people = [m.from].concat(m.to || [], m.cc || [], m.bcc || []);
    return (agent === null || people.indexOf(agent) >= 0) && want("category", m.category || "") &&
      want("importance", m.importance) && want("topic", m.topic || "") &&
      (list.getAttribute("data-awaiting") === null || m.ack_required);
  }
  function insert(type, ev) {
    if (!list || type !== "message") {
      return false;
    }
    var m;
    try {
      m = JSON.parse(ev.data).message;
    } catch (e) {
      return false;
    }
    if (!m || !m.id) {
      return false;
    }
    var rows = list.querySelectorAll("li[data-id]");
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getAttribute("data-id") === m.id) {
        return true;
      }
    }
    if (!fits(m)) {
      return true;
    }
    var li = el("li", "row fresh");
    li.setAttribute("data-id", m.id);
    var from = el("span", "from");
    var who = el("span", "who");
    who.appendChild(el("span", "name", m.from));
    from.appendChild(who);
    var a = el("a", "subject");
    a.href = list.getAttribute("data-insert") + encodeURIComponent(m.id);
    if (m.category) {
      a.appendChild(el("span", "badge cat-" + m.category.toLowerCase(), m.category));
    }
    if (m.importance && m.importance !== "normal") {
      a.appendChild(el("span", "badge imp-" + m.importance, m.importance));
    }
    a.appendChild(el("span", "text", m.subject || "(no subject)"));
    li.appendChild(el("span", "dot"));
    li.appendChild(from);
    li.appendChild(a);
    li.appendChild(el("span", "state muted small", m.topic ? "#" + m.topic : "to " + (m.to || []).join(", ")));
    li.appendChild(el("span", "date", "just now"));
    list.insertBefore(li, list.firstChild);
    var empty = document.querySelector("section.timeline p.empty");
    if (empty) {
      empty.hidden = true;
    }
    return true;
  }
  var seen = {};
  var events = new EventSource(src);
  types.forEach(function (type) {
    events.addEventListener(type, function (ev) {
      if (!concerns(type, ev) || insert(type, ev)) {
        return;
      }
      seen[type] = true;
      var said = [];
      types.forEach(function (t) {
        if (seen[t]) {
          said.push(labels[t] || t);
        }
      });
      text.textContent = said.join(" · ");
      banner.hidden = false;
    });
  });
  // A stream that stays down for ten seconds marks the page as offline:
  // it no longer learns of changes.
  var offline = null;
  events.addEventListener("error", function () {
    if (offline === null) {
      offline = setTimeout(function () {
        body.classList.toggle("offline", events.readyState !== EventSource.OPEN);
      }, 10000);
    }
  });
  events.addEventListener("open", function () {
    clearTimeout(offline);
    offline = null;
    body.classList.remove("offline");
  });
})();
