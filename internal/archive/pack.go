package archive

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// A write lands as one pack file (plus its index) rather than as one loose
// object file per blob, tree and commit: creating files is the dominant cost
// of a write on common file systems, and a message touches some twenty
// objects. Packs are consolidated by Pack (git repack --geometric) once they
// pile up.

// rawObject is a git object to be written.
type rawObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	data []byte
}

// newObject hashes an object with the standard library's SHA-1, which is
// several times faster than the collision-detecting one go-git uses; the
// objects hashed here are our own.
func newObject(typ plumbing.ObjectType, data []byte) rawObject {
	d := sha1.New()
	d.Write(typ.Bytes())
	d.Write([]byte(" " + strconv.Itoa(len(data)) + "\x00"))
	d.Write(data)
	var h plumbing.Hash
	d.Sum(h[:0])
	return rawObject{hash: h, typ: typ, data: data}
}

// Blobs (message text) of compressBlobs bytes or more are compressed.
// Smaller blobs, trees (mostly SHA-1 hashes that do not compress) and
// commits are stored as they are, in deflate's stored blocks written here:
// a write is several times cheaper for it, and one that writes only short
// messages needs none of the ~900 KB a flate writer allocates, which a
// short-lived process pays for in page faults. A roll-up deltifies the
// trees and doctor --gc recompresses everything.
const compressBlobs = 1 << 10

var blobWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// writeStored writes data to b as a zlib stream of stored deflate blocks.
func writeStored(b *bytes.Buffer, data []byte) {
	b.Write([]byte{0x78, 0x01}) // deflate, 32 KB window, no dictionary
	sum := adler32.Checksum(data)
	for {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		b.WriteByte(final) // block type 00: stored
		binary.Write(b, binary.LittleEndian, [2]uint16{uint16(n), ^uint16(n)})
		b.Write(data[:n])
		if data = data[n:]; final == 1 {
			break
		}
	}
	binary.Write(b, binary.BigEndian, sum)
}

// writePack writes objs as objects/pack/pack-<sum>.pack and .idx. The index
// is renamed into place before the pack: git ignores an index without its
// pack, and go-git, which lists packs by their .pack files, fails on a pack
// without its index, so a write killed in between leaves only an ignored
// index behind. It returns the pack's checksum, which names it, and where
// each object starts in it.
func writePack(dir string, objs []rawObject) (string, map[plumbing.Hash]int64, error) {
	var pack bytes.Buffer
	size := 12 + sha1.Size
	for _, o := range objs {
		size += len(o.data) + 32 // headers and framing; a hint, the buffer grows if need be
	}
	pack.Grow(size)
	pack.WriteString("PACK")
	binary.Write(&pack, binary.BigEndian, uint32(2))
	binary.Write(&pack, binary.BigEndian, uint32(len(objs)))
	type entry struct {
		hash   plumbing.Hash
		offset uint32
		crc    uint32
	}
	entries := make([]entry, len(objs))
	for i, o := range objs {
		start := pack.Len()
		writeObjectHeader(&pack, o.typ, len(o.data))
		if o.typ == plumbing.BlobObject && len(o.data) >= compressBlobs {
			zw := blobWriters.Get().(*zlib.Writer)
			zw.Reset(&pack)
			zw.Write(o.data)
			err := zw.Close()
			blobWriters.Put(zw)
			if err != nil {
				return "", nil, err
			}
		} else {
			writeStored(&pack, o.data)
		}
		entries[i] = entry{o.hash, uint32(start), crc32.ChecksumIEEE(pack.Bytes()[start:])}
	}
	if pack.Len() >= 1<<31 {
		return "", nil, fmt.Errorf("pack of %d bytes is too large for one write", pack.Len())
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])

	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].hash[:], entries[j].hash[:]) < 0 })
	var idx bytes.Buffer
	idx.Write([]byte{0xff, 't', 'O', 'c'})
	binary.Write(&idx, binary.BigEndian, uint32(2))
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.hash[0]]++
	}
	var total uint32
	for i := range fanout {
		total += fanout[i]
		binary.Write(&idx, binary.BigEndian, total)
	}
	for _, e := range entries {
		idx.Write(e.hash[:])
	}
	for _, e := range entries {
		binary.Write(&idx, binary.BigEndian, e.crc)
	}
	for _, e := range entries {
		binary.Write(&idx, binary.BigEndian, e.offset)
	}
	idx.Write(sum[:])
	idxSum := sha1.Sum(idx.Bytes())
	idx.Write(idxSum[:])

	base := filepath.Join(dir, "objects", "pack", fmt.Sprintf("pack-%x", sum))
	if err := writeFileAtomic(base+".idx", idx.Bytes()); err != nil {
		return "", nil, err
	}
	if err := writeFileAtomic(base+".pack", pack.Bytes()); err != nil {
		return "", nil, err
	}
	offsets := make(map[plumbing.Hash]int64, len(entries))
	for _, e := range entries {
		offsets[e.hash] = int64(e.offset)
	}
	return fmt.Sprintf("%x", sum), offsets, nil
}

