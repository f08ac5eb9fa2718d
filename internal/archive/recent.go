package archive

import "sync"

// recentObjects keeps in memory the commits and trees an archive handle
// wrote last, on each branch: what its next write on that branch reads
// back, the trees along the paths it changes. A long-lived process (a
// server) then reads none of them from the repository or the caller's
// Cache. The objects later writes superseded are kept too, oldest dropped
// first, while they fit: a reader diffing the recent commits with their
// parents (serve's event feed) finds both sides here. Objects are
// immutable, so an entry can only be missing, never wrong.
type recentObjects struct {
	mu         sync.Mutex
	objects    map[string][]byte // by hash
	size       int               // bytes in objects
	superseded []string          // hashes in objects no write reads any more, oldest first
}

// maxRecent bounds the bytes recentObjects holds: a project's trees along
// a message's paths take some 300 KB at a thousand messages a day.
const maxRecent = 16 << 20

func (r *recentObjects) get(hash string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, ok := r.objects[hash]
	return data, ok
}

// update records the objects a commit wrote, which supersede those in
// stale, and drops the oldest superseded objects beyond maxRecent.
func (r *recentObjects) update(written map[string][]byte, stale []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.objects == nil {
		r.objects = map[string][]byte{}
	}
	r.superseded = append(r.superseded, stale...)
	for h, data := range written {
		if _, ok := r.objects[h]; !ok {
			r.objects[h] = data
			r.size += len(data)
		}
	}
	for r.size > maxRecent && len(r.superseded) > 0 {
		h := r.superseded[0]
		r.superseded = r.superseded[1:]
		r.size -= len(r.objects[h])
		delete(r.objects, h)
	}
	if r.size > maxRecent { // one write's alone
		r.objects, r.size, r.superseded = map[string][]byte{}, 0, nil
	}
}
