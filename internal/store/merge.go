package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
)

// ProjectHead returns the commit of the project slug's branch, "" when
// the project has none yet.
func (s *Store) ProjectHead(slug string) (string, error) {
	st, err := s.arc.State()
	if err != nil {
		return "", err
	}
	return st[slug], nil
}

// MergeProject merges the commit theirs, fetched from another store, into
// the project slug's branch by record.Merge's rules, under the project's
// lock, and catches the index up across the merge. It returns the branch's
// commit before and after.
func (s *Store) MergeProject(ctx context.Context, slug, theirs string) (before, after string, err error) {
	err = s.withProject(ctx, slug, func() error {
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		before = st[slug]
		// A remote written by an earlier version keeps its reservations
		// in their old place: moved first, each is one record with its
		// version here.
		if after, _, err = s.relayout(slug, theirs); err != nil {
			return err
		}
		if before != "" {
			if after, err = s.arc.Merge(before, after, resolver(slug)); err != nil {
				return err
			}
		}
		if after != before {
			if err := s.arc.MoveProject(slug, before, after); err != nil {
				return err
			}
		}
		return s.catchUpProject(ctx, slug)
	})
	if err == nil {
		s.afterWrite() // a merge adds a pack, as a write does
	}
	return before, after, err
}

// resolver returns how two versions of a file of project slug merge.
func resolver(slug string) archive.Resolve {
	prefix := record.ProjectDir(slug) + "/"
	return func(p string, a, b []byte) ([]byte, bool, error) {
		return record.MergeVersions(prefix+p, a, b)
	}
}

// withProject runs fn under the project slug's lock, with the index caught
// up with the project's branch; under the store lock, with the index
// caught up as a whole, when it cannot be one project at a time.
func (s *Store) withProject(ctx context.Context, slug string, fn func() error) error {
	err := s.withProjectLock(slug, func() error {
		if err := s.catchUpProject(ctx, slug); err != nil {
			return err
		}
		return fn()
	})
	if errors.Is(err, errStartOver) {
		err = s.withLock(func() error {
			if err := s.catchUp(ctx); err != nil {
				return err
			}
			return fn()
		})
	}
	return err
}

// Archive returns the store's archive, for what needs no lock: fetching
// and pushing with the system git, reading its config.
func (s *Store) Archive() *archive.Archive { return s.arc }

// Proposal is a commit of one project that Propose wrote and no branch
// names yet.
type Proposal struct {
	Commit string // the commit
	Parent string // the project's branch it was written on

	slug string
	recs []record.Record
	res  archive.Result
}

// Propose runs fn as UpdateProject does, under the project's lock against
// an up-to-date index, and writes the commit of the records fn queued, all
// of project slug, on top of the project's branch, but moves no ref and
// keeps nothing fn did to the index: the caller publishes the commit
// (pushes it), then adopts it (Adopt). It returns nil when fn queued
// nothing. A grant decided this way is never written here before the
// remote has it, so it never needs to be taken back.
func (s *Store) Propose(ctx context.Context, slug string, fn func(*Tx) error) (*Proposal, error) {
	var p *Proposal
	err := s.withProject(ctx, slug, func() error {
		sqlTx, err := s.writer().BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer sqlTx.Rollback()
		t := &Tx{sql: sqlTx, now: s.Now(), slug: slug}
		defer func() {
			for _, undo := range t.aborted {
				undo() // nothing fn did to the index is kept
			}
		}()
		if err := fn(t); err != nil || len(t.recs) == 0 {
			return err
		}
		d := describe([]*Tx{t})
		prefix := record.ProjectDir(slug) + "/"
		var changes []archive.Change
		for _, r := range t.recs {
			for _, f := range r.Files() {
				rel, ok := strings.CutPrefix(f.Path, prefix)
				if !ok {
					return fmt.Errorf("propose: %s is not in project %s", f.Path, slug)
				}
				changes = append(changes, archive.Change{Path: rel, Data: f.Data})
			}
		}
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		res, err := s.arc.CommitOnto(st[slug], changes, d.author(s.Now()), d.message, s.objectCache(sqlTx))
		if err != nil {
			return err
		}
		p = &Proposal{Commit: res.Head, Parent: st[slug], slug: slug, recs: t.recs, res: res}
		return nil
	})
	return p, err
}

// Adopt moves the project's branch to p's commit, once published, and
// indexes it. While the branch is still at p's parent that costs what a
// write does (its records are indexed as they are, nothing is read back
// from the archive); otherwise the commit is merged (MergeProject).
func (s *Store) Adopt(ctx context.Context, p *Proposal) error {
	adopted := false
	err := s.withProject(ctx, p.slug, func() error {
		sqlTx, err := s.writer().BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer sqlTx.Rollback()
		st, err := s.arc.State()
		if err != nil || st[p.slug] != p.Parent {
			return err // moved meanwhile: merge
		}
		if err := s.arc.MoveProject(p.slug, p.Parent, p.Commit); err != nil {
			return err
		}
		s.wrote.Store(true)
		if err := s.indexRecords(sqlTx, p.slug, p.recs, p.res); err != nil {
			return err
		}
		if err := sqlTx.Commit(); err != nil {
			return fmt.Errorf("index commit: %w", err)
		}
		adopted = true
		return nil
	})
	if err == nil && adopted {
		s.afterWrite()
	}
	if err != nil || adopted {
		return err
	}
	_, _, err = s.MergeProject(ctx, p.slug, p.Commit)
	return err
}

// indexRecords indexes recs, just committed as res on the project slug's
// branch, in tx, and records the branch's new commit as the index's.
func (s *Store) indexRecords(tx *sql.Tx, slug string, recs []record.Record, res archive.Result) error {
	w := newWriter(tx)
	for _, r := range recs {
		if err := s.proj.apply(w, r, s.proj.prepare(r)); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	if err := s.cacheWritten(tx, res); err != nil {
		return err
	}
	idx, err := s.indexHead(tx)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	head, err := archive.ParseState(idx)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	head[slug] = res.Head
	return setHead(tx, head.String(), w.messages, false)
}
