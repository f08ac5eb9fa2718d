package archive

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"
)

// A write lands as one pack file and its index rather than as one loose
// object file per blob, tree and commit: each file a write creates must be
// synced before the branch may name its objects, and a message makes some
// twenty objects. Packs are consolidated by Pack once they pile up.

// writePack writes objs durably as one pack and its index in objects/pack,
// both encoded by go-git: the pack by packfile.Encoder (no deltas: the
// objects of one write are unlike each other), the index by idxfile from
// where packfile.Scanner finds each object in the pack. The index is
// renamed into place before the pack: git lists packs by their index,
// go-git by their pack file, and both ignore an index without its pack.
// It returns the pack's checksum.
func (a *Archive) writePack(objs []plumbing.EncodedObject) (plumbing.Hash, error) {
	mem := memory.NewStorage()
	hashes := make([]plumbing.Hash, len(objs))
	size := 0
	for i, o := range objs {
		h, err := mem.SetEncodedObject(o)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		hashes[i] = h
		size += int(o.Size())
	}
	var pack, idx bytes.Buffer
	pack.Grow(size + 1024) // deflated objects come out smaller, or barely larger
	sum, err := packfile.NewEncoder(&pack, mem, false).Encode(hashes, 0)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode pack: %w", err)
	}
	if err := encodeIndex(&idx, pack.Bytes(), objs); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("index pack: %w", err)
	}
	base := "pack-" + sum.String()
	err = writeFiles(a.fs, filepath.Join(a.dir, "objects", "pack"),
		file{base + ".idx", idx.Bytes(), 0o444},
		file{base + ".pack", pack.Bytes(), 0o444})
	return sum, err
}

// encodeIndex writes the version 2 index of pack, which holds objs in this
// order (packfile.Encoder keeps the order it is given without deltas), to
// b. The scanner finds where each object starts and the checksum of its
// entry; the objects' hashes are known, so nothing is hashed again.
func encodeIndex(b *bytes.Buffer, pack []byte, objs []plumbing.EncodedObject) error {
	s := packfile.NewScanner(bytes.NewReader(pack))
	_, n, err := s.Header()
	if err != nil {
		return err
	}
	if int(n) != len(objs) {
		return fmt.Errorf("pack holds %d objects, not %d", n, len(objs))
	}
	var w idxfile.Writer
	w.OnHeader(n)
	for _, o := range objs {
		oh, err := s.NextObjectHeader()
		if err != nil {
			return err
		}
		if oh.Type != o.Type() || oh.Length != o.Size() {
			return fmt.Errorf("pack object at %d is a %s of %d bytes, not the %s %s", oh.Offset, oh.Type, oh.Length, o.Type(), o.Hash())
		}
		_, crc, err := s.NextObject(io.Discard)
		if err != nil {
			return err
		}
		w.Add(o.Hash(), uint64(oh.Offset), crc)
	}
	sum, err := s.Checksum()
	if err != nil {
		return err
	}
	if err := w.OnFooter(sum); err != nil {
		return err
	}
	index, err := w.Index()
	if err != nil {
		return err
	}
	_, err = idxfile.NewEncoder(b).Encode(index)
	return err
}
