package fts

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

func TestScratch(t *testing.T) {
	db, _ := sql.Open("sqlite3", ":memory:")
	db.SetMaxOpenConns(1)
	db.Exec(`CREATE VIRTUAL TABLE f USING fts5(a, b, c, tokenize='porter unicode61 remove_diacritics 2')`)
	db.Exec(`INSERT INTO f(rowid,a,b,c) VALUES(1,'hello world','foo bar','0 080079')`)
	pats := [][2]string{{"(", ")"}, {`"hello" AND (`, ")"}, {`"hello" NOT (`, ")"}, {`"hello" OR (`, ")"}, {`(a : "x" AND (`, "))"}, {`{a b} : (`, ")"}}
	for _, p := range pats {
		for d := 1; d <= 400; d++ {
			q := strings.Repeat(p[0], d) + `"hello"` + strings.Repeat(p[1], d)
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM f WHERE f MATCH ?`, q).Scan(&n); err != nil {
				t.Logf("%q: ok up to %d: %v", p[0], d-1, err)
				break
			}
		}
	}
}
