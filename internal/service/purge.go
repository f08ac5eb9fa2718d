package service

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/reservations"
)

// HardDeleteConfirmation is the confirmation a hard delete needs, word for
// word, as mcp_agent_mail asks it.
const HardDeleteConfirmation = "I UNDERSTAND"

// DefaultPurgeAge is how old a message must be for a purge that names no
// age: mcp_agent_mail's default retention.
const DefaultPurgeAge = 180

// historyNote says what deletion means in a git archive.
const historyNote = "taken out of the index and of the archive's mailbox folders (tombstones replace the files); " +
	"the archive's git history keeps every earlier version: only rewriting that history removes them for good"

// PurgedMessage is a message a purge or hard delete took out.
type PurgedMessage struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	Subject string `json:"subject"`
	Created Time   `json:"created"`
	Path    string `json:"path"` // its file in the archive, whose history keeps it
}

func purgedDocs(list []mailbox.PurgedMessage) []PurgedMessage {
	return mapSlice(list, func(p mailbox.PurgedMessage) PurgedMessage {
		return PurgedMessage{p.ID, p.From, p.Subject, Time{p.Created}, p.Path}
	})
}

// PurgeRequest selects the messages of a purge: those older than
// MaxAgeDays (0 for DefaultPurgeAge).
type PurgeRequest struct {
	MaxAgeDays int
	DryRun     bool
}

// PurgeResponse is the document of a purge, with the fields of
// mcp_agent_mail's purge_old_messages (status dry_run or purged,
// messages_affected, cutoff_date, max_age_days), the messages, and what
// deletion means here.
type PurgeResponse struct {
	Status           string          `json:"status"`
	MessagesAffected int             `json:"messages_affected"`
	CutoffDate       Time            `json:"cutoff_date"`
	MaxAgeDays       int             `json:"max_age_days"`
	DryRun           bool            `json:"dry_run"`
	Messages         []PurgedMessage `json:"messages"`
	HistoryKept      bool            `json:"history_kept"` // always true
	Note             string          `json:"note"`
}

// Purge takes the project's messages older than req.MaxAgeDays out of the
// index and the archive's mailbox folders (their history stays), or, with
// DryRun, says which it would.
func (s *Service) Purge(ctx context.Context, sc Scope, req PurgeRequest) (PurgeResponse, error) {
	days := req.MaxAgeDays
	if days == 0 {
		days = DefaultPurgeAge
	}
	if days < 1 {
		return PurgeResponse{}, Usagef("pass a number of days of at least 1", "max age %d days: a purge takes messages at least a day old", days)
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return PurgeResponse{}, err
	}
	cutoff := s.Now().Add(-time.Duration(days) * 24 * time.Hour)
	list, err := x.mb.Purge(ctx, mailbox.PurgeInput{Before: cutoff, DryRun: req.DryRun, Reason: fmt.Sprintf("older than %d days", days)})
	if err != nil {
		return PurgeResponse{}, err
	}
	status := "purged"
	if req.DryRun {
		status = "dry_run"
	}
	return PurgeResponse{Status: status, MessagesAffected: len(list), CutoffDate: Time{cutoff}, MaxAgeDays: days, DryRun: req.DryRun,
		Messages: purgedDocs(list), HistoryKept: true, Note: historyNote}, nil
}

// checkConfirmation refuses a hard delete without HardDeleteConfirmation.
func checkConfirmation(given, what string) error {
	if given == HardDeleteConfirmation {
		return nil
	}
	return fault.WithHint(fmt.Errorf("%w: a hard delete of %s needs the confirmation %q, exactly (case-sensitive); got %q", ErrInvalidArgument, what, HardDeleteConfirmation, given),
		"confirm with I UNDERSTAND once you mean it: the "+what+" leaves the index and every view (its history stays in the archive's git history)")
}

// DeletedCounts counts what a hard delete took out.
type DeletedCounts struct {
	Agents           int `json:"agents"`
	Messages         int `json:"messages"`
	FileReservations int `json:"file_reservations"`
	Locks            int `json:"locks"`
}

// HardDeleteResponse is the document of a hard delete, with the fields of
// mcp_agent_mail's hard_delete_agent and hard_delete_project (status
// hard_deleted, agent_name or slug, project_key, deleted_counts,
// filesystem_errors), the messages taken out, and what deletion means in a
// git archive.
type HardDeleteResponse struct {
	Status           string          `json:"status"`
	AgentName        string          `json:"agent_name,omitempty"`
	ProjectKey       string          `json:"project_key"`
	Slug             string          `json:"slug"`
	DeletedCounts    DeletedCounts   `json:"deleted_counts"`
	FilesystemErrors []string        `json:"filesystem_errors"` // always empty: nothing is removed from disk
	Messages         []PurgedMessage `json:"messages"`
	HistoryKept      bool            `json:"history_kept"` // always true
	Note             string          `json:"note"`
}

