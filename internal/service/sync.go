package service

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// ErrNoRemote reports a project with no remote to sync with.
var ErrNoRemote = errors.New("no remote to sync with")

// SyncRequest says where to sync the scope's project.
type SyncRequest struct {
	Remote string // a git URL; remembered for the project. "" means the remembered one, else origin
	Status bool   // report only, without the network
}

// SyncResponse is the document of sync and sync --status.
type SyncResponse struct {
	Project  string     `json:"project"`
	Remote   string     `json:"remote"`
	Ref      string     `json:"ref"`       // the project's branch on the remote
	Head     string     `json:"head"`      // the project's branch here, after the sync
	In       int        `json:"in"`        // the remote's commits that came in
	Out      int        `json:"out"`       // commits that went out, a merge's included
	Ahead    int        `json:"ahead"`     // commits here the remote had not, as last seen
	Behind   int        `json:"behind"`    // commits on the remote not here, as last seen
	LastSync *time.Time `json:"last_sync"` // null before the first
}

// syncAttempts bounds how many times a sync whose push lost a race to
// another fetches, merges and pushes again.
const syncAttempts = 5

// Sync carries the agents' presence into the archive (see
// mailbox.PublishPresence), fetches the scope's project's branch from its
// remote, merges it into the local one, catches the index up, and pushes
// the result with the remote's compare-and-swap, trying again when another
// push got there first; the leases and locks granted offline that the push
// takes there are confirmed by it. The network is used outside the store
// lock.
func (s *Service) Sync(ctx context.Context, sc Scope, req SyncRequest) (SyncResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return SyncResponse{}, err
	}
	slug := x.project().Slug
	arc := x.st.Archive()
	remote, err := syncRemote(arc, x.project(), req.Remote)
	if err != nil {
		return SyncResponse{}, err
	}
	resp := SyncResponse{Project: slug, Remote: remote, Ref: archive.RemoteRef(slug)}
	// What was last seen on the remote synced with before may not be on
	// another (it is where a fetch starts negotiating, and what status
	// counts from).
	other := false
	if req.Remote != "" {
		before, _ := syncRemote(arc, x.project(), "")
		other = remote != before
	}
	if req.Status && other {
		return syncStatus(x.st, slug, "", resp)
	}
	if !req.Status {
		if other {
			if err := arc.ForgetTracking(slug); err != nil {
				return SyncResponse{}, err
			}
		}
		if _, err := x.mb.PublishPresence(ctx, s.presenceEvery()); err != nil {
			return SyncResponse{}, err
		}
		if err := s.syncOnce(ctx, x.st, slug, remote, &resp, s.settler(ctx, x)); err != nil {
			return SyncResponse{}, err
		}
		// Only a remote synced with is remembered: a mistyped --remote
		// must not become the remote of every later sync and grant.
		if req.Remote != "" {
			if err := arc.SetConfig(syncKey(slug, "remote"), remote); err != nil {
				return SyncResponse{}, err
			}
		}
		if err := arc.SetConfig(syncKey(slug, "lastsync"), s.Now().Format(time.RFC3339)); err != nil {
			return SyncResponse{}, err
		}
	}
	return syncStatus(x.st, slug, arc.Tracking(slug), resp)
}

// presenceEvery is how much later than the archive says an agent must
// have been seen for sync to carry its presence again: a fifth of the
// active window (a minute by default), so that other machines see it
// active while it is, at a commit per agent per minute at most.
func (s *Service) presenceEvery() time.Duration { return s.cfg.Presence.Idle / 5 }

// syncOnce is the fetch, merge, push loop. redecide, when set, runs after
// each merge of what the remote has (commit theirs), before pushing: an error from it
// stops the sync. The push carries the confirmation of the leases and locks
// granted offline that it takes to the remote (see confirmation), adopted
// here once the remote has it.
func (s *Service) syncOnce(ctx context.Context, st *store.Store, slug, remote string, resp *SyncResponse, redecide func(theirs string) error) error {
	arc := st.Archive()
	for attempt := 0; attempt < syncAttempts; attempt++ {
		before, err := st.ProjectHead(slug)
		if err != nil {
			return err
		}
		theirs, err := s.pull(ctx, st, slug, remote)
		if err != nil {
			return err
		}
		if theirs != "" {
			in, err := arc.Count(before, theirs)
			if err != nil {
				return err
			}
			resp.In += in
			if redecide != nil {
				if err := redecide(theirs); err != nil {
					return err
				}
			}
		}
		after, err := st.ProjectHead(slug) // the steps above may have written
		if err != nil || after == "" {
			return err
		}
		confirm, err := confirmation(ctx, st, slug, after)
		if err != nil {
			return err
		}
		push := after
		if confirm != nil {
			push = confirm.Commit
		}
		if push == theirs {
			return nil // nothing here the remote lacks
		}
		out, err := arc.Count(theirs, push)
		if err != nil {
			return err
		}
		err = arc.Push(remote, slug, push, theirs)
		if errors.Is(err, archive.ErrPushRejected) {
			continue // the confirmation, never adopted, goes with it
		}
		if err != nil {
			return err
		}
		resp.Out += out
		if confirm != nil {
			return st.Adopt(ctx, confirm)
		}
		return nil
	}
	return fault.WithValues(fmt.Errorf("%w: sync: %d pushes in a row lost to others", store.ErrBusy, syncAttempts), "operation", "sync")
}

