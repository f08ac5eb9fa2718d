package archive

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// objectStore reads objects from the archive's packs and loose objects
// itself. go-git, on its first read, decodes the index of every pack into
// tables, and on its first read of a delta in a pack maps every offset of
// that pack to its object: tens of milliseconds at 100,000 messages, paid
// by every process that reads one object, and growing with the archive.
// Here a pack's index is the .idx file's bytes, searched in place, and a
// delta's base is found by its offset alone: a read costs what it reads.
//
// Every write adds a pack and git may remove some: an object not found is
// looked for again once the pack directory has been listed anew (refresh).
// Its methods are called with the archive's stMu held.
type objectStore struct {
	dir   string           // the repository
	packs map[string]*pack // by name (pack-<sum>); nil: not listed yet
	bases baseCache
	// What a test observes: the pack indexes read.
	loads int
}

// pack is a pack the store has read the index of and keeps open: git may
// remove it (a roll-up, a gc), and what it held is then read from the
// open file until the next listing drops it.
type pack struct {
	idx  packIndex
	file *os.File
}

// object returns the type and content of the object h, or
// plumbing.ErrObjectNotFound when neither the packs listed so far nor the
// loose objects have it.
func (s *objectStore) object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	for _, p := range s.packs {
		if off, ok := p.idx.find(h); ok {
			return s.objectAt(p, off, 0)
		}
	}
	return s.loose(h)
}

// loose reads h as a loose object.
func (s *objectStore) loose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	name := h.String()
	f, err := os.Open(filepath.Join(s.dir, "objects", name[:2], name[2:]))
	if errors.Is(err, os.ErrNotExist) {
		return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read loose object %s: %w", name, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read loose object %s: %w", name, err)
	}
	head, data, ok := bytes.Cut(raw, []byte{0})
	typName, size, _ := strings.Cut(string(head), " ")
	typ, terr := plumbing.ParseObjectType(typName)
	if n, err := strconv.Atoi(size); !ok || terr != nil || err != nil || n != len(data) {
		return plumbing.InvalidObject, nil, fmt.Errorf("read loose object %s: bad header %q", name, head)
	}
	return typ, data, nil
}

// maxDeltaDepth bounds the chains of deltas followed: git's own bound is
// 4095 (pack.depth is 50 by default, 4095 at most).
const maxDeltaDepth = 4096

// objectAt returns the object at offset off of pack p, its deltas
// applied; depth is how many deltas led here.
func (s *objectStore) objectAt(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if o, ok := s.bases.get(p, off); ok {
		return o.typ, o.data, nil
	}
	if depth > maxDeltaDepth {
		return plumbing.InvalidObject, nil, fmt.Errorf("read pack: a chain of more than %d deltas", maxDeltaDepth)
	}
	e, err := p.entry(off)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	data, err := p.inflate(e.data, e.size)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	typ := e.typ
	if e.delta {
		var base []byte
		switch {
		case e.baseOff != 0:
			typ, base, err = s.objectAt(p, e.baseOff, depth+1)
		default:
			typ, base, err = s.base(e.baseRef, depth+1)
		}
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if data, err = packfile.PatchDelta(base, data); err != nil {
			return plumbing.InvalidObject, nil, fmt.Errorf("read pack: apply a delta at %d: %w", off, err)
		}
	}
	if depth > 0 || e.delta {
		// A base, or what the next read may need as one: the versions of a
		// directory are deltas on each other.
		s.bases.put(p, off, typ, data)
	}
	return typ, data, nil
}

// base returns the object h a delta names as its base.
func (s *objectStore) base(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for _, p := range s.packs {
		if off, ok := p.idx.find(h); ok {
			return s.objectAt(p, off, depth)
		}
	}
	return s.loose(h)
}

// packedObject is the header of an object in a pack.
type packedObject struct {
	typ     plumbing.ObjectType
	delta   bool
	size    int64         // of the object, or of the delta
	baseOff int64         // an offset delta's base
	baseRef plumbing.Hash // a reference delta's base
	data    int64         // where the compressed data starts
}

// entry reads the header of the object at offset off.
func (p *pack) entry(off int64) (packedObject, error) {
	if off < 12 { // past the pack's header
		return packedObject{}, fmt.Errorf("read pack: bad offset %d in its index", off)
	}
	var buf [64]byte
	n, err := p.file.ReadAt(buf[:], off)
	if n == 0 {
		return packedObject{}, fmt.Errorf("read pack at %d: %w", off, err)
	}
	b := buf[:n]
	i := 0
	next := func() (byte, bool) {
		if i >= len(b) {
			return 0, false
		}
		i++
		return b[i-1], true
	}
	c, _ := next()
	e := packedObject{typ: plumbing.ObjectType((c >> 4) & 7), size: int64(c & 15)}
	for shift := 4; c&0x80 != 0; shift += 7 {
		var ok bool
		if c, ok = next(); !ok || shift > 56 {
			return packedObject{}, fmt.Errorf("read pack at %d: bad object header", off)
		}
		e.size |= int64(c&0x7f) << shift
	}
	switch e.typ {
	case plumbing.OFSDeltaObject:
		c, ok := next()
		rel := int64(c & 0x7f)
		for ok && c&0x80 != 0 {
			c, ok = next()
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if !ok || rel <= 0 || rel > off {
			return packedObject{}, fmt.Errorf("read pack at %d: bad delta base offset", off)
		}
		e.delta, e.baseOff = true, off-rel
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return packedObject{}, fmt.Errorf("read pack at %d: cut short", off)
		}
		copy(e.baseRef[:], b[i:i+20])
		e.delta = true
		i += 20
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	default:
		return packedObject{}, fmt.Errorf("read pack at %d: object type %d", off, e.typ)
	}
	e.data = off + int64(i)
	return e, nil
}

