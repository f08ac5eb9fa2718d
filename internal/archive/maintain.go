package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/crash"
	"github.com/go-git/go-git/v5/plumbing"
)

// Past MaxPacks packs (each write adds one) or LooseThreshold loose
// objects (git's own gc.auto default; written by other tools), the archive
// wants consolidating: a roll-up (Pack).
const (
	MaxPacks       = 64
	LooseThreshold = 6700
)

// NeedsRollUp reports whether the archive, which has packs packs (Packs,
// or PacksAbout where a guess will do), wants a roll-up.
func (a *Archive) NeedsRollUp(packs int) bool {
	return packs > MaxPacks || a.LooseObjects() > LooseThreshold
}

// LooseObjects estimates the number of loose objects the way git gc --auto
// does: it counts one of the 256 fan-out directories and multiplies.
func (a *Archive) LooseObjects() int {
	entries, err := os.ReadDir(filepath.Join(a.dir, "objects", "17"))
	if err != nil {
		return 0
	}
	return len(entries) * 256
}

// Packs returns the number of packs, listing the pack directory.
func (a *Archive) Packs() int {
	n := 0
	if f, err := os.Open(filepath.Join(a.dir, "objects", "pack")); err == nil {
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if strings.HasSuffix(name, ".pack") {
				n++
			}
		}
	}
	a.packCount.set(n)
	return n
}

// PacksAbout returns the number of packs as Packs last counted them, plus
// the packs this handle wrote since, and counts them again (Packs) only
// once it has written recountEvery: listing the pack directory of a busy
// archive, which every write adds files to and every roll-up removes
// files from, costs its writer a tenth of a millisecond (ext4 reads every
// block of a directory, and a directory never shrinks). Meanwhile it
// misses the packs other processes write or remove; they roll up their
// own.
func (a *Archive) PacksAbout() int {
	if n, ok := a.packCount.get(); ok {
		return n
	}
	return a.Packs()
}

// recountEvery is how many packs of its own an archive handle writes
// between two listings of the pack directory by PacksAbout.
const recountEvery = 16

// packCount is the number of packs as PacksAbout knows it.
type packCount struct {
	mu    sync.Mutex
	n     int  // at the last count, and written since
	since int  // packs written since the last count
	known bool // counted, and not rolled up since
}

func (c *packCount) get() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.known && c.since < recountEvery
}

func (c *packCount) set(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.since, c.known = n, 0, true
}

// wrote counts a pack this handle wrote.
func (c *packCount) wrote() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.since++
}

// forget makes the next PacksAbout count the packs, which a roll-up or GC
// of this handle changed.
func (c *packCount) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known = false
}

