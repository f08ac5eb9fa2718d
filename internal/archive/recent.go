package archive

import "sync"

// recentObjects keeps in memory the commits and trees an archive handle
// wrote last, on each branch: what its next write on that branch reads
// back, the trees along the paths it changes. A long-lived process (a
// server) then reads none of them from the repository or the caller's
// Cache. Objects are immutable, so an entry can only be missing, never
// wrong: one another process's commit superseded is dropped when the
// objects pass maxRecent.
type recentObjects struct {
	mu      sync.Mutex
	objects map[string][]byte // by hash
	size    int               // bytes in objects
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

// update records the objects a commit wrote in place of those it
// superseded.
func (r *recentObjects) update(written map[string][]byte, stale []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range stale {
		r.size -= len(r.objects[h])
		delete(r.objects, h)
	}
	if r.objects == nil || r.size > maxRecent {
		r.objects, r.size = map[string][]byte{}, 0
	}
	for h, data := range written {
		if _, ok := r.objects[h]; !ok {
			r.objects[h] = data
			r.size += len(data)
		}
	}
}
