package archive

import (
	"bytes"
	"fmt"
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
// objects of one write are unlike each other), the index from the pack by
// packfile.Parser and idxfile.Encoder. The index is renamed into place
// before the pack: git lists packs by their index, go-git by their pack
// file, and both ignore an index without its pack. It returns the pack's
// checksum.
func (a *Archive) writePack(objs []plumbing.EncodedObject) (plumbing.Hash, error) {
	mem := memory.NewStorage()
	hashes := make([]plumbing.Hash, len(objs))
	for i, o := range objs {
		h, err := mem.SetEncodedObject(o)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		hashes[i] = h
	}
	var pack, idx bytes.Buffer
	sum, err := packfile.NewEncoder(&pack, mem, false).Encode(hashes, 0)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode pack: %w", err)
	}
	if err := encodeIndex(&idx, pack.Bytes()); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("index pack: %w", err)
	}
	base := "pack-" + sum.String()
	err = writeFiles(a.fs, filepath.Join(a.dir, "objects", "pack"),
		file{base + ".idx", idx.Bytes(), 0o444},
		file{base + ".pack", pack.Bytes(), 0o444})
	return sum, err
}

// encodeIndex writes the version 2 index of pack to b.
func encodeIndex(b *bytes.Buffer, pack []byte) error {
	var w idxfile.Writer
	p, err := packfile.NewParser(packfile.NewScanner(bytes.NewReader(pack)), &w)
	if err != nil {
		return err
	}
	if _, err := p.Parse(); err != nil {
		return err
	}
	idx, err := w.Index()
	if err != nil {
		return err
	}
	_, err = idxfile.NewEncoder(b).Encode(idx)
	return err
}
