package store

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/archive"
)

// objectCache serves archive objects from the index's objects table, in
// the transaction tx: the commit and trees of the archive's head along
// recently written paths, so that a write reads them from the index
// instead of the archive, where finding them means loading the index of
// every pack. Its query runs through the connection's cache of prepared
// statements (see Writer).
type objectCache struct {
	tx *sql.Tx
}

// Object implements archive.Cache.
func (c objectCache) Object(hash string) ([]byte, bool) {
	var data []byte
	if err := c.tx.QueryRow(`SELECT data FROM objects WHERE hash = ?`, hash).Scan(&data); err != nil {
		return nil, false
	}
	return data, true
}

// objectCache returns the cache of the write in transaction tx: nil for
// a one-shot store (Options.OneShot). Its single write would look up some
// 17 objects in the table (rows of trees up to hundreds of KB, each read
// whole) and write some 15, where reading them from the archive costs no
// more: sends in turns at 10,000 messages and 26-45 packs, with the table
// and without, took the same time (medians of 50 and 60 turns: cpu 16.4
// and 16.5 ms, wall time within 4-10%, either way), with the table's
// writes a fifth of a send's cpu profile and a WAL to match.
func (s *Store) objectCache(tx *sql.Tx) archive.Cache {
	if s.opts.OneShot {
		return nil
	}
	return objectCache{tx}
}

// cacheWritten records in the objects table, in tx, what a commit wrote
// and made stale, when a flush is due (see cachedObjects); a one-shot
// store keeps no table.
func (s *Store) cacheWritten(tx *sql.Tx, res archive.Result) error {
	if s.opts.OneShot || !s.cached.add(res) {
		return nil
	}
	return s.cached.flush(tx)
}

// cachedObjects is what the writes of a Store change in the objects
// table: the commits and trees they wrote, and those they made stale. A
// store that is not one-shot (see Store.objectCache) writes them to the
// table with its first write, then every flushEvery writes and when it closes,
// rather than with each write: the trees of a busy day are some 200 KB a
// write, and a long-lived process (a server) reads them back from the
// archive's memory of its writes (archive.recentObjects), not from the
// table, which serves other processes. A process that writes before the
// table caught up, or after one was killed before it flushed, reads what
// it misses from the archive: it costs time, never a wrong object.
type cachedObjects struct {
	mu      sync.Mutex
	written map[string][]byte
	stale   map[string]bool
	writes  int  // since the last flush
	flushed bool // once: a store's first write flushes at once
}

// flushEvery is how many writes a Store makes between flushes of the
// objects table.
const flushEvery = 32

// maxCachedObjects bounds the objects table: objects that writes of other
// processes made stale before this one flushed them would otherwise stay.
// Past it, a flush empties the table first.
const maxCachedObjects = 4096

// add records what a commit wrote and made stale, and reports whether a
// flush is due.
func (c *cachedObjects) add(res archive.Result) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written == nil {
		c.written, c.stale = map[string][]byte{}, map[string]bool{}
	}
	for _, h := range res.Stale {
		if _, ok := c.written[h]; ok {
			delete(c.written, h) // never reached the table
		} else {
			c.stale[h] = true
		}
	}
	for h, data := range res.Written {
		c.written[h] = data
	}
	c.writes++
	return !c.flushed || c.writes >= flushEvery
}

// pending reports whether a flush has anything to write.
func (c *cachedObjects) pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.written) > 0 || len(c.stale) > 0
}

// flush writes what the writes since the last flush changed to the
// objects table, in tx.
func (c *cachedObjects) flush(tx *sql.Tx) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.written) == 0 && len(c.stale) == 0 {
		return nil
	}
	stale := make([]string, 0, len(c.stale))
	for h := range c.stale {
		stale = append(stale, h)
	}
	var rows int
	if err := tx.QueryRow(`SELECT count(*) FROM objects`).Scan(&rows); err != nil {
		return fmt.Errorf("object cache: %w", err)
	}
	if rows > maxCachedObjects {
		if _, err := tx.Exec(`DELETE FROM objects`); err != nil {
			return fmt.Errorf("object cache: %w", err)
		}
		stale = nil
	}
	if err := cacheObjects(tx, c.written, stale); err != nil {
		return err
	}
	c.written, c.stale, c.writes, c.flushed = nil, nil, 0, true
	return nil
}

// flushCached flushes the objects table in a transaction of its own, as a
// store closes. A failure leaves the table behind, which costs only reads.
// A store whose writes left nothing to flush (one that only read) takes no
// transaction: it would wait for another connection's write.
func (s *Store) flushCached() {
	if s.readOnly || !s.cached.pending() {
		return
	}
	tx, err := s.writer().Begin()
	if err != nil {
		return
	}
	defer tx.Rollback()
	if s.cached.flush(tx) == nil {
		tx.Commit()
	}
}

// cacheObjects replaces the objects stale with written, so the cache holds
// the head's recently written paths and no more. Statements carry many
// rows each: a write touches a few dozen objects.
func cacheObjects(tx *sql.Tx, written map[string][]byte, stale []string) error {
	const chunk = 400 // well below SQLite's limit on bound variables
	for i := 0; i < len(stale); i += chunk {
		part := stale[i:min(i+chunk, len(stale))]
		args := make([]any, len(part))
		for j, h := range part {
			args[j] = h
		}
		q := `DELETE FROM objects WHERE hash IN (?` + strings.Repeat(",?", len(args)-1) + `)`
		if _, err := tx.Exec(q, args...); err != nil {
			return fmt.Errorf("object cache: %w", err)
		}
	}
	args := make([]any, 0, 2*chunk)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := `INSERT OR REPLACE INTO objects(hash, data) VALUES (?,?)` + strings.Repeat(",(?,?)", len(args)/2-1)
		_, err := tx.Exec(q, args...)
		args = args[:0]
		return err
	}
	for h, data := range written {
		args = append(args, h, data)
		if len(args) == 2*chunk {
			if err := flush(); err != nil {
				return fmt.Errorf("object cache: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("object cache: %w", err)
	}
	return nil
}