// HardDeleteAgent takes agent name out of the index and every view: its
// reservations and locks are released, the messages it sent purged, its
// profile replaced by a tombstone. The archive's history keeps them all;
// registering the name again makes a new agent. confirmation must be
// HardDeleteConfirmation.
func (s *Service) HardDeleteAgent(ctx context.Context, sc Scope, name, confirmation string) (HardDeleteResponse, error) {
	if err := checkConfirmation(confirmation, "agent "+name); err != nil {
		return HardDeleteResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return HardDeleteResponse{}, err
	}
	if err := x.checkActor(ctx, sc); err != nil {
		return HardDeleteResponse{}, err
	}
	resp := x.hardDeleteResponse()
	resp.AgentName = name
	if err := x.hardDelete(ctx, name, &resp); err != nil {
		return HardDeleteResponse{}, err
	}
	return resp, nil
}

// HardDeleteProject takes everything of sc's project out of the index and
// every view: each agent as HardDeleteAgent does, and every message. The
// project stays known (empty), and the archive's history keeps it all.
// confirmation must be HardDeleteConfirmation.
func (s *Service) HardDeleteProject(ctx context.Context, sc Scope, confirmation string) (HardDeleteResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return HardDeleteResponse{}, err
	}
	if err := checkConfirmation(confirmation, "project "+x.project().Slug); err != nil {
		return HardDeleteResponse{}, err
	}
	if err := x.checkActor(ctx, sc); err != nil {
		return HardDeleteResponse{}, err
	}
	resp := x.hardDeleteResponse()
	list, err := x.mb.Agents(ctx, false, true)
	if err != nil {
		return HardDeleteResponse{}, err
	}
	for _, a := range list {
		if names.Fold(a.Name) == names.Fold(sc.Agent) {
			continue // the one acting goes last
		}
		if err := x.hardDelete(ctx, a.Name, &resp); err != nil {
			return HardDeleteResponse{}, err
		}
	}
	if sc.Agent != "" {
		if err := x.hardDelete(ctx, sc.Agent, &resp); err != nil {
			return HardDeleteResponse{}, err
		}
	}
	// What no agent sent: the human overseer's mail.
	mb, err := x.nobody(ctx)
	if err != nil {
		return HardDeleteResponse{}, err
	}
	rest, err := mb.Purge(ctx, mailbox.PurgeInput{Reason: "its project was hard-deleted"})
	if err != nil {
		return HardDeleteResponse{}, err
	}
	resp.Messages = append(resp.Messages, purgedDocs(rest)...)
	resp.DeletedCounts.Messages = len(resp.Messages)
	return resp, nil
}

func (x *session) hardDeleteResponse() HardDeleteResponse {
	p := x.project()
	return HardDeleteResponse{Status: "hard_deleted", ProjectKey: p.Key, Slug: p.Slug, FilesystemErrors: []string{}, Messages: []PurgedMessage{},
		HistoryKept: true, Note: historyNote}
}

// hardDelete releases agent name's leases, then takes it and the messages
// it sent out (mailbox.HardDeleteAgent), counting in resp.
func (x *session) hardDelete(ctx context.Context, name string, resp *HardDeleteResponse) error {
	a, ok, err := x.mb.Lookup(ctx, name)
	if err != nil {
		return err
	}
	if ok {
		rs := reservations.New(x.st, x.project().Slug, a.Name, nil)
		released, err := rs.Release(ctx, reservations.Selector{All: true})
		if err != nil {
			return fmt.Errorf("hard delete %s: release its reservations: %w", a.Name, err)
		}
		resp.DeletedCounts.FileReservations += len(released)
		locks, err := rs.Locks(ctx, "")
		if err != nil {
			return err
		}
		for _, l := range locks {
			if names.Fold(l.Holder) != names.Fold(a.Name) {
				continue
			}
			if _, err := rs.ReleaseLock(ctx, l.Key); err != nil {
				return fmt.Errorf("hard delete %s: release its lock %s: %w", a.Name, l.Key, err)
			}
			resp.DeletedCounts.Locks++
		}
	}
	mb, err := x.nobody(ctx)
	if err != nil {
		return err
	}
	done, err := mb.HardDeleteAgent(ctx, name)
	if err != nil {
		return err
	}
	resp.DeletedCounts.Agents++
	resp.DeletedCounts.Messages += len(done.Messages)
	resp.Messages = append(resp.Messages, purgedDocs(done.Messages)...)
	return nil
}

// nobody returns the project's mailbox acting as nobody: for what goes on
// once the acting agent itself may be gone.
func (x *session) nobody(ctx context.Context) (*mailbox.Mailbox, error) {
	return mailbox.Open(ctx, x.st, x.project(), "")
}

// checkActor checks that sc's acting agent, if any, is registered.
func (x *session) checkActor(ctx context.Context, sc Scope) error {
	if sc.Agent == "" {
		return nil
	}
	_, err := x.mb.Whoami(ctx)
	return err
}
