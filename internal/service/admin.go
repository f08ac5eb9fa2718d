package service

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/store"
)

// ProjectKey is a project's key and slug.
type ProjectKey struct {
	Key  string `json:"key"`
	Slug string `json:"slug"`
}

// InitResponse is the document of init.
type InitResponse struct {
	Archive string      `json:"archive"`
	Project *ProjectKey `json:"project"` // null when the scope names no project
	Store   string      `json:"store"`
}

// Init opens the store, creating it on first use, and the scope's project
// when it names one it can resolve.
func (s *Service) Init(ctx context.Context, sc Scope) (InitResponse, error) {
	st, err := s.store()
	if err != nil {
		return InitResponse{}, err
	}
	resp := InitResponse{Archive: st.ArchiveDir(), Store: st.Dir()}
	if proj, err := ResolveProject(sc.Project); err == nil {
		x, err := s.sessionFor(ctx, proj, sc.Agent)
		if err != nil {
			return InitResponse{}, err
		}
		resp.Project = &ProjectKey{x.project().Key, x.project().Slug}
	}
	return resp, nil
}

// ArchivePathResponse is the document of archive path.
type ArchivePathResponse struct {
	Path string `json:"path"`
}

// ArchivePath returns the archive repository's path.
func (s *Service) ArchivePath(ctx context.Context) (ArchivePathResponse, error) {
	st, err := s.store()
	if err != nil {
		return ArchivePathResponse{}, err
	}
	return ArchivePathResponse{Path: st.ArchiveDir()}, nil
}

// Archive returns the store's own archive handle, opening the store if
// need be: for a reader in the same process (serve's event feed), which
// then sees the commits this service writes without reading them back
// from disk. It stays open until Close; the caller must not close it.
func (s *Service) Archive() (*archive.Archive, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	return st.Archive(), nil
}

// OnCommit has fn told of every commit this service writes, opening the
// store if need be (see store.Store.OnCommit): serve's event feed takes
// the files of its own writes from there instead of reading them back.
func (s *Service) OnCommit(fn func(store.Committed)) error {
	st, err := s.store()
	if err != nil {
		return err
	}
	st.OnCommit(fn)
	return nil
}

// DoctorRequest says what doctor does: Check, unless Reindex or GC is
// asked for alone.
type DoctorRequest struct {
	Check   bool // verify without changing anything
	Reindex bool // rebuild the index from the archive
	GC      bool // pack the archive into one pack
	// Progress, when set, is told how many messages the rebuild has
	// indexed, out of a total (0 when unknown).
	Progress func(done, total int) `json:"-"`
}

// DoctorResponse is the document of doctor: the parts that ran.
type DoctorResponse struct {
	Check   *DoctorCheck   `json:"check,omitempty"`
	GC      *DoctorGC      `json:"gc,omitempty"`
	Reindex *DoctorReindex `json:"reindex,omitempty"`
}

// DoctorCheck is what the check found.
type DoctorCheck struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	// Notes are what the index keeps out of the archive on purpose: the
	// records another store wrote that no command here would have
	// written (see store.Admitter).
	Notes []string `json:"notes"`

	Archive string `json:"-"` // the archive the index was compared with
}

// DoctorGC is the archive's storage after packing.
type DoctorGC struct {
	Bytes        int64 `json:"bytes"`
	LooseObjects int   `json:"loose_objects"`
	Packs        int   `json:"packs"`
}

// String describes the archive's storage in one line.
func (g DoctorGC) String() string {
	return store.ArchiveStats{LooseObjects: g.LooseObjects, Packs: g.Packs, Bytes: g.Bytes}.String()
}

// DoctorReindex is what the rebuild did.
type DoctorReindex struct {
	Messages          int     `json:"messages"`
	MessagesPerSecond float64 `json:"messages_per_second"`
	Seconds           float64 `json:"seconds"`

	Elapsed time.Duration `json:"-"`
}

// Doctor checks, rebuilds or compacts the store, in that order: reindex,
// gc, check. The response holds the parts that ran, also when a later one
// fails; problems the check finds are an error wrapping store.ErrCorrupt.
func (s *Service) Doctor(ctx context.Context, req DoctorRequest) (DoctorResponse, error) {
	st, err := s.store()
	if err != nil {
		return DoctorResponse{}, err
	}
	var resp DoctorResponse
	if req.Reindex {
		rs, err := st.ReindexWithProgress(ctx, req.Progress)
		if err != nil {
			return resp, err
		}
		resp.Reindex = &DoctorReindex{Messages: rs.Messages, MessagesPerSecond: float64(rs.Messages) / rs.Elapsed.Seconds(),
			Seconds: rs.Elapsed.Seconds(), Elapsed: rs.Elapsed}
	}
	if req.GC {
		gs, err := st.GC()
		if err != nil {
			return resp, err
		}
		resp.GC = &DoctorGC{Bytes: gs.Bytes, LooseObjects: gs.LooseObjects, Packs: gs.Packs}
	}
	if req.Check || !req.Reindex && !req.GC {
		problems, err := st.Check(ctx)
		if err != nil {
			return resp, err
		}
		refused, err := st.Refused(ctx)
		if err != nil {
			return resp, err
		}
		resp.Check = &DoctorCheck{OK: len(problems) == 0, Problems: append([]string{}, problems...),
			Notes: append([]string{}, refused...), Archive: st.ArchiveDir()}
		if len(problems) > 0 {
			return resp, fault.WithHint(fmt.Errorf("%w: doctor found %d %s", store.ErrCorrupt, len(problems), plural(len(problems), "problem", "problems")),
				"run agentmail doctor --reindex to rebuild the index from the archive")
		}
	}
	return resp, nil
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
