package setup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// record is what setup keeps of a file it changed, so that uninstall can
// give the file back its original bytes: the one stretch where the
// original and what setup wrote differ, and a digest of what setup wrote.
// It holds no other part of the file (other servers' environments may be
// secrets). Once anyone changes the file, it no longer matches the digest,
// and uninstall takes out setup's entry alone, keeping their change.
type record struct {
	Path    string   `json:"path"`
	Existed bool     `json:"existed"`                // the file was there before setup
	Dirs    []string `json:"created_dirs,omitempty"` // directories setup created for it, outermost first
	Prefix  int      `json:"prefix"`                 // bytes at the start both share
	Suffix  int      `json:"suffix"`                 // bytes at the end both share
	Removed []byte   `json:"removed"`                // the original's bytes between them
	Written string   `json:"written_sha256"`         // what setup wrote
}

func newRecord(path string, orig []byte, existed bool, written []byte, dirs []string) *record {
	p, s := commonEnds(orig, written)
	return &record{Path: path, Existed: existed, Dirs: dirs, Prefix: p, Suffix: s,
		Removed: slices.Clone(orig[p : len(orig)-s]), Written: digest(written)}
}

// original returns the file's bytes before setup given its bytes now, and
// whether it existed then; valid is false when there is no record or the
// file changed since setup wrote it.
func (r *record) original(now []byte) (orig []byte, existed, valid bool) {
	if r == nil || now == nil || digest(now) != r.Written || r.Prefix+r.Suffix > len(now) {
		return nil, false, false
	}
	return slices.Concat(now[:r.Prefix], r.Removed, now[len(now)-r.Suffix:]), r.Existed, true
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recordFile is where the record of the configuration file path is kept.
func recordFile(stateDir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(stateDir, hex.EncodeToString(sum[:8])+".json")
}

// loadRecord returns the record of path, nil when there is none (or none
// that can be read: uninstall then takes the entry out by itself).
func loadRecord(stateDir, path string) *record {
	if stateDir == "" {
		return nil
	}
	b, err := os.ReadFile(recordFile(stateDir, path))
	if err != nil {
		return nil
	}
	var r record
	if json.Unmarshal(b, &r) != nil || r.Path != path {
		return nil
	}
	return &r
}

func (r *record) save(stateDir string) error {
	if stateDir == "" {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("keep the record of %s: %w", r.Path, err)
	}
	return writeFile(recordFile(stateDir, r.Path), b)
}

func dropRecord(stateDir, path string) error {
	if stateDir == "" {
		return nil
	}
	if err := os.Remove(recordFile(stateDir, path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("drop the record of %s: %w", path, err)
	}
	return nil
}
