// Package events is agentmail serve's live event stream, /api/events:
// server-sent events of new mail, read and ack receipts, reservations and
// locks taken, renewed, released or expired, contact requests, agents'
// profiles, posts to channels, agents' states and controls, tasks changed
// and work available (a task became ready), for one project.
//
// # The archive is the source
//
// Every change agentmail makes is a commit on its project's branch,
// refs/heads/projects/<slug>, whoever makes it: this server, a CLI
// process, an MCP server, or another machine whose history sync merged
// in. A Feed reads the branches every 25 ms (a few small files, no git
// process) and, when one moved, lists the commits it moved by, oldest
// first: in-process along a line of single-parent commits, which is what
// writes make, and by git rev-list when a merge is on the way (sync brings
// the remote's commits in as the second parent of a merge; they are
// listed one by one, then the merge). Each commit is compared with its
// parent (a merge with each parent, keeping only what differs from all of
// them: what it resolved) and its changed files are decoded by
// record.Decode into events. One Feed serves every client of a store: the
// events of a commit are read once and fanned out.
//
// The commits of its own process are not read back: FollowService (what
// serve runs) has the store tell the feed the files each write committed
// (store.Store.OnCommit), and the feed makes those commits' events from
// them, the same events the comparison gives (Feed.Written), at once: being
// told wakes the feed, which publishes before the write returns. A commit
// it has not been told of is another process's when no write of this
// process is under way (store.Store.Writing, asked after the branches were
// read): it is read back at once. Else it waits up to 100 ms (handWait),
// the moment between the branch moving and the writer telling, before it
// is read back.
//
// # Event ids and resuming
//
// An event's id is "<commit>:<n>", the n-th event of the commit, so ids
// outlive the server. A request with Last-Event-ID (EventSource sends it
// when it reconnects) gets the rest of that commit's events and those of
// every commit since, then the live ones: the subscription is registered
// and the head it follows read at once, under the feed's lock, so the
// replay ends exactly where the live events begin. An id that is not
// one of ours, or whose commit is not in the project's history (another
// project's, or a history rewritten), starts from now, and a comment
// line says so. The stream starts with "retry: 1000": a client whose
// stream ended reconnects a second later.
//
// # Expiry
//
// A lease's expiry is no commit: the feed keeps the expiry time of each
// reservation and lock held at the head (read from the branch when it
// starts, and from each lease event after) and sends the lease with state
// "expired" at the first poll after that time by Options.Now. These events
// carry no id, so a client's Last-Event-ID stays at the last commit's
// event; a client that was away when a lease expired is not told later.
//
// # The stream
//
// GET /api/events?project=SLUG[&agent=NAME][&types=message,receipt,...]
// [&topic=NAME][&last_event_id=ID] answers text/event-stream (last_event_id stands for
// a Last-Event-ID header the request lacks; a commit alone there means
// after all of its events); an unknown project (404 NOT_FOUND) or a bad
// query (400 INVALID_ARGUMENT) is a JSON error before the stream starts.
// agent keeps the events that concern that agent (see Event.Agent; a
// contact event concerns both sides; a post every agent), types the events
// of those types, topic the posts and messages of that topic.
// Each event is
//
//	id: <commit>:<n>          (absent for an expiry)
//	event: <type>             message, receipt, reservation, lock, contact, agent, post, state, control, task or work
//	data: <one JSON object>
//
// with the data
//
//	{"type", "project", "agent", "state", "commit", "time", <document>}
//
// where state is absent for a message, and the document is under the key
// its type names ("profile" for an agent), the same document as the
// command line's --json: "message" (as its recipient, the event's agent,
// sees it), "receipt": {"message", "agent", "read_at", "acked_at"},
// "reservation", "lock", "contact", "profile" (last_seen null: presence
// is not in the archive), "work" (a state), "control", "task" (a task
// event's task as its commit leaves it, folded from the task's log there;
// a work event's task, just ready). Work has no id: after a commit that
// changed a project's tasks, the next poll at which the branch has not
// moved (or, if it keeps moving, one a second later) reads the ready tasks (Options.Ready, the index's) and sends those
// that were not ready at the last look. A message makes
// one event per recipient, a post one event (its agent the sender); the
// sender's outbox copy and the recipients' inbox copies make none of
// their own. A comment line is written every 15 s to keep idle
// connections open.
//
// # Wiring (internal/server does this)
//
//	feed, err := events.FollowService(svc, events.Options{Now: clock, Note: logf})
//	mux.Handle("GET /api/events", &events.Handler{Feed: feed})
//	...
//	feed.Close()          // ends every stream
//	server.Shutdown(ctx)  // then the server can go idle
//
// svc is the server's service.Service: the feed reads the archive through
// the store's own handle, and is told of the service's writes. NewFeed
// follows an archive directory with a handle of its own instead, reading
// every commit back.
package events
