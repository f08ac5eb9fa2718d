package archive

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// powerLoss is an fsys that writes through to the real file system and
// keeps a model of what a power loss would leave of it. A file's data
// survives as of its last syncFile (empty if never synced). Directory
// entries are journaled in order (as ext4, xfs and btrfs do), so what
// survives is a prefix of the operations made: at least those a syncDir
// of their directory covered, at most all of them. After each operation
// it takes an image of both extremes; every image must be a valid
// repository. Everything under root when the model starts counts as
// durable.
//
// Files written by others (git) are adopted, not durable, when an
// operation first names them.
type powerLoss struct {
	mu     sync.Mutex // a write's files are written and synced at once
	t      *testing.T
	real   fsys
	root   string
	nodes  []*node // by id; 0 is root
	images []image // after each operation, with the operation's name
}

type node struct {
	dir              bool
	data, synced     []byte         // files
	entries, durable map[string]int // directories
}

// image is the durable state: file contents by slash path, "/"-suffixed
// keys for directories.
type image struct {
	op    string
	files map[string][]byte
}

func newPowerLoss(t *testing.T, root string) *powerLoss {
	p := &powerLoss{t: t, real: osFS{}, root: root}
	p.nodes = append(p.nodes, &node{dir: true, entries: map[string]int{}})
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		id := p.adopt(path)
		n := p.nodes[id]
		n.synced, n.durable = n.data, maps.Clone(n.entries)
		parent := p.nodes[p.lookup(filepath.Dir(path))]
		parent.durable = maps.Clone(parent.entries)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lookup returns the node at path, adopting what the model does not know.
func (p *powerLoss) lookup(path string) int {
	rel, err := filepath.Rel(p.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		p.t.Fatalf("power loss model: %s is outside %s", path, p.root)
	}
	id := 0
	if rel == "." {
		return id
	}
	path = p.root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		path = filepath.Join(path, part)
		next, ok := p.nodes[id].entries[part]
		if !ok {
			next = p.adopt(path)
		}
		id = next
	}
	return id
}

// adopt adds the file or directory at path, as it is on disk, to the model
// as written but not durable, and returns its id. Its parent must be known
// or adoptable.
func (p *powerLoss) adopt(path string) int {
	parent := p.lookup(filepath.Dir(path))
	fi, err := os.Lstat(path)
	if err != nil {
		p.t.Fatalf("power loss model: %v", err)
	}
	n := &node{dir: fi.IsDir()}
	if n.dir {
		n.entries = map[string]int{}
	} else if n.data, err = os.ReadFile(path); err != nil {
		p.t.Fatalf("power loss model: %v", err)
	}
	p.nodes = append(p.nodes, n)
	id := len(p.nodes) - 1
	p.nodes[parent].entries[filepath.Base(path)] = id
	return id
}

// snapshot records what survives a power loss after op: the directory
// entries synced only, and every entry made.
func (p *powerLoss) snapshot(op string) {
	for _, eager := range []bool{false, true} {
		img := image{op: op, files: map[string][]byte{}}
		if eager {
			img.op += " (every entry made survived)"
		}
		var walk func(id int, prefix string)
		walk = func(id int, prefix string) {
			entries := p.nodes[id].durable
			if eager {
				entries = p.nodes[id].entries
			}
			for name, child := range entries {
				c := p.nodes[child]
				if c.dir {
					img.files[prefix+name+"/"] = nil
					walk(child, prefix+name+"/")
				} else {
					img.files[prefix+name] = c.synced
				}
			}
		}
		walk(0, "")
		p.images = append(p.images, img)
	}
}

func (p *powerLoss) writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name, err := p.real.writeTemp(dir, pattern, data, perm)
	if err == nil {
		p.lookup(name) // adopted: written, not durable
		p.snapshot("write " + p.rel(name))
	}
	return name, err
}

func (p *powerLoss) fill(name string, data []byte, perm os.FileMode) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.fill(name, data, perm)
	if err == nil {
		p.nodes[p.lookup(name)].data = bytes.Clone(data)
		p.snapshot("fill " + p.rel(name))
	}
	return err
}

func (p *powerLoss) syncFile(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.syncFile(name)
	if err == nil {
		n := p.nodes[p.lookup(name)]
		n.synced = bytes.Clone(n.data)
		p.snapshot("sync " + p.rel(name))
	}
	return err
}

func (p *powerLoss) syncDir(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.syncDir(name)
	if err == nil {
		n := p.nodes[p.lookup(name)]
		n.durable = maps.Clone(n.entries)
		p.snapshot("sync " + p.rel(name) + "/")
	}
	return err
}

