package store

import (
	"context"
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
// the project slug's branch by record.Merge's rules, under the lock, and
// catches the index up across the merge. It returns the branch's commit
// before and after.
func (s *Store) MergeProject(ctx context.Context, slug, theirs string) (before, after string, err error) {
	err = s.withLock(func() error {
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		before, after = st[slug], theirs
		if before != "" {
			prefix := record.ProjectDir(slug) + "/"
			after, err = s.arc.Merge(before, theirs, func(p string, a, b []byte) ([]byte, bool, error) {
				return record.MergeVersions(prefix+p, a, b)
			})
			if err != nil {
				return err
			}
		}
		if after != before {
			if err := s.arc.MoveProject(slug, before, after); err != nil {
				return err
			}
		}
		if err := s.catchUp(ctx); err != nil {
			return err
		}
		s.pack() // a merge adds a pack, as a write does
		return nil
	})
	return before, after, err
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

// Propose runs fn as Update does, under the lock against an up-to-date
// index, and writes the commit of the records fn queued, all of project
// slug, on top of the project's branch, but moves no ref and keeps nothing
// fn did to the index: the caller publishes the commit (pushes it), then
// adopts it (Adopt). It returns nil when fn queued nothing. A grant decided
// this way is never written here before the remote has it, so it never
// needs to be taken back.
func (s *Store) Propose(ctx context.Context, slug string, fn func(*Tx) error) (*Proposal, error) {
	var p *Proposal
	err := s.withLock(func() error {
		t, err := s.begin(ctx)
		if err != nil {
			return err
		}
		sqlTx := t.sql
		defer sqlTx.Rollback()
		defer func() {
			for _, undo := range t.aborted {
				undo() // nothing fn did to the index is kept
			}
		}()
		if err := fn(t); err != nil || len(t.recs) == 0 {
			return err
		}
		changes, author, subject := t.commit(s.Now())
		prefix := record.ProjectDir(slug) + "/"
		for i, c := range changes {
			rel, ok := strings.CutPrefix(c.Path, prefix)
			if !ok {
				return fmt.Errorf("propose: %s is not in project %s", c.Path, slug)
			}
			changes[i].Path = rel
		}
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		cache, err := newObjectCache(sqlTx)
		if err != nil {
			return err
		}
		defer cache.close()
		res, err := s.arc.CommitOnto(st[slug], changes, author, subject, cache)
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
	err := s.withLock(func() error {
		t, err := s.begin(ctx)
		if err != nil {
			return err
		}
		defer t.sql.Rollback()
		st, err := s.arc.State()
		if err != nil || st[p.slug] != p.Parent {
			return err // moved meanwhile: merge
		}
		if err := s.arc.MoveProject(p.slug, p.Parent, p.Commit); err != nil {
			return err
		}
		st[p.slug] = p.Commit
		if err := s.indexRecords(t.sql, p.recs, p.res, st.String()); err != nil {
			return err
		}
		if err := t.sql.Commit(); err != nil {
			return fmt.Errorf("index commit: %w", err)
		}
		adopted = true
		s.pack()
		return nil
	})
	if err != nil || adopted {
		return err
	}
	_, _, err = s.MergeProject(ctx, p.slug, p.Commit)
	return err
}

// pack packs the archive past maxPacks packs, as a write does. The caller
// holds the lock.
func (s *Store) pack() {
	if s.shouldPack() {
		if err := s.arc.Pack(s.lock.File()); err != nil {
			s.notes = append(s.notes, "could not pack the archive: "+err.Error())
		}
	}
}
