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
  var seen = {};
  var events = new EventSource(src);
  types.forEach(function (type) {
    events.addEventListener(type, function (ev) {
      if (!concerns(type, ev)) {
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
