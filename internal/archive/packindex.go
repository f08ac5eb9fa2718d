package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packIndex is a pack's index (git's .idx, version 2) read where it lies:
// the file is mapped into memory, so that the kernel pages in what a
// lookup touches and may drop it again, and nothing of it is on the Go
// heap but, from the first lookup by offset (a delta's base), the
// positions of its objects in offset order, 4 bytes each. It implements
// go-git's idxfile.Index for a packfile.Packfile.
type packIndex struct {
	data   []byte // the mapped file
	count  int
	fanout []byte // 256 counts, 4 bytes each
	names  []byte // count hashes, sorted
	crcs   []byte // count checksums, 4 bytes each
	off32  []byte // count offsets, 4 bytes each; the high bit marks an index into off64
	off64  []byte // 8 bytes each

	revOnce sync.Once
	rev     []uint32 // positions by offset, from the first FindHash
}

var _ idxfile.Index = (*packIndex)(nil)

// idxV2Header opens a version 2 index.
var idxV2Header = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// openPackIndex maps the index file at path.
func openPackIndex(path string) (*packIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	const minSize = 8 + 256*4 + 2*20
	if fi.Size() < minSize {
		return nil, fmt.Errorf("pack index %s: %d bytes: too short", path, fi.Size())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("pack index %s: %w", path, err)
	}
	x, err := parsePackIndex(data)
	if err != nil {
		syscall.Munmap(data)
		return nil, fmt.Errorf("pack index %s: %w", path, err)
	}
	return x, nil
}

// parsePackIndex finds the tables of the index data.
func parsePackIndex(data []byte) (*packIndex, error) {
	if !bytes.HasPrefix(data, idxV2Header) {
		return nil, errors.New("not a version 2 pack index")
	}
	x := &packIndex{data: data, fanout: data[8 : 8+256*4]}
	x.count = int(binary.BigEndian.Uint32(x.fanout[255*4:]))
	p := 8 + 256*4
	tables := p + x.count*(20+4+4)
	if tables+2*20 > len(data) {
		return nil, fmt.Errorf("%d objects in %d bytes: truncated", x.count, len(data))
	}
	x.names, p = data[p:p+x.count*20], p+x.count*20
	x.crcs, p = data[p:p+x.count*4], p+x.count*4
	x.off32, p = data[p:p+x.count*4], p+x.count*4
	x.off64 = data[p : len(data)-2*20]
	return x, nil
}

func (x *packIndex) close() error { return syscall.Munmap(x.data) }

// find returns the position of h, or false.
func (x *packIndex) find(h plumbing.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(x.fanout[int(h[0])*4:]))
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(x.name(lo+i), h[:]) >= 0 })
	return i, i < hi && bytes.Equal(x.name(i), h[:])
}

func (x *packIndex) name(i int) []byte { return x.names[i*20 : i*20+20] }

// offset returns the pack offset of the object at position i.
func (x *packIndex) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(x.off32[i*4:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	j := int(o&0x7fffffff) * 8
	if j+8 > len(x.off64) {
		return 0, fmt.Errorf("object %d: 64-bit offset %d out of the table", i, j/8)
	}
	return int64(binary.BigEndian.Uint64(x.off64[j:])), nil
}

// Contains implements idxfile.Index.
func (x *packIndex) Contains(h plumbing.Hash) (bool, error) {
	_, ok := x.find(h)
	return ok, nil
}

// FindOffset implements idxfile.Index.
func (x *packIndex) FindOffset(h plumbing.Hash) (int64, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return x.offset(i)
}

// FindCRC32 implements idxfile.Index.
func (x *packIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.crcs[i*4:]), nil
}

// FindHash implements idxfile.Index: the object at offset o.
func (x *packIndex) FindHash(o int64) (plumbing.Hash, error) {
	x.revOnce.Do(x.sortByOffset)
	j := sort.Search(len(x.rev), func(j int) bool {
		off, _ := x.offset(int(x.rev[j]))
		return off >= o
	})
	if j == len(x.rev) {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	i := int(x.rev[j])
	if off, err := x.offset(i); err != nil || off != o {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	var h plumbing.Hash
	copy(h[:], x.name(i))
	return h, nil
}

// sortByOffset makes rev, the positions in offset order.
func (x *packIndex) sortByOffset() {
	offs := make([]int64, x.count)
	x.rev = make([]uint32, x.count)
	for i := range x.count {
		offs[i], _ = x.offset(i)
		x.rev[i] = uint32(i)
	}
	sort.Slice(x.rev, func(a, b int) bool { return offs[x.rev[a]] < offs[x.rev[b]] })
}

// Count implements idxfile.Index.
func (x *packIndex) Count() (int64, error) { return int64(x.count), nil }

// Entries implements idxfile.Index: every object, in hash order.
func (x *packIndex) Entries() (idxfile.EntryIter, error) {
	order := make([]uint32, x.count)
	for i := range order {
		order[i] = uint32(i)
	}
	return &packIndexIter{x: x, order: order}, nil
}

// EntriesByOffset implements idxfile.Index: every object, in offset order.
func (x *packIndex) EntriesByOffset() (idxfile.EntryIter, error) {
	x.revOnce.Do(x.sortByOffset)
	return &packIndexIter{x: x, order: x.rev}, nil
}

// packIndexIter lists the objects of an index in the order of positions.
type packIndexIter struct {
	x     *packIndex
	order []uint32
}

func (it *packIndexIter) Next() (*idxfile.Entry, error) {
	if len(it.order) == 0 {
		return nil, io.EOF
	}
	i := int(it.order[0])
	it.order = it.order[1:]
	off, err := it.x.offset(i)
	if err != nil {
		return nil, err
	}
	e := &idxfile.Entry{CRC32: binary.BigEndian.Uint32(it.x.crcs[i*4:]), Offset: uint64(off)}
	copy(e.Hash[:], it.x.name(i))
	return e, nil
}

func (it *packIndexIter) Close() error { return nil }