// inflate returns the size bytes compressed at offset off.
func (p *pack) inflate(off, size int64) ([]byte, error) {
	zr, err := zlib.NewReader(io.NewSectionReader(p.file, off, 1<<62))
	if err != nil {
		return nil, fmt.Errorf("read pack at %d: %w", off, err)
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("read pack at %d: %w", off, err)
	}
	return data, nil
}

// refresh lists the pack directory: it reads the index of each pack new
// since it last did and drops the packs gone.
func (s *objectStore) refresh() error {
	names, err := packNames(s.dir)
	if err != nil {
		return err
	}
	for name, p := range s.packs {
		if !names[name] {
			p.file.Close()
			delete(s.packs, name)
			s.bases.drop(p)
		}
	}
	if s.packs == nil {
		s.packs = map[string]*pack{}
	}
	for name := range names {
		if s.packs[name] != nil {
			continue
		}
		p, err := s.open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since listed: a roll-up's
		}
		if err != nil {
			return err
		}
		s.packs[name] = p
	}
	return nil
}

// open reads the index of the pack name and opens the pack.
func (s *objectStore) open(name string) (*pack, error) {
	base := filepath.Join(s.dir, "objects", "pack", name)
	data, err := os.ReadFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	idx, err := parsePackIndex(data)
	if err != nil {
		return nil, fmt.Errorf("read %s.idx: %w", name, err)
	}
	f, err := os.Open(base + ".pack")
	if err != nil {
		return nil, err
	}
	s.loads++
	return &pack{idx: idx, file: f}, nil
}

// close closes the packs.
func (s *objectStore) close() error {
	var first error
	for name, p := range s.packs {
		if err := p.file.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.packs, name)
	}
	s.bases = baseCache{}
	return first
}

// packIndex is a version 2 pack index as git writes it: a header, a
// fan-out table (how many names begin with each byte or a lower one), the
// sorted object names, their CRCs, their offsets (31 bits, or an index
// into the table of 64-bit offsets that follows).
type packIndex []byte

// parsePackIndex checks that data is a version 2 pack index whole.
func parsePackIndex(data []byte) (packIndex, error) {
	if len(data) < idxHeader || !bytes.Equal(data[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return nil, errors.New("not a version 2 pack index")
	}
	x := packIndex(data)
	if len(data) < idxHeader+28*x.count()+40 {
		return nil, errors.New("pack index cut short")
	}
	return x, nil
}

// count returns the number of objects the index lists.
func (x packIndex) count() int { return int(binary.BigEndian.Uint32(x[idxHeader-4:])) }

// fanout returns how many names begin with a byte lower than b.
func (x packIndex) fanout(b int) int {
	if b == 0 {
		return 0
	}
	return int(binary.BigEndian.Uint32(x[8+4*(b-1):]))
}

// find returns the offset in the pack of the object h, -1 for an offset
// the index does not hold (a damaged index); false when it lists no h.
func (x packIndex) find(h plumbing.Hash) (int64, bool) {
	lo, hi := x.fanout(int(h[0])), min(x.fanout(int(h[0])+1), x.count())
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(x[idxHeader+20*mid:idxHeader+20*mid+20], h[:]); {
		case c == 0:
			return x.offset(mid), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// offset returns the offset of the i-th object, -1 when the index does not
// hold it.
func (x packIndex) offset(i int) int64 {
	n := x.count()
	off := binary.BigEndian.Uint32(x[idxHeader+24*n+4*i:])
	if off&0x80000000 == 0 {
		return int64(off)
	}
	large := idxHeader + 28*n + 8*int(off&0x7fffffff)
	if large+8 > len(x)-40 {
		return -1
	}
	return int64(binary.BigEndian.Uint64(x[large:]))
}

// baseCache keeps the objects deltas were applied to make, by pack and
// offset, up to maxBaseBytes: the next version of a directory is most
// often a delta on the one before.
type baseCache struct {
	objects map[baseKey]cachedObject
	order   []baseKey // oldest first
	size    int
}

type baseKey struct {
	p   *pack
	off int64
}

type cachedObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// maxBaseBytes bounds the bytes baseCache holds.
const maxBaseBytes = 32 << 20

func (c *baseCache) get(p *pack, off int64) (cachedObject, bool) {
	o, ok := c.objects[baseKey{p, off}]
	return o, ok
}

func (c *baseCache) put(p *pack, off int64, typ plumbing.ObjectType, data []byte) {
	k := baseKey{p, off}
	if len(data) > maxBaseBytes/4 {
		return
	}
	if _, ok := c.objects[k]; ok {
		return
	}
	if c.objects == nil {
		c.objects = map[baseKey]cachedObject{}
	}
	c.objects[k] = cachedObject{typ, data}
	c.order = append(c.order, k)
	c.size += len(data)
	for c.size > maxBaseBytes {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.objects[old].data)
		delete(c.objects, old)
	}
}

// drop forgets the objects of pack p.
func (c *baseCache) drop(p *pack) {
	kept := c.order[:0]
	for _, k := range c.order {
		if k.p == p {
			c.size -= len(c.objects[k].data)
			delete(c.objects, k)
			continue
		}
		kept = append(kept, k)
	}
	c.order = kept
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
