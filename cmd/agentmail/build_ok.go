//go:build cgo && sqlite_fts5

package main

// buildSupported reports whether the binary can open its index: go-sqlite3
// needs cgo, and search needs SQLite's FTS5 module.
const buildSupported = true
