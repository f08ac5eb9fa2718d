package archive

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packSet reads the archive's objects: its packs, and the loose objects
// other git tools leave. go-git's storage would read them too, but it
// holds every pack's index in memory, the name, offset and checksum of
// every object, and from the first read a map from offsets to names as
// large again: some 40 MB at 100,000 messages, most of a server's heap.
// Here each index stays in its file, mapped (see packIndex). The packs
// are listed again when a read misses: every write adds one, and git may
// replace some (a roll-up, a git gc). Its methods are called with the
// archive's stMu held.
type packSet struct {
	opened map[string]*openPack // by name, pack-<sum>; nil: not listed yet
	order  []*openPack          // largest first, where most objects are
	cache  cache.Object         // one object cache for every pack
	seen   int                  // how many packs refresh listed last
	loads  int                  // indexes opened: a test observes it
}

// openPack is a pack and its index.
type openPack struct {
	idx  *packIndex
	pack *packfile.Packfile
}

// object returns the content of h, which must be of type typ (unless
// plumbing.AnyObject), from the packs, then from the loose objects.
func (s *packSet) object(a *Archive, typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if s.opened == nil {
		if _, err := s.refresh(a); err != nil {
			return nil, err
		}
	}
	for _, p := range s.order {
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		o, err := p.pack.Get(h)
		if err != nil {
			return nil, err
		}
		if typ != plumbing.AnyObject && o.Type() != typ {
			return nil, plumbing.ErrObjectNotFound
		}
		r, err := o.Reader()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(r)
	}
	return readLoose(a.dir, typ, h)
}

// refresh lists the pack directory, opens the packs new since it last did
// and closes those gone. It reports whether the packs changed since it
// last looked: a pack gone, one new, or one it could not open yet.
func (s *packSet) refresh(a *Archive) (changed bool, err error) {
	names, err := packNames(a.dir)
	if err != nil {
		return false, err
	}
	if s.opened == nil {
		s.opened = map[string]*openPack{}
	}
	changed = len(names) != s.seen
	s.seen = len(names)
	for name, p := range s.opened {
		if !names[name] {
			p.close() // its files are gone: nothing to lose
			delete(s.opened, name)
			changed = true
		}
	}
	for name := range names {
		if s.opened[name] != nil {
			continue
		}
		p, err := s.open(a, name)
		if err != nil {
			continue // half-written by git, perhaps: the next refresh tries again
		}
		s.opened[name] = p
		changed = true
	}
	s.order = s.order[:0]
	for _, p := range s.opened {
		s.order = append(s.order, p)
	}
	slices.SortFunc(s.order, func(x, y *openPack) int { return cmp.Compare(y.idx.count, x.idx.count) })
	return changed, nil
}

// open opens the pack name and its index.
func (s *packSet) open(a *Archive, name string) (*openPack, error) {
	idx, err := openPackIndex(filepath.Join(a.dir, "objects", "pack", name+".idx"))
	if err != nil {
		return nil, err
	}
	s.loads++
	fs := a.st.Filesystem()
	f, err := fs.Open(filepath.Join("objects", "pack", name+".pack"))
	if err != nil {
		idx.close()
		return nil, err
	}
	return &openPack{idx: idx, pack: packfile.NewPackfileWithCache(idx, fs, f, s.cache, 0)}, nil
}

func (p *openPack) close() error {
	return errors.Join(p.pack.Close(), p.idx.close())
}

// close closes every pack.
func (s *packSet) close() error {
	var errs []error
	for name, p := range s.opened {
		errs = append(errs, p.close())
		delete(s.opened, name)
	}
	s.order = nil
	return errors.Join(errs...)
}

// packNames returns the names (pack-<sum>) of the packs in the archive at
// dir that have their index: git writes the index last.
func packNames(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "objects", "pack"))
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	names := map[string]bool{}
	for name := range have {
		if base, ok := strings.CutSuffix(name, ".pack"); ok && have[base+".idx"] {
			names[base] = true
		}
	}
	return names, nil
}

// readLoose returns the content of the loose object h, which must be of
// type typ (unless plumbing.AnyObject).
func readLoose(dir string, typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	name := h.String()
	f, err := os.Open(filepath.Join(dir, "objects", name[:2], name[2:]))
	if os.IsNotExist(err) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	defer zr.Close()
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	header, body, ok := bytes.Cut(data, []byte{0})
	kind, size, ok2 := strings.Cut(string(header), " ")
	n, err := strconv.Atoi(size)
	if !ok || !ok2 || err != nil || n != len(body) {
		return nil, fmt.Errorf("loose object %s: malformed header %q", name, header)
	}
	got, err := plumbing.ParseObjectType(kind)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	if typ != plumbing.AnyObject && got != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	return body, nil
}
