package archive

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// A write lands as one pack file and its index rather than as one loose
// object file per blob, tree and commit: each file a write creates must be
// synced before the branch may name its objects, and a message makes some
// twenty objects. Packs are consolidated by Pack once they pile up.

// writePack writes objs durably as one pack and its index in objects/pack:
// the pack as encodePack writes it, the index by go-git's idxfile from
// where each object starts and the checksum of its entry, both known from
// the encoding. The index is renamed into place before the pack: git lists
// packs by their index, go-git by their pack file, and both ignore an
// index without its pack. It returns the pack's checksum.
func (a *Archive) writePack(objs []plumbing.EncodedObject) (plumbing.Hash, error) {
	var pack, idx bytes.Buffer
	entries, sum, err := encodePack(&pack, objs)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode pack: %w", err)
	}
	var w idxfile.Writer
	w.OnHeader(uint32(len(objs)))
	for i, o := range objs {
		w.Add(o.Hash(), entries[i].offset, entries[i].crc)
	}
	if err := w.OnFooter(sum); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("index pack: %w", err)
	}
	index, err := w.Index()
	if err == nil {
		_, err = idxfile.NewEncoder(&idx).Encode(index)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("index pack: %w", err)
	}
	base := "pack-" + sum.String()
	err = writeFiles(a.writer(), filepath.Join(a.dir, "objects", "pack"),
		file{base + ".idx", idx.Bytes(), 0o444},
		file{base + ".pack", pack.Bytes(), 0o444})
	if err == nil {
		a.packCount.wrote()
	}
	return sum, err
}

// packEntry is where an object's entry starts in a pack, and the CRC-32 of
// the entry (its header and deflated data), as a pack index records them.
type packEntry struct {
	offset uint64
	crc    uint32
}

// The zlib levels of a write's pack, as git's core.compression would set
// them. Blobs (the records) get zlib's fastest, the level of git's own
// core.looseCompression default. Trees are stored uncompressed: a write
// rewrites the trees on its paths, a day's directory of messages among
// them (some 100 KB at a thousand messages a day), and deflating those
// would be most of its cost; each is superseded by the next write, and the
// roll-up (Pack) stores them as deltas of each other, compressed by git.
// So are blobs under smallBlob bytes (a reservation, a receipt): deflating
// one costs more (the Huffman tables of its block) than the hundred bytes
// it saves, and a reservation of 50 patterns writes 50 of them (measured:
// 0.6 ms a write against 16 µs stored, for 3 KB more in its pack, until
// the roll-up compresses them).
const (
	blobCompression = zlib.BestSpeed
	treeCompression = zlib.NoCompression
	smallBlob       = 1024
)

// Writers at those levels, kept between writes: each takes some 600 KB
// to set up.
var (
	blobWriters = sync.Pool{New: func() any { return mustZlib(blobCompression) }}
	treeWriters = sync.Pool{New: func() any { return mustZlib(treeCompression) }}
)

func mustZlib(level int) *zlib.Writer {
	zw, err := zlib.NewWriterLevel(io.Discard, level)
	if err != nil {
		panic(err) // only for a level out of range
	}
	return zw
}

// encodePack writes objs to b as a version 2 pack file, whole objects in
// the order given (no deltas: the objects of one write are unlike each
// other), and returns each one's entry and the pack's checksum.
func encodePack(b *bytes.Buffer, objs []plumbing.EncodedObject) ([]packEntry, plumbing.Hash, error) {
	size := 0
	for _, o := range objs {
		size += int(o.Size()) + 32
	}
	b.Grow(size + 32) // objects come out smaller, or barely larger
	b.WriteString("PACK")
	b.Write(binary.BigEndian.AppendUint32(nil, 2))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(objs))))
	blobs, trees := blobWriters.Get().(*zlib.Writer), treeWriters.Get().(*zlib.Writer)
	defer blobWriters.Put(blobs)
	defer treeWriters.Put(trees)
	entries := make([]packEntry, len(objs))
	for i, o := range objs {
		start := b.Len()
		b.Write(objectHeader(o.Type(), o.Size()))
		zw := blobs
		if o.Type() != plumbing.BlobObject || o.Size() < smallBlob {
			zw = trees
		}
		if err := deflateObject(zw, b, o); err != nil {
			return nil, plumbing.ZeroHash, fmt.Errorf("deflate %s: %w", o.Hash(), err)
		}
		entries[i] = packEntry{offset: uint64(start), crc: crc32.ChecksumIEEE(b.Bytes()[start:])}
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return entries, plumbing.Hash(sum), nil
}

// deflateObject appends o's content to b as one zlib stream, through zw.
func deflateObject(zw *zlib.Writer, b *bytes.Buffer, o plumbing.EncodedObject) error {
	zw.Reset(b)
	r, err := o.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := io.Copy(zw, r); err != nil {
		return err
	}
	return zw.Close()
}

// objectHeader encodes a pack entry's header: the object's type and its
// size, seven bits a byte after the first four, each byte but the last
// with its high bit set.
func objectHeader(typ plumbing.ObjectType, size int64) []byte {
	h := []byte{byte(typ)<<4 | byte(size&0x0f)}
	for size >>= 4; size > 0; size >>= 7 {
		h[len(h)-1] |= 0x80
		h = append(h, byte(size&0x7f))
	}
	return h
}
