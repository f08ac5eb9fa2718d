package service

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/mailbox"
)

// RecipientReceipt is one recipient's state of a message. Delivered is
// when the message was written to the recipient's inbox (its creation):
// agentmail delivers in the write that stores the message.
type RecipientReceipt struct {
	Recipient    string `json:"recipient"`
	Kind         string `json:"kind"`
	Persisted    bool   `json:"persisted"`
	DeliveredAt  Time   `json:"delivered_at"`
	Read         bool   `json:"read"`
	ReadAt       Time   `json:"read_at"`
	Acknowledged bool   `json:"acknowledged"`
	AckedAt      Time   `json:"acknowledged_at"`
	// Signaled and SignalReceipts are mcp_agent_mail's (Rust) notification
	// files, which agentmail has none of: always false and empty.
	Signaled       bool     `json:"signaled"`
	SignalReceipts []string `json:"signal_receipts"`
}

// DeliveryReceiptResponse is the document of a message's delivery
// receipt: the message, and each recipient's delivered, read and
// acknowledged times.
type DeliveryReceiptResponse struct {
	MessageID   string             `json:"message_id"`
	Project     string             `json:"project_id"` // the project's slug
	Persisted   bool               `json:"persisted"`
	PersistedAt Time               `json:"persisted_at"`
	Message     Message            `json:"message"`
	Recipients  []RecipientReceipt `json:"recipients"`
}

// DeliveryReceipt returns the receipts of a message (id, or a unique
// prefix of 6+ characters) the acting agent sent or received (any message
// of the project for a scope without an agent), without marking it read.
// A recipient sees the other recipients but the bcc ones.
func (s *Service) DeliveryReceipt(ctx context.Context, sc Scope, id string) (DeliveryReceiptResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return DeliveryReceiptResponse{}, err
	}
	m, list, err := x.mb.Receipts(ctx, id)
	if err != nil {
		return DeliveryReceiptResponse{}, err
	}
	resp := DeliveryReceiptResponse{MessageID: m.ID, Project: x.project().Slug, Persisted: true, PersistedAt: Time{m.Created},
		Message: messageDoc(m), Recipients: make([]RecipientReceipt, len(list))}
	for i, r := range list {
		resp.Recipients[i] = RecipientReceipt{Recipient: r.Agent, Kind: r.Kind, Persisted: true, DeliveredAt: Time{m.Created},
			Read: r.ReadAt != nil, ReadAt: timeOf(r.ReadAt), Acknowledged: r.AckedAt != nil, AckedAt: timeOf(r.AckedAt),
			SignalReceipts: []string{}}
	}
	return resp, nil
}

// InboxEventsRequest reads the acting agent's deliveries after a cursor.
type InboxEventsRequest struct {
	After       string // a cursor (message id) to read after; "" resumes at the stored one
	Limit       int    // 1 to MaxEvents
	PositionNow bool   // skip to the newest delivery: no events
}

// MaxEvents is the most events one page holds.
const MaxEvents = 1000

// InboxEvent is one delivery: a message's header, without its body.
type InboxEvent struct {
	Cursor      string `json:"cursor"`
	MessageID   string `json:"message_id"`
	Kind        string `json:"kind"`
	DeliveredTS Time   `json:"delivered_ts"`
	Subject     string `json:"subject"`
	From        string `json:"from"`
	Importance  string `json:"importance"`
	AckRequired bool   `json:"ack_required"`
	Thread      string `json:"thread"`
}

// InboxEventsResponse is a page of deliveries, oldest first. NextCursor
// is stored as the agent's cursor; TailCursor is the newest delivery's;
// OldestAvailable is null: every delivery is kept.
type InboxEventsResponse struct {
	Events          []InboxEvent `json:"events"`
	NextCursor      *string      `json:"next_cursor"`
	HasMore         bool         `json:"has_more"`
	OldestAvailable *string      `json:"oldest_available_cursor"`
	TailCursor      *string      `json:"tail_cursor"`
	ResumedFrom     *string      `json:"resumed_from"`
}

