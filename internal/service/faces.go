package service

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// What the faces need of the packages below the service, so that they
// import the service only (internal/layering checks it).

// ErrNoProject: no project is named, or the directory is not inside a git
// repository.
var ErrNoProject = project.ErrNoProject

// IsIndexDamaged reports whether err shows the index damaged, which a
// rebuild from the archive (RepairIndex) repairs.
func IsIndexDamaged(err error) bool { return store.IsIndexDamaged(err) }

// FindBinary is the absolute path of the agentmail binary that runs, for
// what must run it again (hooks, a coding agent's MCP entry).
func FindBinary() (string, error) { return guard.FindBinary() }

// DefaultStoreDir is the store's directory when neither --store nor
// $AGENTMAIL_HOME names one.
func DefaultStoreDir() (string, error) { return store.DefaultDir() }

// FormatTime is t as the documents write it (RFC 3339, UTC, seconds), ""
// when t is zero.
func FormatTime(t time.Time) string { return record.FormatTime(t) }

// CheckTime refuses a time outside those agentmail keeps.
func CheckTime(t time.Time) error {
	if !record.InRange(t) {
		return fmt.Errorf("%s, outside the times agentmail keeps (%d to %d)", t.UTC().Format(time.RFC3339), record.Earliest.Year(), record.Latest.Year())
	}
	return nil
}

// RepositoryRoot is the working tree of the git repository around dir, ""
// when dir is in none.
func RepositoryRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return project.Project{}.In(abs).Root, nil
}
