package store

import (
	"errors"
	"strings"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// ErrFull is the sentinel of IsFull's errors, for a caller that wraps one
// (see Full).
var ErrFull = errors.New("no space left on the store's disk")

// IsFull reports whether err comes from a disk (or quota) with no space
// left: the archive's or the index's writes failed for it, and nothing else
// is wrong with the store. Some errors reach here as text only (git's, and
// those wrapped with %v), so their message counts too.
func IsFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrFull {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "no space left on device") || strings.Contains(msg, "database or disk is full") ||
		strings.Contains(msg, "disk quota exceeded")
}