// writeObjectHeader writes a pack entry header: type and size, seven bits a
// byte, low bits first.
func writeObjectHeader(b *bytes.Buffer, typ plumbing.ObjectType, size int) {
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b.WriteByte(c | 0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	b.WriteByte(c)
}

// writeFileAtomic writes data to a temporary file in the target's directory
// and renames it into place.
func writeFileAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// ReadStored returns the tree or commit hash that Commit wrote at offset
// in the pack named by the checksum pack (see Result), or false when it is
// not there: the pack has been rolled up since, or the object is not one
// Commit stored. What it returns has been checked against hash.
func (a *Archive) ReadStored(pack string, offset int64, hash string) ([]byte, bool) {
	if !plumbing.IsHash(pack) || offset < 0 {
		return nil, false
	}
	f, err := os.Open(filepath.Join(a.dir, "objects", "pack", "pack-"+pack+".pack"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var head [10]byte
	n, _ := f.ReadAt(head[:], offset)
	typ, size, hl := readObjectHeader(head[:n])
	if hl == 0 || (typ != plumbing.TreeObject && typ != plumbing.CommitObject) {
		return nil, false
	}
	blocks := max(1, (size+0xfffe)/0xffff)
	buf := make([]byte, 2+size+5*blocks+4)
	if _, err := f.ReadAt(buf, offset+int64(hl)); err != nil {
		return nil, false
	}
	data, ok := readStored(buf, size)
	if !ok || newObject(typ, data).hash.String() != hash {
		return nil, false
	}
	return data, true
}

// readObjectHeader parses a pack entry header (see writeObjectHeader) and
// returns its length, 0 if b holds none.
func readObjectHeader(b []byte) (plumbing.ObjectType, int, int) {
	if len(b) == 0 {
		return 0, 0, 0
	}
	typ, size, shift := plumbing.ObjectType(b[0]>>4&7), int(b[0]&0x0f), 4
	i := 0
	for b[i]&0x80 != 0 {
		if i++; i >= len(b) {
			return 0, 0, 0
		}
		size |= int(b[i]&0x7f) << shift
		shift += 7
	}
	return typ, size, i + 1
}

// readStored undoes writeStored: it returns the size bytes a zlib stream of
// stored blocks holds, moving them down over the block headers in z.
func readStored(z []byte, size int) ([]byte, bool) {
	if len(z) < 2 || z[0] != 0x78 || z[1] != 0x01 {
		return nil, false
	}
	n, src := 0, 2
	for {
		if src+5 > len(z) || z[src]&^1 != 0 {
			return nil, false
		}
		final := z[src] == 1
		l := int(binary.LittleEndian.Uint16(z[src+1:]))
		if ^uint16(l) != binary.LittleEndian.Uint16(z[src+3:]) || src+5+l > len(z) || n+l > size {
			return nil, false
		}
		n += copy(z[n:], z[src+5:src+5+l])
		if src += 5 + l; final {
			break
		}
	}
	return z[:n], n == size
}
