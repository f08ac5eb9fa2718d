// Package service is agentmail's operations, each written once, for every
// face that offers them: the command line today, the MCP and HTTP servers
// next. A request type carries an operation's inputs, which the service
// validates; its response type is the operation's --json document, which a
// caller marshals as it is (and renders as text from). Describe maps every
// error to one code, exit status and HTTP status.
//
// A Service serves one store for as long as its caller likes, for any
// number of projects and agents: every operation names its project and
// acting agent in a Scope, and reads nothing from the process (environment,
// working directory) on its own.
package service

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/ports"
	"github.com/agentmail/agentmail/internal/products"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
	"github.com/agentmail/agentmail/internal/webhooks"
)

// Config says which store a Service serves and how.
type Config struct {
	// Dir is the store directory, an absolute path. The first operation
	// that needs the store opens it, creating it if need be.
	Dir string
	// Now is the clock every record and lease is dated by; nil means
	// time.Now.
	Now func() time.Time
	// Presence are the thresholds of an agent's presence; zero means
	// mailbox.DefaultPresence.
	Presence mailbox.PresenceRules
	// Note is told, one line at a time, what the store repaired on its
	// own and what could not be done but did not stop the operation. Nil
	// drops them.
	Note func(string)
	// LongLived says the process serves many operations (agentmail serve,
	// agentmail mcp): the store then consolidates the archive's packs in
	// the background, off the writers' path (store.Options.RollUpInBackground).
	LongLived bool
	// MaxBody is the largest message body accepted, in bytes; 0 means
	// DefaultMaxBody (see ParseMaxBody).
	MaxBody int
}

// Service is agentmail's operations on one store. It opens the store
// once, for whichever call needs it first. It is safe for concurrent use:
// reads run in parallel, and writes to one project one at a time (see
// store.Store); Config.Note may be called from several goroutines.
type Service struct {
	cfg Config

	mu sync.Mutex
	st *store.Store // nil until an operation needs it

	tokenMu     sync.Mutex
	tokenSecret []byte               // the registration tokens' secret, once read (see RegistrationToken)
	wh          *webhooks.DB         // the webhooks' database, nil until needed
	whRun       *webhooks.Dispatcher // the deliveries under way (DeliverWebhooks), if any
}

// New returns the service of the store cfg names. It opens nothing yet.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Presence == (mailbox.PresenceRules{}) {
		cfg.Presence = mailbox.DefaultPresence
	}
	return &Service{cfg: cfg}
}

// Scope is who an operation acts for: a project, and the agent acting in
// it ("" for nobody: a human at the terminal, or a read-only overview).
type Scope struct {
	Project ProjectRef
	Agent   string
	// Watching: an overseer looks at Agent's mail (a web page, an API
	// read); the agent's last-seen time is not refreshed.
	Watching bool
}

// ProjectRef names a project: by key, or by a directory in its git
// repository.
type ProjectRef struct {
	// Key is the project key (a remote URL, a host/path key or an
	// absolute path); "" takes the project of the repository around Dir.
	Key string
	// KeySource says where Key came from: SourceFlag (the default) or
	// SourceEnv.
	KeySource string
	// Dir is the directory the caller works in, absolute: paths in
	// requests are relative to it, as in git.
	Dir string
}

// How a project's key was chosen (ProjectInfo.Source; ProjectRef.KeySource
// takes the last two).
const (
	SourcePinned = project.SourcePinned // the pin in the repository's git configuration
	SourceOrigin = project.SourceOrigin // the origin remote's URL, at the repository's first use
	SourcePath   = project.SourcePath   // the main worktree's path, at the repository's first use
	SourceFlag   = project.SourceFlag   // given as a flag (--project), or by an API caller
	SourceEnv    = project.SourceEnv    // AGENTMAIL_PROJECT
)

// PinKey is the git configuration key that pins a repository to its
// project.
const PinKey = project.PinKey

// ActiveWindow is how recently an agent must have run a command to count
// as active by default.
const ActiveWindow = mailbox.ActiveWindow

// ResolveProject returns the project ref names: the key's when it has
// one (with the working tree around Dir, if any), else the project of the
// repository around Dir.
func ResolveProject(ref ProjectRef) (project.Project, error) { return resolveProjectAt(ref, nil) }

// resolveProjectAt is ResolveProject, given at, the result of
// project.Project{}.In(ref.Dir) when known already (nil when not): the
// repository is then not found and read again.
func resolveProjectAt(ref ProjectRef, at *project.Project) (project.Project, error) {
	switch {
	case ref.Key == "" && ref.Dir == "":
		return project.Project{}, fault.WithHint(fmt.Errorf("%w: neither a project key nor a directory given", project.ErrNoProject),
			"name the project by its key, or by a directory in its git repository")
	case ref.Key == "" && at != nil:
		return project.ResolveIn(ref.Dir, *at)
	case ref.Key == "":
		return project.ResolveProject(ref.Dir)
	}
	if err := project.CheckGivenKey(ref.Key); err != nil {
		return project.Project{}, err
	}
	p, err := project.ProjectFromKey(ref.Key)
	if err != nil {
		return p, err
	}
	p.Source = project.SourceFlag
	if ref.KeySource != "" {
		p.Source = ref.KeySource
	}
	switch {
	case ref.Dir == "":
		return p, nil // no working tree: paths are relative to the repository root
	case at != nil:
		return p.Placed(*at), nil
	}
	return p.In(ref.Dir), nil
}

// Dir returns the store directory.
func (s *Service) Dir() string { return s.cfg.Dir }

