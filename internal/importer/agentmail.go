// Package importer brings mail kept by other systems into a project of
// the store: today the archive of the Python mcp_agent_mail server. It
// reads their files and writes what it finds through the mailbox's and the
// reservations' import APIs, one archive commit per batch.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// Counts counts records of each kind.
type Counts struct {
	Agents       int
	Messages     int
	Reservations int
}

func (c *Counts) add(o Counts) {
	c.Agents += o.Agents
	c.Messages += o.Messages
	c.Reservations += o.Reservations
}

// DefaultBatch is how many records AgentMail writes per archive commit.
// Each commit also costs the index a transaction (FTS5 writes and merges
// a segment at each) and the archive the day directories' trees again:
// importing 100,000 messages took 29-30 s of cpu in batches of 500, 20-24
// in batches of 2,000 and 21 in batches of 5,000.
const DefaultBatch = 5000

// Options tune AgentMail.
type Options struct {
	// SourceProject is the slug, under DIR/projects, of the project to
	// import; needed when DIR holds more than one.
	SourceProject string
	// BatchSize is the number of records per archive commit; 0 means
	// DefaultBatch.
	BatchSize int
	// Progress, when set, is told how many of the total records (agents,
	// messages and reservations read from the source) are done: once
	// before the first batch, then after each.
	Progress func(done, total int)
}

// Report is what an import did.
type Report struct {
	Dir       string   // the source directory, absolute
	Source    string   // the slug of the imported project in the source
	Imported  Counts   // written now
	Skipped   Counts   // already present: imported before, or registered here
	Malformed Counts   // files that could not be used; each has a warning
	Warnings  []string // "file: reason", the file relative to Dir
}