// Pack rolls the small packs, and any loose objects, into one new pack and
// leaves the bigger packs alone, so that pack sizes follow a geometric
// progression (each pack holds at least twice the objects of the next
// smaller one, as git repack --geometric=2 keeps them) and the number of
// packs stays logarithmic. Unlike git repack, it walks no history: git
// pack-objects gets the objects to roll up by name and searches deltas
// among them only, so a roll-up costs what it rolls up, however large the
// archive. A narrow delta window suffices: what deltifies well is the
// versions of one directory, and they sort next to each other by size.
//
// Writers may go on meanwhile: the packs to roll up are chosen as it
// starts, and it removes those and no other, so the packs of writes made
// since stay. The caller must exclude other roll-ups and GC (the store's
// roll-up lock) and pass that lock's file as hold: git inherits it, so the
// lock outlives a caller killed while git runs; what such a roll-up leaves
// behind (.tmp-roll-*) is removed by the next one.
func (a *Archive) Pack(hold *os.File) error {
	defer a.packCount.forget()
	packs, err := a.packFiles()
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	roll := packs[:geometricSplit(packs)]
	loose, err := a.looseObjectNames()
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	if len(loose) == 0 && len(roll) < 2 {
		return nil
	}
	packDir := filepath.Join(a.dir, "objects", "pack")
	tmp := filepath.Join(packDir, ".tmp-roll")
	// No git of an earlier roll-up still runs: it would hold the lock.
	if left, err := filepath.Glob(tmp + "-*"); err == nil {
		for _, f := range left {
			a.fs.remove(f)
		}
	}
	var in bytes.Buffer
	for _, name := range loose {
		in.WriteString(name + "\n")
	}
	for _, p := range roll {
		idx, err := os.ReadFile(p.base + ".idx")
		if err != nil {
			return fmt.Errorf("pack: %w", err)
		}
		for i := 0; i < p.objects; i++ {
			fmt.Fprintf(&in, "%x\n", idx[idxHeader+20*i:idxHeader+20*(i+1)])
		}
	}
	out, err := a.git([]*os.File{hold}, &in, "pack-objects", "-q", "--delta-base-offset", "--window=2", tmp)
	if err != nil {
		return err
	}
	sum := strings.TrimSpace(out)
	if !plumbing.IsHash(sum) {
		return fmt.Errorf("git pack-objects: unexpected output %q", out)
	}
	crash.Point(crash.RollUpWritten)
	made, err := filepath.Glob(tmp + "-" + sum + ".*")
	if err != nil || !slices.ContainsFunc(made, hasExt(".pack")) || !slices.ContainsFunc(made, hasExt(".idx")) {
		return fmt.Errorf("pack: git pack-objects left no pack and index for %s (%v)", sum, err)
	}
	if err := a.publishPack(made, filepath.Join(packDir, "pack-"+sum)); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	newBase := filepath.Join(packDir, "pack-"+sum)
	removed := false
	for _, p := range roll {
		if p.base != newBase {
			a.removePack(p.base)
			if !removed {
				crash.Point(crash.MidRollUp)
			}
			removed = true
		}
	}
	if removed {
		// A multi-pack index (git maintenance, git multi-pack-index write)
		// naming removed packs would fail git fsck; git repack drops it too.
		for _, ext := range []string{"", ".bitmap", ".rev"} {
			a.fs.remove(filepath.Join(packDir, "multi-pack-index"+ext))
		}
	}
	// The loose objects rolled up, and no other: git prune-packed would
	// also remove those a concurrent git gc has just loosened from a pack
	// it is about to delete, which are in that pack only.
	for _, name := range loose {
		a.fs.remove(filepath.Join(a.dir, "objects", name[:2], name[2:]))
	}
	return nil
}

// publishPack makes the files git pack-objects wrote (made) durable as
// the pack base (.pack, .idx, ...), before the packs they replace are
// removed: synced, renamed into place, the pack file last (readers list
// packs by it), and the directory synced. git syncs its packs too, unless
// core.fsync says otherwise; the renames are ours.
func (a *Archive) publishPack(made []string, base string) error {
	sort.Slice(made, func(i, j int) bool {
		return !strings.HasSuffix(made[i], ".pack") && strings.HasSuffix(made[j], ".pack")
	})
	for _, f := range made {
		if err := a.fs.syncFile(f); err != nil {
			return err
		}
	}
	for _, f := range made {
		if err := a.fs.rename(f, base+filepath.Ext(f)); err != nil {
			return err
		}
	}
	return a.fs.syncDir(filepath.Dir(base))
}

// packFile is one pack of the archive.
type packFile struct {
	base    string // path without extension
	objects int
}

// packFiles lists the packs that may be rolled up, fewest objects first:
// packs marked .keep or .promisor and packs with an index git no longer
// writes (version 1) are left out.
func (a *Archive) packFiles() ([]packFile, error) {
	names, err := filepath.Glob(filepath.Join(a.dir, "objects", "pack", "pack-*.pack"))
	if err != nil {
		return nil, err
	}
	var packs []packFile
	for _, name := range names {
		base := strings.TrimSuffix(name, ".pack")
		if exists(base+".keep") || exists(base+".promisor") {
			continue
		}
		n, err := idxObjects(base + ".idx")
		if err != nil {
			return nil, err
		}
		if n >= 0 {
			packs = append(packs, packFile{base: base, objects: n})
		}
	}
	sort.Slice(packs, func(i, j int) bool { return packs[i].objects < packs[j].objects })
	return packs, nil
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// idxHeader is the size of a version 2 pack index's header and fan-out
// table; the sorted object names follow.
const idxHeader = 8 + 256*4

// idxObjects returns the number of objects a pack index lists, or -1 for an
// index of another version than 2 or one cut short.
func idxObjects(name string) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, idxHeader)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return -1, nil
	}
	n := int(binary.BigEndian.Uint32(head[idxHeader-4:]))
	if fi, err := f.Stat(); err != nil || fi.Size() < int64(idxHeader+20*n) {
		return -1, nil
	}
	return n, nil
}