func (p *powerLoss) rename(from, to string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := p.lookup(from)
	err := p.real.rename(from, to)
	if err == nil {
		delete(p.nodes[p.lookup(filepath.Dir(from))].entries, filepath.Base(from))
		p.nodes[p.lookup(filepath.Dir(to))].entries[filepath.Base(to)] = id
		p.snapshot("rename " + p.rel(from) + " " + p.rel(to))
	}
	return err
}

func (p *powerLoss) link(from, to string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.link(from, to)
	if err == nil {
		p.nodes[p.lookup(filepath.Dir(to))].entries[filepath.Base(to)] = p.lookup(from)
		p.snapshot("link " + p.rel(from) + " " + p.rel(to))
	}
	return err
}

func (p *powerLoss) remove(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.remove(name)
	if err == nil {
		delete(p.nodes[p.lookup(filepath.Dir(name))].entries, filepath.Base(name))
		p.snapshot("remove " + p.rel(name))
	}
	return err
}

func (p *powerLoss) mkdir(name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.real.mkdir(name)
	if err == nil {
		p.lookup(name)
		p.snapshot("mkdir " + p.rel(name))
	}
	return err
}

func (p *powerLoss) rel(path string) string {
	r, _ := filepath.Rel(p.root, path)
	return r
}

