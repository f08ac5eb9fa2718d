package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/reservations"
)

func source(rs ...reservations.Reservation) Source {
	return func(context.Context, func() ([]string, error)) ([]reservations.Reservation, error) { return rs, nil }
}

func TestCheck(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "src/api/a.go", "x")
	write(t, dir, "free.txt", "x")
	run(t, dir, "add", "-A")

	held := source(res("BlueLake", "src/api/**"))

	// Block mode: an error wrapping ErrBlocked, with the bypass hint.
	rep, err := Check(ctx, CheckOptions{Dir: dir, Agent: "GreenCastle", Reservations: held})
	if !errors.Is(err, ErrBlocked) || !rep.Blocked || len(rep.Conflicts) != 1 || rep.Paths != 2 {
		t.Fatalf("block: %+v, %v", rep, err)
	}
	if c := rep.Conflicts[0]; c.Path != "src/api/a.go" || c.Holder != "BlueLake" || c.Pattern != "src/api/**" {
		t.Errorf("conflict %+v", c)
	}
	if !strings.Contains(fault.Hint(err), "AGENTMAIL_BYPASS=1") || !strings.Contains(err.Error(), "src/api/a.go (held by BlueLake)") {
		t.Errorf("error %q, hint %q", err, fault.Hint(err))
	}

	// Warn mode: the same conflicts, no error.
	rep, err = Check(ctx, CheckOptions{Dir: dir, Agent: "GreenCastle", Mode: Warn, Reservations: held})
	if err != nil || rep.Blocked || len(rep.Conflicts) != 1 {
		t.Errorf("warn: %+v, %v", rep, err)
	}

	// The holder, and a bypass, pass.
	if rep, err := Check(ctx, CheckOptions{Dir: dir, Agent: "bluelake", Reservations: held}); err != nil || len(rep.Conflicts) != 0 {
		t.Errorf("holder: %+v, %v", rep, err)
	}
	if rep, err := Check(ctx, CheckOptions{Dir: dir, Bypass: true, Reservations: held}); err != nil || !rep.Bypassed {
		t.Errorf("bypass: %+v, %v", rep, err)
	}

	// Explicit paths.
	rep, err = Check(ctx, CheckOptions{Dir: dir, Paths: []string{"./src/api/x.go", "README"}, Reservations: held})
	if !errors.Is(err, ErrBlocked) || len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "src/api/x.go" {
		t.Errorf("paths: %+v, %v", rep, err)
	}

	// Nothing held by others: git's answer is not needed (in a directory
	// that is no repository it fails).
	nowhere := filepath.Join(t.TempDir(), "missing")
	if rep, err := Check(ctx, CheckOptions{Dir: nowhere, Reservations: source()}); err != nil || len(rep.Conflicts) != 0 {
		t.Errorf("nothing held: %+v, %v", rep, err)
	}
	// ... but when something is, a failing git fails closed.
	if _, err := Check(ctx, CheckOptions{Dir: nowhere, Reservations: held}); !errors.Is(err, ErrUnchecked) {
		t.Errorf("git failing: %v", err)
	}

	// An unreadable store: closed in block mode, a report in warn mode.
	broken := func(context.Context, func() ([]string, error)) ([]reservations.Reservation, error) {
		return nil, errors.New("archive is damaged")
	}
	rep, err = Check(ctx, CheckOptions{Dir: dir, Reservations: broken})
	if !errors.Is(err, ErrUnchecked) || !strings.Contains(err.Error(), "archive is damaged") || !strings.Contains(fault.Hint(err), "--no-verify") {
		t.Errorf("broken store, block: %v (%s)", err, fault.Hint(err))
	}
	rep, err = Check(ctx, CheckOptions{Dir: dir, Mode: Warn, Reservations: broken})
	if err != nil || rep.Unchecked == nil {
		t.Errorf("broken store, warn: %+v, %v", rep, err)
	}

	// Bad arguments.
	if _, err := Check(ctx, CheckOptions{Dir: dir, Hook: "post-commit", Reservations: held}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad hook: %v", err)
	}
	if _, err := Check(ctx, CheckOptions{Dir: dir, Mode: "loud", Reservations: held}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad mode: %v", err)
	}

	// core.ignorecase decides whether another case matches.
	write(t, dir, "Docs/x.md", "x")
	run(t, dir, "add", "-A")
	docs := source(res("BlueLake", "docs/**"))
	run(t, dir, "config", "core.ignorecase", "false")
	if rep, err := Check(ctx, CheckOptions{Dir: dir, Reservations: docs}); err != nil || len(rep.Conflicts) != 0 {
		t.Errorf("ignorecase false: %+v, %v", rep, err)
	}
	run(t, dir, "config", "core.ignorecase", "true")
	if rep, err := Check(ctx, CheckOptions{Dir: dir, Reservations: docs}); !errors.Is(err, ErrBlocked) || rep.Conflicts[0].Path != "Docs/x.md" {
		t.Errorf("ignorecase true: %+v, %v", rep, err)
	}

	// Pre-push reads the refs from Stdin.
	run(t, dir, "commit", "-q", "--no-verify", "-m", "c")
	head := run(t, dir, "rev-parse", "HEAD")
	rep, err = Check(ctx, CheckOptions{Dir: dir, Hook: PrePush, Reservations: held,
		Stdin: strings.NewReader("refs/heads/main " + head + " refs/heads/main " + strings.Repeat("0", 40) + "\n")})
	if !errors.Is(err, ErrBlocked) || rep.Conflicts[0].Path != "src/api/a.go" {
		t.Errorf("pre-push: %+v, %v", rep, err)
	}
}

func TestStoreAbsent(t *testing.T) {
	dir := t.TempDir()
	if !StoreAbsent(filepath.Join(dir, "nothing")) {
		t.Error("a missing directory is a store")
	}
	if !StoreAbsent(dir) {
		t.Error("an empty directory is a store")
	}
	if err := os.MkdirAll(filepath.Join(dir, "archive.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "archive.git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if StoreAbsent(dir) {
		t.Error("a directory with an archive is absent")
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if StoreAbsent(file) {
		t.Error("a file in the store's place should be opened (and fail), not skipped")
	}
}

// A lease expires by the clock the check is given, not the machine's: the
// commands pass theirs (AGENTMAIL_NOW), the one the store's leases are
// listed by.
func TestCheckReadsItsClock(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	r := res("BlueLake", "src/**")
	r.Expires = time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		now     time.Time
		blocked bool
	}{
		{r.Expires.Add(-time.Second), true},
		{r.Expires, false},
		{r.Expires.Add(time.Hour), false},
	} {
		rep, err := Check(ctx, CheckOptions{Dir: dir, Paths: []string{"src/a.go"}, Reservations: source(r),
			Now: func() time.Time { return c.now }})
		if rep.Blocked != c.blocked || errors.Is(err, ErrBlocked) != c.blocked || !rep.Now.Equal(c.now) {
			t.Errorf("at %v: blocked %v (%v), report time %v; want blocked %v", c.now, rep.Blocked, err, rep.Now, c.blocked)
		}
	}
}
