package service

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/webhooks"
)

// Webhook is a registered webhook, as webhook add and list show it (its
// secret is never shown).
type Webhook = webhooks.Hook

// WebhookAttempt is one entry of the delivery log.
type WebhookAttempt = webhooks.Attempt

// WebhookEvents are the event types a webhook may ask for ("*" for all).
var WebhookEvents = webhooks.Events

// WebhookAddRequest is a webhook to register in the scope's project.
type WebhookAddRequest struct {
	URL    string
	Events []string // event types (WebhookEvents), or "*"
	Secret []byte   // the key its deliveries are signed with, kept in the store directory
	// AllowPrivate lets the URL name a loopback or private address.
	AllowPrivate bool
}

// WebhookResponse is the document of webhook add and remove:
// {"webhook": {"id","project","url","events","allow_private","created"}}.
type WebhookResponse struct {
	Webhook Webhook `json:"webhook"`
}

// WebhooksResponse is the document of webhook list: {"webhooks": [webhook…]}.
type WebhooksResponse struct {
	Webhooks []Webhook `json:"webhooks"`
}

// WebhookTestResponse is the document of webhook test: {"webhook",
// "attempt": {"delivery","hook","event","attempt","status","error","state","at","ms"}}.
type WebhookTestResponse struct {
	Webhook Webhook        `json:"webhook"`
	Attempt WebhookAttempt `json:"attempt"`
}

// WebhookLogResponse is the document of webhook log: {"log": [attempt…]},
// newest first.
type WebhookLogResponse struct {
	Log []WebhookAttempt `json:"log"`
}

// WebhookOptions tune the delivery of webhooks (DeliverWebhooks); the zero
// value is serve's.
type WebhookOptions = webhooks.Options

// webhookDB returns the store's webhooks database, opening it the first
// time (in the store directory, beside the index: never in the archive).
func (s *Service) webhookDB() (*webhooks.DB, error) {
	if _, err := s.store(); err != nil { // makes the store directory
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wh == nil {
		db, err := webhooks.Open(s.cfg.Dir)
		if err != nil {
			return nil, err
		}
		s.wh = db
	}
	return s.wh, nil
}

// webhookProject returns the slug of the scope's project and the webhooks
// database.
func (s *Service) webhookProject(ctx context.Context, sc Scope) (string, *webhooks.DB, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return "", nil, err
	}
	db, err := s.webhookDB()
	return x.project().Slug, db, err
}

// WebhookAdd registers a webhook for the events of the scope's project.
// A URL whose host is a loopback or private address is refused
// (PRIVATE_ADDRESS) unless the request allows them.
func (s *Service) WebhookAdd(ctx context.Context, sc Scope, req WebhookAddRequest) (WebhookResponse, error) {
	slug, db, err := s.webhookProject(ctx, sc)
	if err != nil {
		return WebhookResponse{}, err
	}
	h, err := db.Add(ctx, webhooks.AddRequest{Project: slug, URL: req.URL, Events: req.Events, Secret: req.Secret, AllowPrivate: req.AllowPrivate}, s.Now())
	return WebhookResponse{Webhook: h}, err
}

// Webhooks lists the webhooks of the scope's project.
func (s *Service) Webhooks(ctx context.Context, sc Scope) (WebhooksResponse, error) {
	slug, db, err := s.webhookProject(ctx, sc)
	if err != nil {
		return WebhooksResponse{}, err
	}
	list, err := db.List(ctx, slug)
	return WebhooksResponse{Webhooks: list}, err
}

// WebhookRemove unregisters the webhook id of the scope's project; its
// waiting deliveries are dropped.
func (s *Service) WebhookRemove(ctx context.Context, sc Scope, id string) (WebhookResponse, error) {
	slug, db, err := s.webhookProject(ctx, sc)
	if err != nil {
		return WebhookResponse{}, err
	}
	h, err := db.Remove(ctx, slug, id)
	return WebhookResponse{Webhook: h}, err
}

// WebhookTest sends the webhook id one ping delivery now, and returns how
// it went (logged too). A receiver that does not answer 2xx is no error
// of the operation: the attempt says so.
func (s *Service) WebhookTest(ctx context.Context, sc Scope, id string) (WebhookTestResponse, error) {
	slug, db, err := s.webhookProject(ctx, sc)
	if err != nil {
		return WebhookTestResponse{}, err
	}
	a, err := db.Test(ctx, slug, id, webhooks.Options{Now: s.cfg.Now})
	if err != nil {
		return WebhookTestResponse{}, err
	}
	list, err := db.List(ctx, slug)
	resp := WebhookTestResponse{Attempt: a}
	for _, h := range list {
		if h.ID == id {
			resp.Webhook = h
		}
	}
	return resp, err
}

// WebhookLog returns the delivery log of the scope's project, newest
// first: of the webhook hook ("" for all), at most limit entries (0: 50).
func (s *Service) WebhookLog(ctx context.Context, sc Scope, hook string, limit int) (WebhookLogResponse, error) {
	slug, db, err := s.webhookProject(ctx, sc)
	if err != nil {
		return WebhookLogResponse{}, err
	}
	log, err := db.Log(ctx, slug, hook, limit)
	return WebhookLogResponse{Log: log}, err
}

// QueueWebhookEvent queues the event of the project (its id, type and
// JSON document, as the live stream sends it) for each webhook that asked
// for its type, and wakes the deliveries of DeliverWebhooks. The id is
// remembered as the project's cursor (WebhookCursors).
func (s *Service) QueueWebhookEvent(ctx context.Context, project, id, typ string, event []byte) error {
	db, err := s.webhookDB()
	if err != nil {
		return err
	}
	ids, err := db.Enqueue(ctx, project, id, typ, event, s.cfg.Now())
	if err != nil {
		return fmt.Errorf("queue a webhook delivery: %w", err)
	}
	if len(ids) > 0 {
		s.mu.Lock()
		p := s.whRun
		s.mu.Unlock()
		if p != nil {
			p.Wake()
		}
	}
	return nil
}

// WebhookCursors returns, by project slug, the id of the last event
// queued for the project's webhooks: a server that starts replays the
// events after it, those made while no server ran.
func (s *Service) WebhookCursors(ctx context.Context) (map[string]string, error) {
	db, err := s.webhookDB()
	if err != nil {
		return nil, err
	}
	return db.Cursors(ctx)
}

// DeliverWebhooks delivers the queued webhook deliveries as they fall due
// until ctx ends: what serve runs. Deliveries a previous process left in
// the queue are delivered too.
func (s *Service) DeliverWebhooks(ctx context.Context, opts WebhookOptions) error {
	db, err := s.webhookDB()
	if err != nil {
		return err
	}
	if opts.Now == nil {
		opts.Now = s.cfg.Now
	}
	if opts.Note == nil {
		opts.Note = s.note
	}
	p := db.NewDispatcher(opts)
	s.mu.Lock()
	s.whRun = p
	s.mu.Unlock()
	p.Run(ctx)
	s.mu.Lock()
	s.whRun = nil
	s.mu.Unlock()
	return nil
}

// ErrPrivateAddress: a webhook's URL names a loopback or private address,
// and it does not allow them (PRIVATE_ADDRESS).
var ErrPrivateAddress = webhooks.ErrPrivateAddress