// geometricSplit returns how many of packs (fewest objects first) must be
// rolled into one for the rest, with the new pack, to form a geometric
// progression of factor two; git repack --geometric=2 decides the same way.
func geometricSplit(packs []packFile) int {
	weight := func(i int) int { return packs[i].objects }
	if len(packs) == 0 {
		return 0
	}
	// The heaviest packs that already form a progression stay.
	split := len(packs) - 1
	for ; split > 0; split-- {
		if weight(split) < 2*weight(split-1) {
			break
		}
	}
	if split > 0 {
		split++
	}
	// The rolled-up pack may be heavy enough to break the progression:
	// then the next packs join it.
	total := 0
	for i := 0; i < split; i++ {
		total += weight(i)
	}
	for ; split < len(packs) && weight(split) < 2*total; split++ {
		total += weight(split)
	}
	return split
}

// hasExt returns a test for names ending in ext.
func hasExt(ext string) func(string) bool {
	return func(name string) bool { return strings.HasSuffix(name, ext) }
}

// removePack deletes a pack that has been rolled up, its .pack file first
// so that no reader finds a pack without its index.
func (a *Archive) removePack(base string) {
	for _, ext := range []string{".pack", ".idx", ".rev", ".bitmap"} {
		a.fs.remove(base + ext)
	}
}

// looseObjectNames lists the loose objects' names.
func (a *Archive) looseObjectNames() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(a.dir, "objects", "[0-9a-f][0-9a-f]"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if name := filepath.Base(d) + e.Name(); plumbing.IsHash(name) {
				names = append(names, name)
			}
		}
	}
	return names, nil
}

// GC packs every object into one pack, recompressed, and removes what is no
// longer needed, including the remains of killed writes. It needs the git
// command. The caller must exclude every writer and roll-up (the store
// lock and the roll-up lock) and pass their files as hold, for git to
// inherit, as Pack's. git repack renames its pack into place and deletes
// the old ones without syncing the directory; GC syncs it before it
// returns.
func (a *Archive) GC(hold ...*os.File) error {
	defer a.packCount.forget()
	a.removeLeftovers()
	if _, err := a.git(hold, nil, "repack", "-a", "-d", "-q", "-f", "-F", "--no-write-bitmap-index"); err != nil {
		return err
	}
	if _, err := a.git(hold, nil, "prune", "--expire=now"); err != nil {
		return err
	}
	return a.fs.syncDir(filepath.Join(a.dir, "objects", "pack"))
}

// removeLeftovers deletes what killed writes left behind: temporary files
// (of this version's writes and of the spare ref file earlier versions
// kept) and pack indexes without packs. With the store lock held, no write
// is in progress.
func (a *Archive) removeLeftovers() {
	// The locks before the temporary files that identify them.
	locks, _ := filepath.Glob(filepath.Join(a.refPath(ProjectRefs), "*.lock"))
	for _, l := range append(locks, a.refPath(Branch)+".lock") {
		a.removeStaleLock(l, "")
	}
	var left []string
	for _, pattern := range []string{refTemp, ".ref-main-*", "objects/pack/.tmp-*"} {
		m, _ := filepath.Glob(filepath.Join(a.dir, pattern))
		left = append(left, m...)
	}
	idxs, _ := filepath.Glob(filepath.Join(a.dir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if _, err := os.Stat(strings.TrimSuffix(idx, ".idx") + ".pack"); errors.Is(err, os.ErrNotExist) {
			left = append(left, idx)
		}
	}
	for _, f := range left {
		a.fs.remove(f)
	}
}

// Fsck runs git fsck on the archive and returns its complaints.
func (a *Archive) Fsck() error {
	_, err := a.git(nil, nil, "fsck", "--no-progress", "--strict")
	return err
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

// git runs a git command on the archive with stdin (which may be nil) and
// returns its output. The command inherits the files hold (nil ones
// left out): the locks it works under.
func (a *Archive) git(hold []*os.File, stdin io.Reader, args ...string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("git %s: the git command is needed for this and was not found on PATH", args[0])
	}
	cmd := exec.Command("git", append([]string{"--git-dir", a.dir}, args...)...)
	var out, errOut bytes.Buffer
	for _, f := range hold {
		if f != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		}
	}
	cmd.Stdin = stdin
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errOut.String()+out.String()))
	}
	return out.String(), nil
}
