package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentmail/agentmail/internal/archive"
)

// measureDiskFloor times what every write of the archive waits for on the
// disk, with none of the work around it: three files filled and synced at
// once (a write's pack, the pack's index and the branch's new value), two
// of them renamed into place and their directory synced, the third linked
// as the branch's lock, renamed over the branch and its directory synced
// (see internal/archive). The files are made ahead, untimed, as a
// long-lived process makes its spares. It runs in a directory of its own
// beside the store's archive, on the same file system, so that a write's
// figure can be read against it: what a write takes above it is
// agentmail's.
func measureDiskFloor(storeDir string, runs int) result {
	const name = "disk floor: a write's syncs"
	dir, err := os.MkdirTemp(storeDir, "disk-floor-")
	if err != nil {
		return result{name: name, err: err}
	}
	defer os.RemoveAll(dir)
	packDir, refDir := filepath.Join(dir, "pack"), filepath.Join(dir, "refs")
	for _, d := range []string{packDir, refDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return result{name: name, err: err}
		}
	}
	ref := filepath.Join(refDir, "main")
	if err := os.WriteFile(ref, []byte("0\n"), 0o644); err != nil {
		return result{name: name, err: err}
	}
	// Sizes of a send's files at 100,000 messages: its pack holds the
	// rewritten trees of three day directories.
	data := [][]byte{make([]byte, 128<<10), make([]byte, 2<<10), []byte(fmt.Sprintf("%040d\n", 0))}
	temps := func(i int) []string {
		return []string{
			filepath.Join(packDir, fmt.Sprintf(".tmp-%d-pack", i)),
			filepath.Join(packDir, fmt.Sprintf(".tmp-%d-idx", i)),
			filepath.Join(dir, fmt.Sprintf("ref-%d", i)),
		}
	}
	makeSpares := func(i int) error {
		for _, t := range temps(i) {
			if err := os.WriteFile(t, nil, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if err := makeSpares(0); err != nil {
		return result{name: name, err: err}
	}
	return timeCalls(name, 0, runs, func(i int) error {
		return floorWrite(temps(i), packDir, refDir, ref, i, data)
	}, func(i int) error { return makeSpares(i + 1) })
}

// floorWrite is the i-th write of measureDiskFloor, into the spares temps.
func floorWrite(temps []string, packDir, refDir, ref string, i int, data [][]byte) error {
	errs := make([]error, len(temps))
	var wg sync.WaitGroup
	for j, t := range temps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[j] = fillSynced(t, data[j])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for j, ext := range []string{".pack", ".idx"} {
		if err := os.Rename(temps[j], filepath.Join(packDir, fmt.Sprintf("pack-%d%s", i, ext))); err != nil {
			return err
		}
	}
	if err := archive.SyncPath(packDir); err != nil {
		return err
	}
	lock := ref + ".lock"
	if err := os.Link(temps[2], lock); err != nil {
		return err
	}
	if err := os.Rename(lock, ref); err != nil {
		return err
	}
	if err := archive.SyncPath(refDir); err != nil {
		return err
	}
	return os.Remove(temps[2])
}

// fillSynced writes data to the existing file name and syncs it.
func fillSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
