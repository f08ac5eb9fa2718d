package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
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

// HealthResponse is the document of a server's health endpoint: "ok" and
// the state of the store it serves.
type HealthResponse struct {
	Status   string `json:"status"` // ok
	Store    string `json:"store"`
	Archive  string `json:"archive"`
	ReadOnly bool   `json:"read_only"` // the store can be read, not written
	Projects int    `json:"projects"`  // how many projects the store holds
	Messages int    `json:"messages"`  // in all of them
	Agents   int    `json:"agents"`
}

// Health opens the store if need be, brings its index up to date with the
// archive, and says what it holds: an error when it cannot.
func (s *Service) Health(ctx context.Context) (HealthResponse, error) {
	list, err := s.Projects(ctx, true)
	if err != nil {
		return HealthResponse{}, err
	}
	st, err := s.store()
	if err != nil {
		return HealthResponse{}, err
	}
	h := HealthResponse{Status: "ok", Store: st.Dir(), Archive: st.ArchiveDir(), ReadOnly: st.ReadOnly(), Projects: len(list.Projects)}
	for _, p := range list.Projects {
		h.Messages += p.Holds.Messages
		h.Agents += p.Holds.Agents
	}
	return h, nil
}

// EnsureProject is Init that also records the scope's project in the
// store, if it is not there yet: from then on it is a known project
// (FindProject), as mcp_agent_mail's ensure_project makes one.
func (s *Service) EnsureProject(ctx context.Context, sc Scope) (InitResponse, error) {
	proj, err := ResolveProject(sc.Project)
	if err != nil {
		return InitResponse{}, err
	}
	x, err := s.sessionFor(ctx, proj, "")
	if err != nil {
		return InitResponse{}, err
	}
	if err := x.mb.EnsureProject(ctx); err != nil {
		return InitResponse{}, err
	}
	return s.Init(ctx, sc)
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

// Writing reports whether a write of the service's store is under way,
// between moving a branch and telling OnCommit's function of it (see
// store.Store.Writing); false before the store is open.
func (s *Service) Writing() bool {
	st := s.opened()
	return st != nil && st.Writing()
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
	// Dir, when set, is a directory whose repository the check also
	// looks at: whether git runs the guard's hooks there.
	Dir string
}

// DoctorResponse is the document of doctor: the parts that ran.
type DoctorResponse struct {
	Check   *DoctorCheck   `json:"check,omitempty"`
	GC      *DoctorGC      `json:"gc,omitempty"`
	Reindex *DoctorReindex `json:"reindex,omitempty"`
}

// DoctorCheck is what the check found.
type DoctorCheck struct {
	Guard    *string  `json:"guard"` // git does not run the guard's hooks in the repository: HooksWarning.Problem
	OK       bool     `json:"ok"`    // the index matches the archive
	Problems []string `json:"problems"`
	// Notes are what the index keeps out of the archive on purpose: the
	// records another store wrote that no command here would have
	// written (see store.Admitter).
	Notes []string `json:"notes"`

	HooksWarning *HooksWarning `json:"-"`

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
		// Any command catches the index up first; so does doctor. One
		// that cannot for lack of space leaves it behind, which Check
		// reports, and the error is that (STORE_FULL), not damage.
		var full error
		if !st.ReadOnly() {
			if err := st.CatchUp(ctx); store.IsFull(err) {
				full = err
			}
		}
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
		if len(problems) > 0 && full != nil {
			return resp, fault.WithHint(fmt.Errorf("%w: the index is behind the archive and cannot catch up: %v", store.ErrFull, full),
				"free space on the store's disk: nothing is lost, the archive has every write, and the next command catches the index up")
		}
		if req.Dir != "" {
			if p, err := project.ResolveProject(req.Dir); err == nil {
				if w := GuardHooksWarning(p); w != nil {
					resp.Check.HooksWarning, resp.Check.Guard = w, optString(w.Problem())
				}
			}
		}
		if len(problems) > 0 {
			what := store.ErrIndexDiffers // the archive is sound: only the index is at fault
			for _, p := range problems {
				if !strings.HasPrefix(p, "index ") {
					what = store.ErrCorrupt
				}
			}
			return resp, fault.WithValues(fmt.Errorf("%w: doctor found %d %s", what, len(problems), plural(len(problems), "problem", "problems")),
				"problems", len(problems), "repair", "reindex")
		}
		if w := resp.Check.HooksWarning; w != nil {
			return resp, w.notRun()
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