// confirmation proposes (store.Propose) the commit that confirms the
// leases and locks granted offline that the project slug's branch holds
// at after, on top of the branch: pushed with them, it says they reached
// the remote first, which the push's compare-and-swap decides (what lost
// to the remote's was ended before, see settleOffline). It returns nil
// when there is nothing to confirm.
func confirmation(ctx context.Context, st *store.Store, slug, after string) (*store.Proposal, error) {
	rs := reservations.New(st, slug, "", nil)
	var p *store.Proposal
	rs.DecideBy(func(ctx context.Context, fn func(*store.Tx) error) (err error) {
		p, err = st.Propose(ctx, slug, fn)
		return err
	})
	if _, err := rs.Confirm(ctx, remoteAt{st.Archive(), after, slug}); err != nil {
		return nil, fmt.Errorf("confirm the grants made offline: %w", err)
	}
	return p, nil
}

// pull fetches the project slug's branch from remote and merges it into
// the one here, a lock the remote holds winning over another holding of it
// here (see keepRemoteLocks). It returns the remote's commit, "" when it
// has none: when it had one and lost it, the push that follows seeds it
// again with the whole branch here, which a note says.
func (s *Service) pull(ctx context.Context, st *store.Store, slug, remote string) (string, error) {
	theirs, lost, err := st.Archive().Fetch(remote, slug)
	if lost != "" {
		s.note(fmt.Sprintf("%s no longer has %s (it was at %.12s; a git push --mirror or update-ref -d deletes it): "+
			"pushing this store's branch there again, which holds all of it that this store had seen", remote, archive.RemoteRef(slug), lost))
	}
	if err != nil || theirs == "" {
		return theirs, err
	}
	if _, _, err := st.MergeProject(ctx, slug, theirs); err != nil {
		return "", err
	}
	return theirs, keepRemoteLocks(ctx, st, slug, theirs)
}

// syncStatus fills in resp from what the archive knows, without the
// network, seen being what was last seen on the remote ("" for nothing).
func syncStatus(st *store.Store, slug, seen string, resp SyncResponse) (SyncResponse, error) {
	arc := st.Archive()
	head, err := st.ProjectHead(slug)
	if err != nil {
		return resp, err
	}
	resp.Head = head
	if resp.Ahead, err = arc.Count(seen, head); err != nil {
		return resp, err
	}
	if head != "" {
		if resp.Behind, err = arc.Count(head, seen); err != nil {
			return resp, err
		}
	} else if resp.Behind, err = arc.Count("", seen); err != nil {
		return resp, err
	}
	if t, err := time.Parse(time.RFC3339, arc.Config(syncKey(slug, "lastsync"))); err == nil {
		resp.LastSync = &t
	}
	return resp, nil
}

// syncRemote returns the remote to sync the project with: url (a
// relative path made absolute), else the remembered one, else the
// project's origin. Sync remembers url once a sync with it succeeded.
func syncRemote(arc *archive.Archive, proj project.Project, url string) (string, error) {
	key := syncKey(proj.Slug, "remote")
	if url != "" {
		if abs := localPath(url, ""); abs != "" {
			url = abs
		}
		return url, nil
	}
	if url = arc.Config(key); url != "" {
		return url, nil
	}
	if proj.Root != "" {
		out, err := exec.Command("git", "-C", proj.Root, "remote", "get-url", "origin").Output()
		if origin := strings.TrimSpace(string(out)); err == nil && origin != "" {
			if abs := localPath(origin, proj.Root); abs != "" {
				return abs, nil
			}
			return origin, nil
		}
	}
	return "", fmt.Errorf("%w: project %s has no origin remote and none was given", ErrNoRemote, proj.Slug)
}

// localPath returns the absolute path of a remote given as a relative
// local path (relative to dir, or the current directory), "" for a URL or
// an absolute path.
func localPath(url, dir string) string {
	if strings.Contains(url, "://") || filepath.IsAbs(url) || (strings.Contains(url, ":") && !strings.HasPrefix(url, ".")) {
		return ""
	}
	abs, err := filepath.Abs(filepath.Join(dir, url))
	if err != nil {
		return ""
	}
	return abs
}

// syncKey is the archive's git config key of the project slug's setting.
func syncKey(slug, name string) string { return "agentmail." + slug + "." + name }
