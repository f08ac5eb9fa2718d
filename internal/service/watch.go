package service

import (
	"context"
	"time"
)

// maxBackoff bounds how far SyncEvery stretches its interval after rounds
// that failed in a row: a remote that comes back is picked up within
// maxBackoff intervals.
const maxBackoff = 16

// SyncEvery syncs the scope's project with its remote (as Sync does, with
// the remote req names) every interval until ctx is done, then returns
// ctx's error. After each round it calls report with the round's document
// or its error. A round that fails does not stop the loop: the wait before
// the next doubles with each failure in a row, up to maxBackoff intervals,
// and is back to interval after a round that succeeds.
//
// Each round is one call of Sync on s, so s must serve no other call
// meanwhile (a server gives SyncEvery a Service of its own, as it does for
// any call that blocks).
func (s *Service) SyncEvery(ctx context.Context, sc Scope, req SyncRequest, interval time.Duration, report func(SyncResponse, error)) error {
	if interval <= 0 {
		return UsageField("interval", "the interval must be positive, not %s", interval).With("example", "5s")
	}
	req.Status = false
	wait := interval
	for {
		resp, err := s.Sync(ctx, sc, req)
		if err != nil && ctx.Err() != nil {
			return ctx.Err() // interrupted: not the round's failure
		}
		report(resp, err)
		req.Remote = "" // remembered by the first round
		wait = nextWait(wait, interval, err != nil)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// nextWait is the wait before SyncEvery's next round, after a wait of
// wait and a round that failed or not.
func nextWait(wait, interval time.Duration, failed bool) time.Duration {
	if !failed {
		return interval
	}
	return min(2*wait, maxBackoff*interval)
}

// SyncedProjects lists the store's projects that have synced before (a
// first agentmail sync sets their remote up): the ones a server keeps in
// sync with SyncEvery. It reads the archive's configuration, not the
// network or the projects' histories.
func (s *Service) SyncedProjects(ctx context.Context) ([]ProjectSummary, error) {
	list, err := s.Projects(ctx, true)
	if err != nil {
		return nil, err
	}
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	arc := st.Archive()
	var synced []ProjectSummary
	for _, p := range list.Projects {
		if arc.Config(syncKey(p.Slug, "lastsync")) != "" {
			synced = append(synced, p)
		}
	}
	return synced, nil
}
