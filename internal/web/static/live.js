// Live updates for agentmail's pages: the page works without this script.
// The body's data-events names the server's event stream (server-sent
// events) and data-live the event types this page shows; when one arrives,
// a banner offers to reload the page. EventSource reconnects by itself,
// sending Last-Event-ID, so nothing is missed across a dropped connection.
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
    agent: "Agents changed"
  };
  var types = (body.getAttribute("data-live") || "message").split(" ");
  var seen = {};
  var events = new EventSource(src);
  types.forEach(function (type) {
    events.addEventListener(type, function () {
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
