package events

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// Handler serves GET /api/events?project=SLUG[&agent=NAME][&types=T,...]
// [&topic=NAME][&last_event_id=ID]: the project's events as server-sent events, from
// now on, or from the event after the request's Last-Event-ID (else the
// last_event_id parameter: an event id, or a commit for the events after
// all of that commit's).
type Handler struct {
	Feed *Feed
	// Heartbeat is how often a comment line keeps an idle stream's
	// connection open; 15 s if zero.
	Heartbeat time.Duration
}

// Retry is how long a client waits before it reconnects, which the
// stream tells it as it starts (EventSource's retry field).
const Retry = time.Second

// filter is what a client asked to see.
type filter struct {
	agent string          // "" for every agent
	types map[string]bool // nil for every type
	topic string          // "" for every topic; else only the messages and posts of this one
}

// match reports whether the filter lets e through. A post concerns every
// agent: the agent filter does not hold it back.
func (q filter) match(e *Event) bool {
	return (q.agent == "" || e.Type == TypePost || e.concerns(q.agent)) && (q.types == nil || q.types[e.Type]) &&
		(q.topic == "" || e.Topic == q.topic)
}

// parseQuery reads the request's project and filter.
func parseQuery(r *http.Request) (string, filter, error) {
	v := r.URL.Query()
	slug := strings.TrimSpace(v.Get("project"))
	if slug == "" {
		return "", filter{}, fault.WithHint(fmt.Errorf("%w: no project given", service.ErrInvalidArgument),
			"name the project: /api/events?project=SLUG (GET /api/projects lists the slugs)")
	}
	q := filter{agent: strings.TrimSpace(v.Get("agent"))}
	if t := v.Get("topic"); t != "" {
		var ok bool
		if q.topic, ok = record.NormalTopic(t); !ok {
			return "", filter{}, fault.WithHint(fmt.Errorf("%w: %q is no topic", service.ErrInvalidTopic, t),
				"a topic is 1 to 64 letters, digits, _ . and -")
		}
	}
	if list := v.Get("types"); list != "" {
		q.types = map[string]bool{}
		for _, t := range strings.Split(list, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(Types, t) {
				return "", filter{}, fault.WithHint(fmt.Errorf("%w: unknown event type %q", service.ErrInvalidArgument, t),
					"types is a comma-separated list of: "+strings.Join(Types, ", "))
			}
			q.types[t] = true
		}
	}
	return slug, q, nil
}

// ServeHTTP streams the events until the client goes, the feed closes, or
// the client falls too far behind (it reconnects and resumes).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	slug, q, err := parseQuery(r)
	var sub *subscription
	var head string
	if err == nil {
		sub, head, err = h.Feed.subscribe(slug)
	}
	if err != nil {
		f := service.Describe(err)
		web.WriteJSONError(w, f.HTTP, f.Doc(f.Hint))
		return
	}
	defer h.Feed.unsubscribe(sub)
	s := &stream{w: w, rc: http.NewResponseController(w)}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no") // a proxy in front must not hold the events back
	w.WriteHeader(http.StatusOK)
	s.comment("agentmail events of project " + slug)
	// A client whose stream ended (the server restarted) reconnects
	// after a second, not the browser's default three.
	s.write(fmt.Sprintf("retry: %d\n\n", Retry.Milliseconds()))
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		// A page passes the head it was made at, so that a client that
		// has had no event yet (no id to send) misses none either.
		last = r.URL.Query().Get("last_event_id")
	}
	if last != "" {
		err := h.Feed.replay(slug, last, head, func(e Event) error {
			if q.match(&e) {
				s.event(e)
			}
			return s.err
		})
		if errors.Is(err, errBadID) {
			s.comment(fmt.Sprintf("Last-Event-ID %s: events from now on", err))
		} else if err != nil {
			s.comment(fmt.Sprintf("cannot resume: %v; events from now on", err))
		}
	}
	s.flush()
	beat := time.NewTicker(cmp.Or(h.Heartbeat, 15*time.Second))
	defer beat.Stop()
	for s.err == nil {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-sub.ch:
			if !ok {
				return
			}
			if q.match(&e) {
				s.event(e)
				s.flush()
			}
		case <-beat.C:
			s.comment("heartbeat")
			s.flush()
		}
	}
}

// stream writes server-sent events; after a failed write (the client
// went), it writes nothing more and err says why.
type stream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

func (s *stream) write(text string) {
	if s.err == nil {
		_, s.err = s.w.Write([]byte(text))
	}
}

// event writes e: its id (none for an expiry, so that the client's
// Last-Event-ID stays the last commit's), its type and its JSON.
func (s *stream) event(e Event) {
	data, err := json.Marshal(e)
	if err != nil {
		s.err = err
		return
	}
	var b strings.Builder
	if e.ID != "" {
		b.WriteString("id: " + e.ID + "\n")
	}
	b.WriteString("event: " + e.Type + "\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	s.write(b.String())
}

// comment writes a comment line, which clients ignore.
func (s *stream) comment(text string) {
	s.write(": " + strings.ReplaceAll(text, "\n", " ") + "\n\n")
}

func (s *stream) flush() {
	if s.err == nil {
		s.err = s.rc.Flush()
	}
}
