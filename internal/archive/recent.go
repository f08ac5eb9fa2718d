package archive

import "sync"

// recentObjects keeps in memory the commits and trees an archive handle
// wrote last, on each branch: what its next write on that branch reads
// back, the trees along the paths it changes. A long-lived process (a
// server) then reads none of them from the repository or the caller's
// Cache. Some of the objects later writes superseded are kept too, oldest
// dropped first, so that a reader diffing the last few commits with their
// parents finds both sides here; serve's event feed gets the files of its
// own process's commits without reading them (store.Store.OnCommit), so
// the superseded trees are kept to a small budget rather than the whole
// bound: on a busy day they are some 300 KB a write, and a server would
// hold them as garbage-collected heap twice over. Objects are immutable,
// so an entry can only be missing, never wrong.
type recentObjects struct {
	mu             sync.Mutex
	objects        map[string][]byte // by hash
	size           int               // bytes in objects
	superseded     []superseded      // in objects but no write reads them any more, oldest first
	supersededSize int               // bytes of superseded
}

// superseded is an object of recentObjects that a later write superseded.
type superseded struct {
	hash string
	size int
}

// maxRecent bounds the bytes recentObjects holds: a project's trees along
// a message's paths take some 300 KB at a thousand messages a day.
const maxRecent = 16 << 20

// maxSuperseded bounds the bytes of superseded objects recentObjects
// keeps.
const maxSuperseded = 2 << 20

func (r *recentObjects) get(hash string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, ok := r.objects[hash]
	return data, ok
}

// update records the objects a commit wrote, which supersede those in
// stale, and drops the oldest superseded objects beyond maxSuperseded, or
// beyond maxRecent in all.
func (r *recentObjects) update(written map[string][]byte, stale []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.objects == nil {
		r.objects = map[string][]byte{}
	}
	for _, h := range stale {
		if data, ok := r.objects[h]; ok {
			r.superseded = append(r.superseded, superseded{h, len(data)})
			r.supersededSize += len(data)
		}
	}
	for h, data := range written {
		if _, ok := r.objects[h]; !ok {
			r.objects[h] = data
			r.size += len(data)
		}
	}
	for (r.size > maxRecent || r.supersededSize > maxSuperseded) && len(r.superseded) > 0 {
		s := r.superseded[0]
		r.superseded = r.superseded[1:]
		r.supersededSize -= s.size
		r.size -= len(r.objects[s.hash])
		delete(r.objects, s.hash)
	}
	if r.size > maxRecent { // one write's alone
		r.objects, r.size, r.superseded, r.supersededSize = map[string][]byte{}, 0, nil, 0
	}
}
