package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
)

// synced reports whether x's project has synced: from then on its grants
// are decided by the push, and returns the remote to push to.
func (x *session) synced() (string, bool, error) {
	arc := x.st.Archive()
	slug := x.project().Slug
	if arc.Config(syncKey(slug, "lastsync")) == "" {
		return "", false, nil
	}
	remote, err := syncRemote(arc, x.project(), "")
	return remote, err == nil, err
}

// confirmGrant makes a grant just committed here hold only once the
// remote's ref has it, for a project that has synced: it fetches, merges
// and pushes like sync, and after each merge redecide says whether the
// grant still stands against what landed on the remote first. When it
// does not, or the remote cannot be reached, undo ends the grant here and
// the error says why. A project that never synced grants locally.
func (s *Service) confirmGrant(ctx context.Context, x *session, redecide func() error, undo func() error) error {
	remote, ok, err := x.synced()
	if !ok {
		return err
	}
	var resp SyncResponse
	err = s.syncOnce(ctx, x.st, x.project().Slug, remote, &resp, redecide)
	if err == nil {
		return nil
	}
	if uerr := undo(); uerr != nil {
		return fmt.Errorf("%w (and ending the grant here failed: %v)", err, uerr)
	}
	if errors.Is(err, archive.ErrUnreachable) {
		return fault.WithHint(fmt.Errorf("not granted: the grant must reach %s first: %w", remote, err),
			"check the remote (git ls-remote "+remote+"), or pass --offline to grant here only, unconfirmed")
	}
	return err
}
