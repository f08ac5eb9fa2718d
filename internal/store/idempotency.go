package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
)

// KeyWindow is how long an idempotency key holds: the same key from the
// same agent within it returns the first write's result and writes
// nothing; after it, the key starts a new write.
const KeyWindow = 24 * time.Hour

// MaxKeyLen is the longest idempotency key, in bytes.
const MaxKeyLen = 200

// ErrKeyReused: an idempotency key given to a write of another kind than
// the one it was first given to.
var ErrKeyReused = fmt.Errorf("%w: idempotency key used for another write", fault.ErrInvalidArgument)

// CheckKey reports what is wrong with an idempotency key, if anything:
// "" is no key; else 1 to MaxKeyLen bytes of printable UTF-8.
func CheckKey(key string) error {
	if key == "" {
		return nil
	}
	if len(key) > MaxKeyLen || !utf8.ValidString(key) || strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fault.WithHint(fmt.Errorf("%w: an idempotency key is 1 to %d printable characters", fault.ErrInvalidArgument, MaxKeyLen),
			"use a short unique string per write, such as a UUID")
	}
	return nil
}

// Replay looks up the write agent made with key in t's project within
// KeyWindow. When there is one, it decodes that write's result into
// result and reports true: the caller returns it and queues nothing. A key
// first given to a write of another op is ErrKeyReused. An empty key finds
// nothing.
func (t *Tx) Replay(ctx context.Context, agent, key, op string, result any) (bool, error) {
	if key == "" {
		return false, nil
	}
	if err := CheckKey(key); err != nil {
		return false, err
	}
	var was, created, data string
	err := t.QueryRowContext(ctx, `SELECT i.op, i.created, i.result FROM idempotency i JOIN projects p ON p.id = i.project_id
		WHERE p.slug = ? AND i.agent = ? AND i.key = ?`, t.slug, strings.ToLower(agent), key).Scan(&was, &created, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up idempotency key: %w", err)
	}
	when, err := record.ParseTime(created)
	if err != nil || !t.now.Before(when.Add(KeyWindow)) {
		return false, nil // past its window: a new write
	}
	if was != op {
		return false, fault.WithHint(fmt.Errorf("%w: %q was given to a %s at %s", ErrKeyReused, key, was, created),
			"use a new idempotency key for each distinct write")
	}
	if err := json.Unmarshal([]byte(data), result); err != nil {
		return false, fmt.Errorf("idempotency key %q: its result: %w", key, err)
	}
	return true, nil
}

// Remember queues the record of agent's key for op with the write's
// result, to be committed with the write: call it once the write has
// queued its records, with the result it returns. An empty key queues
// nothing.
func (t *Tx) Remember(agent, key, op string, result any) error {
	if key == "" {
		return nil
	}
	if t.slug == "" {
		return errors.New("idempotency keys are for writes to one project")
	}
	data, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("idempotency key: encode the result: %w", err)
	}
	t.Put(&record.Idempotency{Project: t.slug, Agent: agent, Key: key, Op: op, Created: t.now, Result: data})
	return nil
}

// applyKey indexes an idempotency key; a later use of a key replaces an
// earlier one.
func applyKey(w *Writer, k *record.Idempotency) error {
	pid, err := w.ProjectID(k.Project)
	if err != nil {
		return err
	}
	// The record's file indents the result; the row keeps it compact,
	// written or read back.
	var result bytes.Buffer
	if err := json.Compact(&result, k.Result); err != nil {
		return fmt.Errorf("idempotency key %q: its result: %w", k.Key, err)
	}
	_, err = w.Exec(`INSERT INTO idempotency(project_id, agent, key, op, created, result) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(project_id, agent, key) DO UPDATE SET op = excluded.op, created = excluded.created, result = excluded.result
		WHERE excluded.created >= idempotency.created`,
		pid, strings.ToLower(k.Agent), k.Key, k.Op, record.FormatTime(k.Created), result.String())
	return err
}