// InboxEvents returns the acting agent's deliveries after req.After, or
// after where its last call ended (kept in the index: across restarts and
// rebuilds), in the order they reached this store, and stores the end of
// the page as its cursor. Reading them marks nothing read.
func (s *Service) InboxEvents(ctx context.Context, sc Scope, req InboxEventsRequest) (InboxEventsResponse, error) {
	switch {
	case req.Limit < 1 || req.Limit > MaxEvents:
		return InboxEventsResponse{}, Usagef(fmt.Sprintf("pass a limit from 1 to %d", MaxEvents), "limit must be from 1 to %d, got %d", MaxEvents, req.Limit)
	case req.PositionNow && req.After != "":
		return InboxEventsResponse{}, Usagef("pass either after or position_now", "position_now cannot be combined with after")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return InboxEventsResponse{}, err
	}
	page, err := x.mb.InboxEvents(ctx, mailbox.EventsQuery{After: req.After, Limit: req.Limit, PositionNow: req.PositionNow})
	if err != nil {
		return InboxEventsResponse{}, err
	}
	resp := InboxEventsResponse{Events: make([]InboxEvent, len(page.Events)), HasMore: page.More,
		NextCursor: optString(page.Next), TailCursor: optString(page.Tail), ResumedFrom: optString(page.Stored)}
	for i, e := range page.Events {
		resp.Events[i] = InboxEvent{Cursor: e.ID, MessageID: e.ID, Kind: e.Kind, DeliveredTS: Time{e.Created}, Subject: e.Subject,
			From: e.From, Importance: e.Importance, AckRequired: e.AckRequired, Thread: e.Thread}
	}
	return resp, nil
}

// ConflictCheckResponse is what a reservation of paths would meet, found
// without reserving: the conflicts with other agents' active
// reservations, the caller's own active ones that overlap, and the paths
// free of conflicts.
type ConflictCheckResponse struct {
	ConflictFree    bool          `json:"conflict_free"`
	Conflicts       []Conflict    `json:"conflicts"`
	OwnActive       []Reservation `json:"own_active"`
	ClearPaths      []string      `json:"clear_paths"`
	CheckedPaths    []string      `json:"checked_paths"`
	TotalConflicts  int           `json:"total_conflicting_reservations"`
	OutputTruncated bool          `json:"output_truncated"`
	Project         string        `json:"project"`
	SnapshotTS      Time          `json:"snapshot_ts"`
	ReadOnly        bool          `json:"read_only"`
	// Source is what the answer was read from: the index, caught up
	// with the archive.
	Source string `json:"authoritative_source"`
}

// CheckConflicts reports what reserving patterns (relative to the scope's
// directory; shared or exclusive) would conflict with, as Reserve decides
// it, and changes nothing.
func (s *Service) CheckConflicts(ctx context.Context, sc Scope, patterns []string, shared bool) (ConflictCheckResponse, error) {
	if len(patterns) == 0 {
		return ConflictCheckResponse{}, Usagef("name the paths or patterns to check, such as src/api/**", "no paths given")
	}
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return ConflictCheckResponse{}, err
	}
	rel, err := x.project().RepoPatterns(patterns)
	if err != nil {
		return ConflictCheckResponse{}, err
	}
	pats, conflicts, own, err := rs.WouldConflict(ctx, rel, shared)
	if err != nil {
		return ConflictCheckResponse{}, err
	}
	resp := ConflictCheckResponse{ConflictFree: len(conflicts) == 0, Conflicts: mapSlice(conflicts, conflictDoc), OwnActive: reservationDocs(own),
		ClearPaths: []string{}, CheckedPaths: pats, Project: x.project().Slug, SnapshotTS: Time{s.Now()}, ReadOnly: true,
		Source: "index"}
	blocked, holders := map[string]bool{}, map[string]bool{}
	for _, k := range conflicts {
		blocked[k.Pattern] = true
		holders[k.Holder+"\x00"+k.HolderPattern] = true
	}
	for _, p := range pats {
		if !blocked[p] {
			resp.ClearPaths = append(resp.ClearPaths, p)
		}
	}
	resp.TotalConflicts = len(holders)
	return resp, nil
}
