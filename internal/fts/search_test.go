package fts

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// newTestDB returns an in-memory database with the FTS table.
func newTestDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1) // every connection would have its own :memory:
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		tb.Fatal(err)
	}
	return db
}

// put stores d as the document of rowid, as the projection stores a
// message's.
func put(tb testing.TB, db interface {
	Exec(string, ...any) (sql.Result, error)
}, rowid int64, d Document) {
	tb.Helper()
	if _, err := db.Exec(putSQL, d.row().values(rowid)...); err != nil {
		tb.Fatalf("put(%d): %v", rowid, err)
	}
}

// hit is a row of a search, best first.
type hit struct {
	rowid            int64
	subject, snippet string
}

const searchSQL = `SELECT rowid, ` + highlightSubjectSQL + `, ` + snippetSQL + ` FROM ` + table +
	` WHERE ` + table + ` MATCH ? ORDER BY ` + rankSQL + `, rowid`

// search runs the text part of query, as the caller would.
func search(tb testing.TB, db *sql.DB, query string) ([]hit, error) {
	tb.Helper()
	q := Parse(query)
	if q.Match == "" {
		return nil, nil
	}
	rows, err := db.Query(searchSQL, q.Match)
	if err != nil {
		return nil, fmt.Errorf("%w (match %s)", err, q.Match)
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.rowid, &h.subject, &h.snippet); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

func rowids(tb testing.TB, db *sql.DB, query string) []int64 {
	tb.Helper()
	hits, err := search(tb, db, query)
	if err != nil {
		tb.Fatalf("search %q: %v", query, err)
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.rowid
	}
	return ids
}

// Filler words of generated messages; none is a word the tests search for.
var (
	vocab = strings.Fields(`the a of to and in for on with is was be this that it as are at by from
		build test cache index schema migration worker queue retry timeout latency metric dashboard
		alert config flag release branch merge review patch commit agent mailbox thread reply inbox
		archive server client request response handler router service database table column query
		lock file path module package function method struct field value error panic log trace
		deadline budget plan sprint ticket issue bug fix feature refactor cleanup docs readme note
		please thanks today tomorrow soon later check update status blocked waiting ready done`)
	agents = []string{"GreenCastle", "RedFox", "SilverPond", "AmberHill", "CopperWolf", "JadeRiver"}
)

const (
	corpusSize   = 400 // generated messages, rowids 1..corpusSize
	auroraDivSub = 37  // every 37th generated message has "aurora" in its subject
	auroraDivBod = 11  // every 11th other one has it in its body only
)

// planted messages, with rowids above the generated ones.
var planted = map[int64]Document{
	1001: {Subject: "POL-358 rollout plan", Body: "Tracking it in POL-358."},
	1002: {Subject: "follow-up", Body: "This is about POL 359 only."},
	1003: {Body: "mentions POL 358 without the dash"},
	1004: {Body: "see (POL-358/POL-359) for details"},
	1005: {Body: "edit src/api/routes.py:42 please"},
	1006: {Body: "the old src/api/route.py file"},
	1007: {Body: "rename snake_case_name now"},
	1008: {Body: "a snake case name in prose"},
	1009: {Body: "snake_case_names plural"},
	1010: {Body: "call HandleRequest here"},
	1011: {Body: "call HandleRequests there"},
	1012: {Body: "handle request in prose"},
	1013: {Body: "mixed-case handleRequest"},
	1014: {Body: "lower-case handlerequest"},
	1020: {Body: "the quick brown fox"},
	1021: {Body: "brown quick fox"},
	1030: {Body: "zephyrine"},
	1031: {Subject: "Zephyrus"},
	1032: {Body: "zeph"},
	1040: {Body: "quokka"},
	1041: {Body: "wombat"},
	1042: {Body: "quokka and wombat"},
	1050: {Subject: "narwhal sighting", Body: "nothing"},
	1051: {Subject: "nothing", Body: "a narwhal"},
	1060: {Body: "deploying the service"},
	1061: {Body: "résumé attached"},
	1070: {Sender: "BlueLake", Body: "hello"},
	1071: {Recipients: "BlueLakes, RedFox", Thread: "POL-400", Category: "incident", Body: "hello"},
	1080: {Body: "array[0] is [not] a hit: needle here, " + MarkOpen + "fake" + MarkClose + " and \x1b[31mred"},
}

func corpus(tb testing.TB) *sql.DB {
	db := newTestDB(tb)
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return w
	}
	for i := 1; i <= corpusSize; i++ {
		subject := words(3 + rng.IntN(6))
		body := words(20 + rng.IntN(150))
		switch {
		case i%auroraDivSub == 0:
			subject[rng.IntN(len(subject))] = "aurora"
		case i%auroraDivBod == 0:
			body[rng.IntN(len(body))] = "aurora"
		}
		put(tb, tx, int64(i), Document{
			Subject:    strings.Join(subject, " "),
			Body:       strings.Join(body, " "),
			Sender:     agents[rng.IntN(len(agents))],
			Recipients: agents[rng.IntN(len(agents))] + ", " + agents[rng.IntN(len(agents))],
			Thread:     fmt.Sprintf("T-%d", i%20),
			Category:   []string{"ops", "dev", "misc"}[i%3],
		})
	}
	for id, d := range planted {
		put(tb, tx, id, d)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return db
}

func TestSearch(t *testing.T) {
	db := corpus(t)
	sorted := func(ids []int64) []int64 { return slices.Sorted(slices.Values(ids)) }
	for _, c := range []struct {
		query string
		want  []int64 // in any order
	}{
		{`"quick brown"`, []int64{1020}},
		{`quick brown`, []int64{1020, 1021}},
		{`"quick brown" fox`, []int64{1020}},
		{`zephyr*`, []int64{1030, 1031}},
		{`zeph*`, []int64{1030, 1031, 1032}},
		{`"brown qu"*`, []int64{1021}},
		{`quokka OR wombat`, []int64{1040, 1041, 1042}},
		{`quokka wombat`, []int64{1042}},
		{`quokka -wombat`, []int64{1040}},
		{`quokka NOT wombat`, []int64{1040}},
		{`(quokka OR wombat) -(quokka wombat)`, []int64{1040, 1041}},
		{`subject:narwhal`, []int64{1050}},
		{`body:narwhal`, []int64{1051}},
		{`narwhal`, []int64{1050, 1051}},
		{`subject:(narwhal OR zephyrus)`, []int64{1031, 1050}},
		{`subject:nothing body:narwhal`, []int64{1051}},
		{`deployed`, []int64{1060}},
		{`resume`, []int64{1061}},
		{`RÉSUMÉ`, []int64{1061}},

		// Identifiers.
		{`POL-358`, []int64{1001, 1004}},
		{`pol-358`, []int64{1001, 1004}},
		{`POL-359`, []int64{1004}},
		{`"POL 358"`, []int64{1001, 1003, 1004}},
		{`subject:POL-358`, []int64{1001}},
		{`body:POL-358`, []int64{1001, 1004}},
		{`POL-35*`, []int64{1001, 1004}},
		{`POL-*`, []int64{1001, 1004, 1071}},
		{`src/api/routes.py`, []int64{1005}},
		{`api/routes.py`, []int64{1005}},
		{`routes.py`, []int64{1005}},
		{`src/api/route.py`, []int64{1006}},
		{`src/api/*`, []int64{1005, 1006}},
		{`"edit src/api/routes.py:42"`, []int64{1005}},
		{`snake_case_name`, []int64{1007}},
		{`"snake case name"`, []int64{1007, 1008, 1009}},
		{`HandleRequest`, []int64{1010, 1013}},
		{`handlerequest`, []int64{1010, 1011, 1013, 1014}}, // a plain word: stemmed
		{`HandleRequest*`, []int64{1010, 1011, 1013}},
		{`BlueLake`, []int64{1070}},
		{`BlueLake*`, []int64{1070, 1071}},
		{`POL-400 incident`, []int64{1071}},
		{`needle`, []int64{1080}},
		{`fake`, []int64{1080}},
	} {
		if got := rowids(t, db, c.query); !slices.Equal(sorted(got), c.want) {
			t.Errorf("search %q = %v, want %v (match %s)", c.query, sorted(got), c.want, Parse(c.query).Match)
		}
	}

	// Only exclusions: everything else.
	if got := rowids(t, db, `-quokka`); len(got) != corpusSize+len(planted)-2 || slices.Contains(got, 1040) {
		t.Errorf("search -quokka: %d hits", len(got))
	}
	if got := rowids(t, db, `-quokka -wombat -narwhal`); len(got) != corpusSize+len(planted)-5 {
		t.Errorf("search -quokka -wombat -narwhal: %d hits", len(got))
	}
	if got := rowids(t, db, `needle OR -quokka`); len(got) != corpusSize+len(planted)-2 {
		t.Errorf("search needle OR -quokka: %d hits", len(got))
	}
}

func TestRanking(t *testing.T) {
	db := corpus(t)
	hits := rowids(t, db, "aurora")
	var subject, body int
	for i, id := range hits {
		inSubject := id%auroraDivSub == 0
		if inSubject {
			subject++
			if body > 0 {
				t.Errorf("subject hit %d ranks %d, after %d body-only hits", id, i, body)
			}
		} else {
			body++
		}
	}
	if subject != corpusSize/auroraDivSub || body < 20 {
		t.Errorf("aurora: %d subject hits, %d body hits", subject, body)
	}
}

func TestSnippets(t *testing.T) {
	db := corpus(t)
	hits, err := search(t, db, "needle")
	if err != nil || len(hits) != 1 {
		t.Fatalf("search needle: %v %v", hits, err)
	}
	s := hits[0].snippet
	if strings.Count(s, MarkOpen) != 1 || strings.Count(s, MarkClose) != 1 || strings.Contains(s, "\x1b") {
		t.Errorf("snippet %q: want one marked hit and no escape", s)
	}
	if got, want := HighlightText(s), "array[0] is [not] a hit: [needle] here,  fake  and  [31mred"; got != want {
		t.Errorf("HighlightText(snippet)\n got %q\nwant %q", got, want)
	}
	if got := HighlightTerminal(s); !strings.Contains(got, "\x1b[1mneedle\x1b[22m here") {
		t.Errorf("HighlightTerminal(snippet) = %q", got)
	}

	hits, err = search(t, db, "subject:POL-358")
	if err != nil || len(hits) != 1 {
		t.Fatalf("search subject:POL-358: %v %v", hits, err)
	}
	if got, want := HighlightText(hits[0].subject), "[POL-358] rollout plan"; got != want {
		t.Errorf("highlighted subject %q, want %q", got, want)
	}
	if got, want := HighlightText(hits[0].snippet), "Tracking it in POL-358."; got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
}

// oddQueries are queries that must not fail; they seed FuzzParse too.
var oddQueries = []string{
	``, ` `, `*`, `**`, `"`, `""`, `"""`, `AND`, `OR`, `NOT`, `(`, `)`, `()`, `)(`, `NEAR(`, `NEAR(a b, 2)`,
	`-`, `--`, `- -`, `-(`, `-)`, `col:`, `subject:`, `body:`, `from:`, `is:`, `since:`, `subject:(`, `subject:)`,
	`subject:"`, `subject:*`, `subject:-`, `{subject}: x`, `subject : x`, `- {subject body} : x`, `^x`, `x + y`,
	`a:b:c`, `x NOT`, `NOT NOT`, `OR OR`, `AND OR NOT`, `(((`, `)))`, `((a) OR (b)) AND (NOT c)`, `"a" "b`,
	`x*y*`, `*x`, `"*"`, `"x"*"y"*`, `'single'`, `\"`, `\`, `a\ b`, `0`, `"0"`, `meta_ids:0`, `000`, `097`,
	`rowid:1`, `rank:1`, "\x00", "a\x00\"b", "\xff", "\xc3", "\u2028\u00a0\u3000", "\uE000", "\ufeff", "🙂 🙂*",
	"\t\n\r", strings.Repeat("(", 200) + "x" + strings.Repeat(")", 200), strings.Repeat("-(", 300) + "x",
	strings.Repeat("a OR -(", 40) + "x", strings.Repeat("x-", 5000), strings.Repeat(`"`, 1001),
	strings.Repeat("NOT ", 1000) + "x", strings.Repeat("word ", 2100), strings.Repeat("ab", 5000) + "*",
	strings.Repeat("a-b OR -(", 20) + "c-d", strings.Repeat("(x-y (", 20) + "z-z",
	strings.Repeat("-(x OR (y -", 20) + "Zz", strings.Repeat("subject:(A-a OR body:(", 20) + "b-B",
	`"` + strings.Repeat("a-b ", 1000) + `"`, strings.Repeat("x-y* ", 100),
}

func TestOddQueries(t *testing.T) {
	db := corpus(t)
	cases := slices.Clone(oddQueries)
	for _, c := range parseCases {
		cases = append(cases, c.in)
	}
	for _, q := range cases {
		if _, err := search(t, db, q); err != nil {
			t.Errorf("search %q: %v", q, err)
		}
		for _, n := range Parse(q).Notes {
			if strings.ContainsAny(n, "\n\r") {
				t.Errorf("Parse(%q): note %q is not one line", q, n)
			}
		}
	}
}