// AgentMail imports into mb's project, in st, one project of an archive written by the Python mcp_agent_mail server, given its storage
// root dir (or the project's own directory under dir/projects):
//
//	projects/<slug>/agents/<Name>/profile.json        agents
//	projects/<slug>/messages/YYYY/MM/<...>.md          messages (JSON front matter)
//	projects/<slug>/file_reservations/*.json           file reservations
//
// The inbox and outbox copies under agents/<Name>/ are not read: they are
// byte-identical copies of the canonical files.
//
// Messages keep their time, sender, recipients, subject, importance, ack
// request, body and thread: a message without a thread_id is filed under
// its original id, which is how the Python server groups replies to it.
// Each gets a ULID made of its time and a hash of the project and its
// original id, so importing again finds it already present: the import is
// idempotent. Reservations likewise, and agents by name.
//
// A file that cannot be used (unreadable JSON, missing fields, an agent
// name agentmail does not accept, a sender with no profile) is skipped with
// a warning naming it; a recipient with no usable profile is dropped from
// its message with a warning (and the message skipped if none is left).
// Records are written in batches of opts.BatchSize, one archive commit
// each.
func AgentMail(ctx context.Context, st *store.Store, mb *mailbox.Mailbox, dir string, opts Options) (Report, error) {
	rep := Report{Warnings: []string{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return rep, err
	}
	rep.Dir = abs
	projDir, slug, err := agentMailProject(abs, strings.TrimSpace(opts.SourceProject))
	if err != nil {
		return rep, err
	}
	rep.Source = slug
	proj := mb.Project()
	src := &agentMailSource{root: abs, dir: projDir, target: proj.Slug, rep: &rep, here: map[string]string{}}
	registered, err := mb.AgentNames(ctx)
	if err != nil {
		return rep, err
	}
	for _, n := range registered {
		src.here[names.Fold(n)] = n
	}
	agents := src.readAgents()
	msgs := src.readMessages()
	var isDir func(string) bool
	if root := proj.Root; root != "" {
		isDir = func(rel string) bool {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
			return err == nil && fi.IsDir()
		}
	}
	res := src.readReservations(isDir)

	w := &writer{st: st, mb: mb, res: reservations.New(st, proj.Slug, "", nil), size: opts.BatchSize, progress: opts.Progress}
	if w.size <= 0 {
		w.size = DefaultBatch
	}
	w.total = len(agents) + len(msgs) + len(res)
	w.report()
	for _, a := range agents {
		w.batch.Agents = append(w.batch.Agents, a)
		if err := w.added(ctx, &rep); err != nil {
			return rep, err
		}
	}
	for _, m := range msgs {
		w.batch.Messages = append(w.batch.Messages, m)
		if err := w.added(ctx, &rep); err != nil {
			return rep, err
		}
	}
	for _, r := range res {
		w.reservations = append(w.reservations, r)
		if err := w.added(ctx, &rep); err != nil {
			return rep, err
		}
	}
	return rep, w.flush(ctx, &rep)
}

// writer writes imported records in batches, one archive commit each.
type writer struct {
	st           *store.Store
	mb           *mailbox.Mailbox
	res          *reservations.Service
	size         int                   // records per batch
	batch        mailbox.ImportBatch   // the batch being gathered: agents and messages
	reservations []record.Reservation  // and reservations
	n            int                   // records in the batch
	done, total  int                   // records written, and to write
	progress     func(done, total int) // told after each batch, if set
}

func (w *writer) report() {
	if w.progress != nil {
		w.progress(w.done, w.total)
	}
}

// added counts a record added to the batch, and writes the batch once it
// is full.
func (w *writer) added(ctx context.Context, rep *Report) error {
	if w.n++; w.n >= w.size {
		return w.flush(ctx, rep)
	}
	return nil
}

// flush writes the batch, if it holds anything, as one archive commit.
func (w *writer) flush(ctx context.Context, rep *Report) error {
	if w.n == 0 {
		return nil
	}
	var written, present Counts
	err := w.st.Update(ctx, func(tx *store.Tx) error {
		mw, mp, err := w.mb.Import(ctx, tx, w.batch)
		if err != nil {
			return err
		}
		rw, rp, err := w.res.Import(ctx, tx, w.reservations)
		if err != nil {
			return err
		}
		written = Counts{mw.Agents, mw.Messages, rw}
		present = Counts{mp.Agents, mp.Messages, rp}
		tx.Describe("agentmail", commitSubject("agent-mail", written))
		return nil
	})
	if err != nil {
		return err
	}
	rep.Imported.add(written)
	rep.Skipped.add(present)
	w.done += w.n
	w.batch, w.reservations, w.n = mailbox.ImportBatch{}, nil, 0
	w.report()
	return nil
}

// commitSubject is the commit subject of an import batch:
// "import: agent-mail 3 agents, 500 messages".
func commitSubject(source string, c Counts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.Agents, "agent"}, {c.Messages, "message"}, {c.Reservations, "reservation"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.what))
		}
	}
	if len(parts) == 0 {
		parts = []string{"project"}
	}
	return strings.TrimSpace("import: " + source + " " + strings.Join(parts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// agentMailProject finds the project directory to import under root: the
// only one under root/projects, the one named want, or root itself when it
// is a project directory.
func agentMailProject(root, want string) (dir, slug string, err error) {
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return "", "", fault.WithHint(fmt.Errorf("%w: %s is not a directory", fault.ErrInvalidArgument, root),
			"pass the storage root of the mcp_agent_mail server (its STORAGE_ROOT)")
	}
	entries, err := os.ReadDir(filepath.Join(root, "projects"))
	if errors.Is(err, fs.ErrNotExist) {
		if dirExists(filepath.Join(root, "messages")) || dirExists(filepath.Join(root, "agents")) {
			slug = filepath.Base(root)
			if want != "" && want != slug {
				return "", "", fault.WithHint(fault.WithField(fmt.Errorf("%w: %s is the agent-mail project %s, not %s", fault.ErrInvalidArgument, root, slug, want), "source_project", "problem", "not_root", "want", want),
					"name no source project, or give the storage root that holds projects/"+want)
			}
			return root, slug, nil
		}
		return "", "", fault.WithHint(fmt.Errorf("%w: %s is not an mcp_agent_mail archive (it has no projects/ directory)", fault.ErrInvalidArgument, root),
			"pass the server's storage root (its STORAGE_ROOT), which holds projects/<slug>/messages")
	}
	if err != nil {
		return "", "", err
	}
	var slugs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			slugs = append(slugs, e.Name())
		}
	}
	switch {
	case want != "":
		if !slices.Contains(slugs, want) {
			return "", "", fault.WithHint(fault.WithField(fmt.Errorf("%w: no agent-mail project %q in %s (it has: %s)", fault.ErrNotFound, want, root, listOrNone(slugs)), "source_project", "problem", "absent"),
				"name one of them as the source project")
		}
		slug = want
	case len(slugs) == 0:
		return "", "", fault.WithHint(fmt.Errorf("%w: %s holds no agent-mail projects", fault.ErrNotFound, filepath.Join(root, "projects")),
			"pass the storage root of a server that has stored mail")
	case len(slugs) > 1:
		return "", "", fault.WithHint(fault.WithField(fmt.Errorf("%w: %s holds %d agent-mail projects: %s", fault.ErrInvalidArgument, root, len(slugs), strings.Join(slugs, ", ")), "source_project", "problem", "several"),
			"choose the one to import into this project as the source project")
	default:
		slug = slugs[0]
	}
	return filepath.Join(root, "projects", slug), slug, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
