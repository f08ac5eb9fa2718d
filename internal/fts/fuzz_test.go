package fts

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, keeps its promises about notes,
// and only makes Match expressions that FTS5 accepts.
func FuzzParse(f *testing.F) {
	for _, q := range oddQueries {
		f.Add(q)
	}
	for _, c := range parseCases {
		f.Add(c.in)
	}
	db := newTestDB(f)
	for id, d := range planted {
		put(f, db, id, d)
	}
	f.Fuzz(func(t *testing.T, query string) {
		q := Parse(query)
		if len(q.Notes) > maxNotes+1 {
			t.Errorf("%d notes", len(q.Notes))
		}
		for _, n := range q.Notes {
			if n == "" || strings.ContainsAny(n, "\n\r") {
				t.Errorf("note %q is not one line", n)
			}
		}
		if !utf8.ValidString(q.Match) || strings.ContainsRune(q.Match, 0) || nesting(q.Match) > maxNesting {
			t.Errorf("bad match %q", q.Match)
		}
		if q.Match == "" {
			return
		}
		rows, err := db.Query(searchSQL, q.Match)
		if err != nil {
			t.Fatalf("match %q: %v", q.Match, err)
		}
		defer rows.Close()
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("match %q: %v", q.Match, err)
		}
	})
}

// FuzzDocument checks that any text can be stored, as subject and as
// markdown body, and that each of its words, searched for, finds it.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{
		"POL-358 (POL-359/POL-360). src/api/routes.py:42 snake_case_name CamelCase iPhone",
		"**bold** [link](https://x.y/z) `code_span` <b>html</b>", "a.b.c.d.e.f.g.h.i.j", "-x OR y AND NOT z",
		"résumé naïve Zoë", "x\x00y \xff \x1b[1m \uE000hit\uE001", strings.Repeat("z", 70) + "-a",
		"from:alice subject:x \"quoted\" (paren) star*", "日本語のテキスト、句読点。",
	} {
		f.Add(s)
	}
	db := newTestDB(f)
	f.Fuzz(func(t *testing.T, text string) {
		put(t, db, 1, NewDocument(text, text, "", nil, "", ""))
		defer db.Exec(`DELETE FROM ` + table + ` WHERE rowid = 1`)
		for i, w := range strings.Fields(clean(text)) {
			if i == 20 || len(w) > 1000 {
				break
			}
			if strings.Contains(w, `"`) || !strings.ContainsFunc(w, isTokenChar) ||
				strings.ContainsFunc(w, func(r rune) bool { return r >= 0x250 }) {
				continue // nothing to search, or a rune whose class may differ in SQLite's tables
			}
			queries := []string{`"` + w + `"`}
			if !strings.ContainsAny(w, `"()*:`) && w[0] != '-' && !slices.Contains([]string{"OR", "AND", "NOT"}, w) {
				queries = append(queries, w)
			}
			for _, query := range queries {
				hits, err := search(t, db, query)
				if err != nil || len(hits) != 1 {
					t.Errorf("search %q in %q: %v, %v (match %s)", query, text, hits, err, Parse(query).Match)
				}
			}
		}
	})
}
