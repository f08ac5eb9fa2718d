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
	s.feed.Tap(func(e events.Event) {
		select {
		case ch <- e:
		default:
			note(fmt.Sprintf("webhooks: too many events at once; the %s event %s was not queued", e.Type, e.ID))
		}
	})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-ch:
				data, err := json.Marshal(webhookEvent{ID: e.ID, Event: e})
				if err == nil {
					err = s.gate.Do(func(svc *service.Service) error { return svc.QueueWebhookEvent(ctx, e.Project, e.Type, data) })
				}
				if err != nil && ctx.Err() == nil {
					note(fmt.Sprintf("webhooks: %v", err))
				}
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
