package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentmail/agentmail/internal/events"
	"github.com/agentmail/agentmail/internal/service"
)

// webhookBacklog is how many events may wait to be queued for webhooks;
// past it the feed's events are dropped (with a note) rather than making
// the feed wait.
const webhookBacklog = 4096

// webhookEvent is the document a webhook delivers: the live stream's
// event, with its id.
type webhookEvent struct {
	ID string `json:"id,omitempty"`
	events.Event
}

// startWebhooks queues the feed's events for the store's webhooks and
// delivers them, until the returned function is called (which waits for
// both to stop).
func (s *Server) startWebhooks() func() {
	ctx, cancel := context.WithCancel(context.Background())
	note := func(line string) {
		if s.cfg.Store.Note != nil {
			s.cfg.Store.Note(line)
		}
	}
	ch := make(chan events.Event, webhookBacklog)
	heads := s.feed.Tap(func(e events.Event) {
		select {
		case ch <- e:
		default:
			note(fmt.Sprintf("webhooks: too many events at once; the %s event %s was not queued", e.Type, e.ID))
		}
	})
	queue := func(e events.Event) error {
		data, err := json.Marshal(webhookEvent{ID: e.ID, Event: e})
		if err == nil {
			err = s.gate.Do(func(svc *service.Service) error { return svc.QueueWebhookEvent(ctx, e.Project, e.ID, e.Type, data) })
		}
		if err != nil && ctx.Err() == nil {
			note(fmt.Sprintf("webhooks: %v", err))
		}
		return ctx.Err()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.replayWebhooks(ctx, heads, queue, note)
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-ch:
				_ = queue(e)
			}
		}
	}()
	go func() {
		defer wg.Done()
		err := s.gate.Blocking(func(svc *service.Service) error { return svc.DeliverWebhooks(ctx, s.cfg.Webhooks) })
		if err != nil {
			note(fmt.Sprintf("webhooks: %v", err))
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// replayWebhooks queues the events each project with webhooks had after
// the last one queued (made while no server ran) up to heads, where the
// feed's live events begin: a project's history that no longer holds that
// event (rewritten) is noted, and followed from now.
func (s *Server) replayWebhooks(ctx context.Context, heads map[string]string, queue func(events.Event) error, note func(string)) {
	var cursors map[string]string
	err := s.gate.Do(func(svc *service.Service) (err error) { cursors, err = svc.WebhookCursors(ctx); return err })
	if err != nil {
		note(fmt.Sprintf("webhooks: %v", err))
		return
	}
	for slug, last := range cursors {
		head := heads[slug]
		if head == "" || ctx.Err() != nil {
			continue
		}
		if err := s.feed.Replay(slug, last, head, queue); err != nil && ctx.Err() == nil {
			note(fmt.Sprintf("webhooks: project %s: the events since %s are not delivered: %v", slug, last, err))
		}
	}
}
