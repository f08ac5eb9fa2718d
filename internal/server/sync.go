package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// syncProjects keeps the store's projects in sync with their remotes until
// ctx ends: every interval it looks for projects that have synced before
// (agentmail sync once, by hand, is what sets a remote up) and runs
// service.SyncEvery for each one it is not syncing yet. Rounds that bring
// or send commits, and failed rounds, are told to note.
func (s *Server) syncProjects(ctx context.Context, interval time.Duration, note func(string)) {
	var loops sync.WaitGroup
	defer loops.Wait()
	running := map[string]bool{}
	for {
		for _, p := range s.syncedProjects(ctx) {
			if running[p.Slug] {
				continue
			}
			running[p.Slug] = true
			loops.Add(1)
			go func() {
				defer loops.Done()
				sc := service.Scope{Project: service.ProjectRef{Key: p.Key}}
				_ = s.gate.Blocking(func(svc *service.Service) error {
					return svc.SyncEvery(ctx, sc, service.SyncRequest{}, interval, func(r service.SyncResponse, err error) {
						switch {
						case err != nil:
							note(fmt.Sprintf("sync %s: %v", p.Slug, err))
						case r.In > 0 || r.Out > 0:
							note(fmt.Sprintf("sync %s: %d in, %d out (%s)", p.Slug, r.In, r.Out, r.Remote))
						}
					})
				})
			}()
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// syncedProjects are the store's projects that have synced before; none
// when the store cannot say (the next tick asks again).
func (s *Server) syncedProjects(ctx context.Context) []service.ProjectSummary {
	var synced []service.ProjectSummary
	_ = s.gate.Do(func(svc *service.Service) (err error) {
		synced, err = svc.SyncedProjects(ctx)
		return err
	})
	return synced
}
