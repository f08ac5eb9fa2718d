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
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packSet reads the archive's objects: its packs, and the loose objects
// other git tools leave. go-git's storage would read them too, but it
// holds every pack's index in memory, the name, offset and checksum of
// every object, and from the first read a map from offsets to names as
// large again: some 40 MB at 100,000 messages, most of a server's heap.
// Here each index stays in its file, mapped (see packIndex), and only
// once a lookup gets to it: a command line write reads the head's commit
// and the trees on its paths, which the last writes put in the newest
// packs, and opening every pack first cost it more than its reads. The
// packs are listed again when a read misses: every write adds one, and
// git may replace some (a roll-up, a git gc). Its methods are called
// with the archive's stMu held.
type packSet struct {
	listed map[string]*openPack // by name, pack-<sum>; nil: not listed yet
	order  []*openPack          // the order lookups try them in (see refresh)
	cache  cache.Object         // one object cache for every pack
	seen   int                  // how many packs refresh listed last
	loads  int                  // indexes opened: a test observes it
}

// openPack is a pack: its index mapped once a lookup needed it, its pack
// file opened once an object was read from it.
type openPack struct {
	name  string
	size  int64     // of the pack file, as listed
	mtime time.Time // as listed
	idx   *packIndex
	pack  *packfile.Packfile
}

// object returns the content of h, which must be of type typ (unless
// plumbing.AnyObject), from the packs, then from the loose objects.
func (s *packSet) object(a *Archive, typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if s.listed == nil {
		if _, err := s.refresh(a); err != nil {
			return nil, err
		}
	}
	for _, p := range s.order {
		if p.idx == nil && s.load(a, p) != nil {
			continue // half-written by git, perhaps: the next refresh tries again
		}
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		if p.pack == nil {
			if err := s.openPackFile(a, p); err != nil {
				return nil, err
			}
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
		data := make([]byte, o.Size()) // read whole at once, not grown as read
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, err
		}
		return data, nil
	}
	return readLoose(a.dir, typ, h)
}

// refresh lists the pack directory, adds the packs new since it last did
// and closes those gone. It reports whether the packs changed since it
// last looked: a pack gone, or one new (an index that could not be opened
// was dropped, and is new again). Lookups try the largest pack first,
// where a roll-up put most objects, then the others newest first, where
// the last writes put the trees a write reads.
func (s *packSet) refresh(a *Archive) (changed bool, err error) {
	packs, err := listPacks(a.dir)
	if err != nil {
		return false, err
	}
	if s.listed == nil {
		s.listed = map[string]*openPack{}
	}
	changed = len(packs) != s.seen
	s.seen = len(packs)
	for name, p := range s.listed {
		if packs[name] == nil {
			p.close() // its files are gone: nothing to lose
			delete(s.listed, name)
			changed = true
		}
	}
	for name, p := range packs {
		if s.listed[name] == nil {
			s.listed[name] = p
			changed = true
		}
	}
	s.order = s.order[:0]
	for _, p := range s.listed {
		s.order = append(s.order, p)
	}
	slices.SortFunc(s.order, func(x, y *openPack) int {
		return cmp.Or(y.mtime.Compare(x.mtime), strings.Compare(x.name, y.name))
	})
	largest := 0
	for i, p := range s.order {
		if p.size > s.order[largest].size {
			largest = i
		}
	}
	if largest > 0 {
		p := s.order[largest]
		copy(s.order[1:largest+1], s.order[:largest])
		s.order[0] = p
	}
	return changed, nil
}

// load maps the index of p. One that cannot be opened is dropped from
// the listing, so that the next refresh adds it again.
func (s *packSet) load(a *Archive, p *openPack) error {
	idx, err := openPackIndex(filepath.Join(a.dir, "objects", "pack", p.name+".idx"))
	if err != nil {
		delete(s.listed, p.name)
		return err
	}
	s.loads++
	p.idx = idx
	return nil
}

// openPackFile opens the pack file of p, whose index is loaded.
func (s *packSet) openPackFile(a *Archive, p *openPack) error {
	f, err := os.Open(filepath.Join(a.dir, "objects", "pack", p.name+".pack"))
	if err != nil {
		return err
	}
	// No filesystem: objects are read whole (MemoryObject), as object
	// returns them, never opened again by name.
	p.pack = packfile.NewPackfileWithCache(p.idx, nil, readOnlyPack{f}, s.cache, 0)
	return nil
}

// readOnlyPack is a pack file as go-git's packfile reads it (a
// billy.File): read, never locked.
type readOnlyPack struct{ *os.File }

func (readOnlyPack) Lock() error   { return nil }
func (readOnlyPack) Unlock() error { return nil }

func (p *openPack) close() error {
	var errs []error
	if p.pack != nil {
		errs = append(errs, p.pack.Close())
	}
	if p.idx != nil {
		errs = append(errs, p.idx.close())
	}
	return errors.Join(errs...)
}

// close closes every pack.
func (s *packSet) close() error {
	var errs []error
	for name, p := range s.listed {
		errs = append(errs, p.close())
		delete(s.listed, name)
	}
	s.order = nil
	return errors.Join(errs...)
}

// listPacks returns the packs (pack-<sum>, not yet opened) in the archive
// at dir that have their index: git writes the index last.
func listPacks(dir string) (map[string]*openPack, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "objects", "pack"))
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	have := map[string]os.DirEntry{}
	for _, e := range entries {
		have[e.Name()] = e
	}
	packs := map[string]*openPack{}
	for name, e := range have {
		base, ok := strings.CutSuffix(name, ".pack")
		if !ok || have[base+".idx"] == nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since: a roll-up removed it
		}
		packs[base] = &openPack{name: base, size: info.Size(), mtime: info.ModTime()}
	}
	return packs, nil
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
