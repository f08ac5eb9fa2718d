// Live updates for agentmail's pages: the page works without this script.
// The body's data-events names the server's event stream (server-sent
// events) and data-live the event types this page shows. The stream's
// address carries the project's head as the page was made (last_event_id),
// and EventSource reconnects by itself sending Last-Event-ID, so nothing
// is missed across a dropped connection or a restart of the server, even
// by an idle page.
//
// A part of the page that updates in place is a region: an element with
// data-region (its name, one per page) and data-types (the event types it
// shows). When such an event arrives, the page is fetched again from the
// server (from the region's data-src when set: a page answering a form
// post names the page it shows) and each region is replaced with its new content, so that the
// open view becomes what a reload would show, and only that: what belongs
// to the page is the server's choice, made once, for the page and its
// updates alike. A region's items carry data-key; an item new to the
// region, or one that moved (to another data-slot, a column of the board),
// is marked "fresh"; an item unchanged keeps its node. Events of the other
// types show a banner offering to reload.
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
    post: "New posts",
    state: "Agents' states changed",
    control: "An agent was steered",
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

  // regionTypes: the event types some region of the page shows.
  var regionTypes = {};
  Array.prototype.forEach.call(document.querySelectorAll("[data-region]"), function (r) {
    (r.getAttribute("data-types") || "").split(" ").forEach(function (t) {
      if (t) {
        regionTypes[t] = true;
      }
    });
  });
  function keyed(root) {
    var m = {};
    Array.prototype.forEach.call(root.querySelectorAll("[data-key]"), function (e) {
      m[e.getAttribute("data-key")] = e;
    });
    return m;
  }
  function slot(e) {
    var s = e.parentNode && e.parentNode.closest ? e.parentNode.closest("[data-slot]") : null;
    return s ? s.getAttribute("data-slot") : "";
  }
  function plain(e) {
    var c = e.cloneNode(true);
    c.classList.remove("fresh");
    return c.outerHTML;
  }
  // swap replaces the region old with its new version from the server.
  function swap(old, next) {
    var before = keyed(old);
    next = document.adoptNode(next);
    Array.prototype.forEach.call(next.querySelectorAll("[data-key]"), function (n) {
      var o = before[n.getAttribute("data-key")];
      if (!o || slot(o) !== slot(n)) {
        n.classList.add("fresh");
        return;
      }
      if (plain(o) === n.outerHTML) {
        n.parentNode.replaceChild(o, n); // unchanged: the node stays
      } else if (o.classList.contains("fresh")) {
        n.classList.add("fresh");
      }
    });
    old.parentNode.replaceChild(next, old);
  }
  // refresh fetches the page again and swaps its regions in; one fetch at
  // a time, another after it when events came meanwhile. A page that
  // cannot be fetched, or lacks its regions, shows the banner instead.
  var busy = false, again = false, why = "message";
  function refresh(type) {
    why = type || why;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    again = false;
    var regions = document.querySelectorAll("[data-region]"), sources = {};
    Array.prototype.forEach.call(regions, function (r) {
      sources[r.getAttribute("data-src") || location.href] = true;
    });
    Promise.all(Object.keys(sources).map(function (u) {
      return fetch(u, {credentials: "same-origin", headers: {"Accept": "text/html"}}).then(function (r) {
        if (!r.ok) {
          throw new Error(u + ": " + r.status);
        }
        return r.text();
      }).then(function (html) {
        return [u, new DOMParser().parseFromString(html, "text/html")];
      });
    })).then(function (docs) {
      var from = {};
      docs.forEach(function (d) {
        from[d[0]] = d[1];
      });
      Array.prototype.forEach.call(regions, function (old) {
        var name = old.getAttribute("data-region");
        var next = from[old.getAttribute("data-src") || location.href].querySelector('[data-region="' + name + '"]');
        if (!next) {
          throw new Error("no region " + name);
        }
        swap(old, next);
      });
    }).catch(function () {
      tell(why);
    }).then(function () {
      busy = false;
      if (again) {
        refresh();
      }
    });
  }
  var seen = {};
  function tell(type) {
    seen[type] = true;
    var said = [];
    types.forEach(function (t) {
      if (seen[t]) {
        said.push(labels[t] || t);
      }
    });
    text.textContent = said.join(" · ");
    banner.hidden = false;
  }
  var events = new EventSource(src);
  types.forEach(function (type) {
    events.addEventListener(type, function (ev) {
      if (!concerns(type, ev)) {
        return;
      }
      if (regionTypes[type]) {
        refresh(type);
      } else {
        tell(type);
      }
    });
  });
  // A stream that stays down for ten seconds marks the page as offline:
  // it no longer learns of changes. Once it is back (the server
  // restarted), the regions are fetched again: the stream replays the
  // events it missed, and this catches those that have no id.
  var offline = null, opened = false;
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
    if (opened && Object.keys(regionTypes).length) {
      refresh();
    }
    opened = true;
  });
})();
