package store

import (
	"context"
	"errors"

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
	err = s.withProjectLock(slug, func() error {
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		before, after = st[slug], theirs
		if before != "" {
			prefix := record.ProjectDir(slug) + "/"
			after, err = s.arc.Merge(before, theirs, func(p string, a, b []byte) ([]byte, error) {
				return record.Merge(prefix+p, a, b)
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
		return s.catchUpProject(ctx, slug)
	})
	if errors.Is(err, errStartOver) {
		err = s.withLock(func() error { return s.catchUp(ctx) })
	}
	return before, after, err
}

// Archive returns the store's archive, for what needs no lock: fetching
// and pushing with the system git, reading its config.
func (s *Store) Archive() *archive.Archive { return s.arc }