// Now returns the service's clock, in whole seconds as records keep it.
func (s *Service) Now() time.Time { return s.cfg.Now().UTC().Truncate(time.Second) }

// store returns the open store, opening it the first time.
func (s *Service) store() (*store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st, nil
	}
	dir := s.cfg.Dir
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fault.WithField(fmt.Errorf("%w: %s is a file, not a directory", store.ErrNotWritable, dir), "store", "problem", "file")
	}
	st, err := store.Open(dir, store.Options{Now: s.cfg.Now, Projections: Projections(), RollUpInBackground: s.cfg.LongLived,
		OneShot: !s.cfg.LongLived})
	if err != nil {
		return nil, err
	}
	s.st = st
	s.passNotes(st)
	return st, nil
}

// Projections are the tables of the index a service opens its store with:
// mail, reservations, search, port claims, inbox event cursors and products. Every process opening a store registers
// the same ones (see store.Options).
func Projections() []store.Projection {
	return []store.Projection{mailbox.Projection(), reservations.Projection(), fts.Projection(), ports.Projection(), mailbox.CursorProjection(), products.Projection(), tasks.Projection(), mailbox.AttentionProjection(), mailbox.RulesProjection()}
}

// opened returns the store if an operation opened it, else nil.
func (s *Service) opened() *store.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// note passes a line to Config.Note.
func (s *Service) note(line string) {
	if s.cfg.Note != nil {
		s.cfg.Note(line)
	}
}

// passNotes passes on what st repaired since it last said.
func (s *Service) passNotes(st *store.Store) {
	for _, n := range st.Notes() {
		s.note(n)
	}
}

// Wrote reports whether an operation committed anything to the archive:
// one that did cannot simply be run again.
func (s *Service) Wrote() bool {
	st := s.opened()
	return st != nil && st.Wrote()
}

// RepairIndex rebuilds the store's damaged index from the archive (cause
// is how the damage showed), if the store is open. The service stays
// usable: a read-only store's rebuilt index is a private one.
func (s *Service) RepairIndex(ctx context.Context, cause error) error {
	st := s.opened()
	if st == nil {
		return nil
	}
	err := st.RepairIndex(ctx, cause)
	s.passNotes(st)
	return err
}

// Close passes on the store's last notes and closes it. A process that
// exits without closing leaves SQLite's WAL behind, for every later process
// to replay.
func (s *Service) Close() error {
	s.mu.Lock()
	st := s.st
	s.st = nil
	wh := s.wh
	s.wh = nil
	s.mu.Unlock()
	if wh != nil {
		if err := wh.Close(); err != nil {
			s.note(fmt.Sprintf("close the webhooks' database: %v", err))
		}
	}
	if st == nil {
		return nil
	}
	s.passNotes(st)
	if err := st.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// session is one operation's view of a project's mail.
type session struct {
	st *store.Store
	mb *mailbox.Mailbox
}

// project returns the session's project.
func (x *session) project() project.Project { return x.mb.Project() }

// session resolves sc's project, then opens its mailbox, acting as sc's
// agent, with the index caught up with the archive.
func (s *Service) session(ctx context.Context, sc Scope) (*session, error) {
	proj, err := ResolveProject(sc.Project)
	if err != nil {
		return nil, err
	}
	x, err := s.sessionFor(ctx, proj, sc.Agent)
	if err == nil && sc.Watching {
		x.mb.Watch()
	}
	return x, err
}

// sessionFor opens proj's mailbox, acting as agent. The first time a
// repository is used its key is pinned: the one the store knows it by (see
// mailbox.Open), so that what is there stays in view whatever happens to
// the repository's remotes later.
func (s *Service) sessionFor(ctx context.Context, proj project.Project, agent string) (*session, error) {
	x, err := s.unpinnedSession(ctx, proj, agent)
	if err != nil {
		return nil, err
	}
	x.pin(ctx, s)
	return x, nil
}

// unpinnedSession opens proj's mailbox, acting as agent, leaving the
// repository's configuration alone: for a guard check, which must not
// mark a repository as used when the store does not know it.
func (s *Service) unpinnedSession(ctx context.Context, proj project.Project, agent string) (*session, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	mb, err := mailbox.Open(ctx, st, proj, agent)
	if err != nil {
		return nil, err
	}
	mb.SetPresence(s.cfg.Presence)
	s.passNotes(st)
	return &session{st: st, mb: mb}, nil
}

// pin pins the session's project key in its repository, when it was
// derived; a failure is a note, not an error.
func (x *session) pin(ctx context.Context, s *Service) {
	pinned := x.mb.Project()
	if _, err := pinned.Pin(ctx); err != nil {
		s.note(fmt.Sprintf("the project key is not pinned, so adding or changing origin would move it: %v", err))
	}
}

// ParsePresence reads the presence thresholds from the environment getenv
// looks in (AGENTMAIL_IDLE_AFTER, AGENTMAIL_STALE_AFTER), over the
// defaults.
func ParsePresence(getenv func(string) string) (mailbox.PresenceRules, error) {
	rules := mailbox.DefaultPresence
	for _, v := range []struct {
		name string
		to   *time.Duration
	}{{"AGENTMAIL_IDLE_AFTER", &rules.Idle}, {"AGENTMAIL_STALE_AFTER", &rules.Stale}} {
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return rules, Usagef("set it to a duration such as 10m", "%s=%q is not a positive duration", v.name, s)
			}
			*v.to = d
		}
	}
	return rules, nil
}
