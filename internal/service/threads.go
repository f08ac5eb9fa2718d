package service

import (
	"context"
)

// ThreadsPage is how many threads a page of the list holds when the
// request does not say; ThreadsMaxPage the most it may ask for.
const (
	ThreadsPage    = 50
	ThreadsMaxPage = 200
)

// ThreadsRequest pages a project's list of threads.
type ThreadsRequest struct {
	// Before is the cursor: the Next of the page before ("" starts at
	// the most recently active thread).
	Before string `json:"before,omitempty"`
	Limit  int    `json:"limit,omitempty"` // 0 is ThreadsPage
}

// ThreadSummary is a thread in the list: its first subject, its size,
// who took part (senders and recipients; bcc left out), and its last
// message (id, sender, time).
type ThreadSummary struct {
	Thread       string   `json:"thread"`
	Subject      string   `json:"subject"`
	Messages     int      `json:"messages"`
	Participants []string `json:"participants"`
	LastID       string   `json:"last_id"`
	LastFrom     string   `json:"last_from"`
	Last         Time     `json:"last"`
}

// ThreadsResponse is the threads document: {"threads": [...], "next":
// cursor}, the most recently active first; Next is "" on the last page.
type ThreadsResponse struct {
	Threads []ThreadSummary `json:"threads"`
	Next    string          `json:"next"`
}

// Threads lists a project's threads, the most recently active first,
// paged by req, as the overseer sees them.
func (s *Service) Threads(ctx context.Context, sc Scope, req ThreadsRequest) (ThreadsResponse, error) {
	switch {
	case req.Limit < 0:
		return ThreadsResponse{}, UsageField("limit", "the limit must not be negative").With("max", ThreadsMaxPage)
	case req.Limit > ThreadsMaxPage:
		return ThreadsResponse{}, UsageField("limit", "the limit is at most %d; page on with the response's next", ThreadsMaxPage).With("max", ThreadsMaxPage)
	case req.Limit == 0:
		req.Limit = ThreadsPage
	}
	sc.Agent, sc.Watching = "", false // the overseer's view
	x, err := s.session(ctx, sc)
	if err != nil {
		return ThreadsResponse{}, err
	}
	list, err := x.mb.Threads(ctx, req.Before, req.Limit+1)
	if err != nil {
		return ThreadsResponse{}, err
	}
	resp := ThreadsResponse{Threads: []ThreadSummary{}}
	if len(list) > req.Limit {
		list = list[:req.Limit]
		resp.Next = list[len(list)-1].LastID
	}
	for _, t := range list {
		resp.Threads = append(resp.Threads, ThreadSummary{Thread: t.Thread, Subject: t.Subject, Messages: t.Messages,
			Participants: t.Participants, LastID: t.LastID, LastFrom: t.LastFrom, Last: Time{t.Last}})
	}
	return resp, nil
}