// materialize writes img into a new directory and returns it.
func (img image) materialize(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range slices.Sorted(maps.Keys(img.files)) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		var err error
		if strings.HasSuffix(name, "/") {
			err = os.MkdirAll(path, 0o755)
		} else {
			err = os.WriteFile(path, img.files[name], 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkImages checks every image after a power loss: the repository at
// dir (relative to the model's root; "" for the root) exists (but for
// absentOK, until the last images), passes git fsck --strict, its branch
// is one of heads, the last images' branch is last, and agentmail opens it
// and reads the files of want at last.
func (p *powerLoss) checkImages(dir string, absentOK bool, heads []string, last string, want map[string]string) {
	p.t.Helper()
	if len(p.images) == 0 {
		p.t.Fatal("no operation reached the file system")
	}
	seen := map[string]bool{}
	for i, img := range p.images {
		final := i >= len(p.images)-2 // the write has returned
		key := fmt.Sprint(img.files)
		if seen[key] && !final {
			continue
		}
		seen[key] = true
		repo := filepath.Join(img.materialize(p.t), dir)
		ctx := fmt.Sprintf("power loss after %q (image %d of %d)", img.op, i+1, len(p.images))
		if !Exists(repo) {
			if !absentOK || final {
				p.t.Errorf("%s: no repository", ctx)
			}
			continue
		}
		cmd := exec.Command("git", "--git-dir", repo, "fsck", "--strict", "--no-dangling", "--no-progress")
		cmd.Env = append(os.Environ(), gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			p.t.Errorf("%s: git fsck: %v\n%s", ctx, err, out)
			continue
		}
		a, err := Open(repo)
		if err != nil {
			p.t.Errorf("%s: %v", ctx, err)
			continue
		}
		h, err := a.Head()
		if err == nil {
			// go-git reads the whole tree, whatever files a write left.
			err = a.Changes("", h, nil, func(string, []byte) error { return nil })
		}
		switch {
		case err != nil:
			p.t.Errorf("%s: %v", ctx, err)
		case !slices.Contains(heads, h):
			p.t.Errorf("%s: branch at %s, want one of %v", ctx, h, heads)
		case final && h != last:
			p.t.Errorf("%s: once the write returned, the branch is at %s, want %s", ctx, h, last)
		case h == last:
			for path, content := range want {
				if got, err := a.ReadFile(h, path); err != nil || string(got) != content {
					p.t.Errorf("%s: %s = %q, %v; want %q", ctx, path, got, err, content)
				}
			}
		}
		a.Close()
	}
}

// TestPowerLossDuringCommit cuts the power after every operation of a
// commit: the objects reach the disk before the branch names them, so the
// branch names the old commit or the new one, complete; and once Commit
// has returned, the new one. So too for a commit that fills spare files
// made ahead (see MakeSpares) rather than creating its files.
func TestPowerLossDuringCommit(t *testing.T) {
	for _, spares := range []bool{false, true} {
		t.Run(fmt.Sprint("spares=", spares), func(t *testing.T) {
			a := newArchive(t)
			old := commit(t, a, "before", "projects/p/messages/2026/11/21/a.md", "a")
			if spares {
				if err := a.MakeSpares(); err != nil {
					t.Fatal(err)
				}
			}
			p := newPowerLoss(t, a.Dir())
			a.fs = p
			res, err := a.Commit(old, messageChanges(1), author("GreenCastle"), "during", nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"projects/p/messages/2026/11/21/a.md": "a"}
			for _, c := range messageChanges(1) {
				want[c.Path] = string(c.Data)
			}
			p.checkImages("", false, []string{old, res.Head}, res.Head, want)
		})
	}
}

// overlapping is an fsys whose file syncs wait, up to a second, for want
// syncs to be in flight together, and which records the most it saw.
type overlapping struct {
	osFS
	want     int
	mu       sync.Mutex
	inFlight int
	most     int
}

func (o *overlapping) syncFile(name string) error {
	o.mu.Lock()
	o.inFlight++
	o.most = max(o.most, o.inFlight)
	deadline := time.Now().Add(time.Second)
	for o.inFlight < o.want && time.Now().Before(deadline) {
		o.mu.Unlock()
		time.Sleep(time.Millisecond)
		o.mu.Lock()
	}
	o.mu.Unlock()
	err := o.osFS.syncFile(name)
	o.mu.Lock()
	o.inFlight--
	o.mu.Unlock()
	return err
}

// TestCommitSyncsOverlap: a commit's three files, the pack, its index and
// the branch's new value, are synced at once, not one after the other:
// each sync waits for the disk, and a write would wait for all three in
// turn.
func TestCommitSyncsOverlap(t *testing.T) {
	a := newArchive(t)
	o := &overlapping{want: 3}
	a.fs = o
	commit(t, a, "overlapping syncs", "projects/p/messages/2026/11/22/m.md", "m")
	if o.most != 3 {
		t.Errorf("at most %d syncs were in flight at once, want 3 (pack, index, branch)", o.most)
	}
}

// TestPowerLossDuringInit: a power loss while the archive is created
// leaves no archive or a complete one with its initial commit.
func TestPowerLossDuringInit(t *testing.T) {
	parent := t.TempDir()
	p := newPowerLoss(t, parent)
	if err := initArchive(p, filepath.Join(parent, "archive.git"), t0); err != nil {
		t.Fatal(err)
	}
	a, err := Open(filepath.Join(parent, "archive.git"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h := head(t, a)
	p.checkImages("archive.git", true, []string{h}, h, nil)
}

// TestPowerLossDuringRollUp: a roll-up removes packs only once the pack
// that replaces them is durable.
func TestPowerLossDuringRollUp(t *testing.T) {
	a := newArchive(t)
	want := map[string]string{}
	for i := 0; i < 6; i++ {
		p := fmt.Sprintf("projects/p/messages/2026/11/22/m%d.md", i)
		want[p] = fmt.Sprint("message ", i)
		commit(t, a, p, p, want[p])
	}
	h := head(t, a)
	packs := a.Packs()
	p := newPowerLoss(t, a.Dir())
	a.fs = p
	if err := a.Pack(nil); err != nil {
		t.Fatal(err)
	}
	if a.Packs() >= packs {
		t.Fatalf("no roll-up: %d packs before, %d after", packs, a.Packs())
	}
	p.checkImages("", false, []string{h}, h, want)
}

// The model itself: what is not synced is lost.
func TestPowerLossModel(t *testing.T) {
	root := t.TempDir()
	p := newPowerLoss(t, root)
	name, err := p.writeTemp(root, "f-", []byte("data"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "f")
	steps := []struct {
		do   func() error
		want map[string][]byte
	}{
		{func() error { return p.rename(name, target) }, map[string][]byte{}},
		{func() error { return p.syncDir(root) }, map[string][]byte{"f": nil}},
		{func() error { return p.syncFile(target) }, map[string][]byte{"f": []byte("data")}},
		{func() error { return p.link(target, target+"2") }, map[string][]byte{"f": []byte("data")}},
		{func() error { return p.syncDir(root) }, map[string][]byte{"f": []byte("data"), "f2": []byte("data")}},
		{func() error { return p.remove(target) }, map[string][]byte{"f": []byte("data"), "f2": []byte("data")}},
		{func() error { return p.syncDir(root) }, map[string][]byte{"f2": []byte("data")}},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatal(err)
		}
		got := p.images[len(p.images)-2].files
		if fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Errorf("step %d (%s): durable %q, want %q", i, p.images[len(p.images)-2].op, got, st.want)
		}
	}
}
