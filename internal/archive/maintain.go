package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LooseObjects estimates the number of loose objects the way git gc --auto
// does: it counts one of the 256 fan-out directories and multiplies.
func (a *Archive) LooseObjects() int {
	entries, err := os.ReadDir(filepath.Join(a.dir, "objects", "17"))
	if err != nil {
		return 0
	}
	return len(entries) * 256
}

// Packs returns the number of packs.
func (a *Archive) Packs() int {
	f, err := os.Open(filepath.Join(a.dir, "objects", "pack"))
	if err != nil {
		return 0
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, ".pack") {
			n++
		}
	}
	return n
}

// Pack rolls small packs (and any loose objects) into bigger ones with a
// geometric progression of pack sizes, so that packing stays cheap as the
// archive grows and the number of packs stays logarithmic. It needs the git
// command. The caller must hold the store lock and pass its file as hold:
// git inherits it, so the lock outlives a caller killed while git runs.
func (a *Archive) Pack(hold *os.File) error {
	return a.git(hold, "repack", "-d", "-q", "--geometric=2", "--no-write-bitmap-index")
}

// GC packs every object into one pack, recompressed, and removes what is no
// longer needed, including the remains of killed writes. It needs the git
// command; hold is as for Pack.
func (a *Archive) GC(hold *os.File) error {
	a.removeLeftovers()
	if err := a.git(hold, "repack", "-a", "-d", "-q", "-f", "-F", "--no-write-bitmap-index"); err != nil {
		return err
	}
	return a.git(hold, "prune", "--expire=now")
}

// removeLeftovers deletes temporary files and pack indexes without packs
// that killed writes left behind. With the store lock held, no write is in
// progress.
func (a *Archive) removeLeftovers() {
	tmps, _ := filepath.Glob(filepath.Join(a.dir, ".ref-main-*"))
	more, _ := filepath.Glob(filepath.Join(a.dir, "objects", "pack", ".tmp-*"))
	for _, t := range append(tmps, more...) {
		os.Remove(t)
	}
	idxs, _ := filepath.Glob(filepath.Join(a.dir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if _, err := os.Stat(strings.TrimSuffix(idx, ".idx") + ".pack"); errors.Is(err, os.ErrNotExist) {
			os.Remove(idx)
		}
	}
}

// Fsck runs git fsck on the archive and returns its complaints.
func (a *Archive) Fsck() error {
	return a.git(nil, "fsck", "--no-progress", "--strict")
}

// Size returns the bytes the archive's objects use on disk.
func (a *Archive) Size() (int64, error) {
	var n int64
	err := filepath.WalkDir(filepath.Join(a.dir, "objects"), func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

func (a *Archive) git(hold *os.File, args ...string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("git %s: the git command is needed for this and was not found on PATH", args[0])
	}
	cmd := exec.Command("git", append([]string{"--git-dir", a.dir}, args...)...)
	var out bytes.Buffer
	if hold != nil {
		cmd.ExtraFiles = []*os.File{hold}
	}
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(out.String()))
	}
	return nil
}
