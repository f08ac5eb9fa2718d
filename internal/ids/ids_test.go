package ids

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
	_ "github.com/mattn/go-sqlite3"
)

var (
	errInvalid   = errors.New("invalid")
	errNotFound  = errors.New("not found")
	errAmbiguous = errors.New("ambiguous")
)

var kind = Kind{Noun: "message", Min: 6, Invalid: errInvalid, NotFound: errNotFound, Ambiguous: errAmbiguous,
	Lister: "agentmail inbox", In: "project shop-00000000"}

// Ids of one millisecond share their first 10 characters.
var sorted = []string{
	"01K830R1VR0000000000000000",
	"01K830R1VR0000000000000001",
	"01K830R1VRA000000000000000",
	"01K830R1VRB000000000000000",
	"01K830R1VRB100000000000000",
	"01K830R1VRC000000000000000",
	"01K830R1VRD000000000000000",
	"01K830R1VRE000000000000000",
	"01K9ZZZZZZ0000000000000000",
}

// lookup looks prefixes up in sorted, as the packages' queries do in their
// tables, and counts the calls to Count.
var counted int

var lookup = Lookup{
	Find: func(p string, limit int) ([]Match, error) {
		var out []Match
		for _, id := range sorted {
			if strings.HasPrefix(id, p) && len(out) < limit {
				out = append(out, Match{ID: id, What: "subject of " + id[10:12]})
			}
		}
		return out, nil
	},
	Count: func(p string) (int, error) {
		counted++
		n := 0
		for _, id := range sorted {
			if strings.HasPrefix(id, p) {
				n++
			}
		}
		return n, nil
	},
}

func TestResolve(t *testing.T) {
	tests := []struct {
		raw     string
		want    string
		wantErr error
		msg     string // in the error message
		hint    string // in the hint
	}{
		{raw: sorted[0], want: sorted[0]},
		{raw: strings.ToLower(sorted[2]), want: sorted[2]},
		{raw: " 01K9ZZ ", want: sorted[8]},
		{raw: "01K830R1VRA", want: sorted[2]},
		{raw: "01K830R1VRB1", want: sorted[4]},
		{raw: "01K830R1VRB", wantErr: errAmbiguous,
			msg: "01K830R1VRB matches 2 messages in project shop-00000000: 01K830R1VRB0 (subject of B0), 01K830R1VRB1 (subject of B1)"},
		{raw: "01K830", wantErr: errAmbiguous,
			msg: "01K830 matches 8 messages in project shop-00000000: 01K830R1VR0000000000000000 (subject of 00), " +
				"01K830R1VR0000000000000001 (subject of 00), 01K830R1VRA (subject of A0), 01K830R1VRB0 (subject of B0), " +
				"01K830R1VRB1 (subject of B1) and 3 more",
			hint: "give more characters of the id"},
		{raw: "01K83", wantErr: errInvalid, msg: `message id "01K83" is too short`, hint: "give at least 6 characters"},
		{raw: "01ZZZZZZZZ", wantErr: errNotFound, msg: "no message 01ZZZZZZZZ in project shop-00000000", hint: "agentmail inbox"},
		{raw: "hello world", wantErr: errInvalid, msg: `"hello world" is not a message id`},
		{raw: "01K830-1VR", wantErr: errInvalid, msg: "is not a message id"},
		{raw: "01K830R1VRIL", wantErr: errInvalid, msg: "is not a message id"}, // I and L are not ULID digits
		{raw: sorted[0] + "0", wantErr: errInvalid, msg: "is not a message id"},
		{raw: "", wantErr: errInvalid},
	}
	counted = 0
	for _, tt := range tests {
		got, err := kind.Resolve(tt.raw, lookup)
		if tt.wantErr == nil {
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Resolve(%q) = %q, %v; want %v", tt.raw, got, err, tt.wantErr)
			continue
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Resolve(%q) error %q does not say %q", tt.raw, err, tt.msg)
		}
		if h := fault.Hint(err); h == "" || !strings.Contains(h, tt.hint) {
			t.Errorf("Resolve(%q) hint %q does not say %q", tt.raw, h, tt.hint)
		}
	}
	if counted != 1 {
		t.Errorf("Count called %d times, want once: only 01K830 matches more than are listed", counted)
	}
}

// TestResolveExactWins: a whole id is taken even when it is also a prefix
// of other ids (which ULIDs, all of one length, never are).
func TestResolveExactWins(t *testing.T) {
	k := kind
	k.Min = 2
	l := Lookup{Find: func(p string, limit int) ([]Match, error) { return []Match{{ID: "AB"}, {ID: "ABC"}}, nil }}
	if got, err := k.Resolve("ab", l); err != nil || got != "AB" {
		t.Fatalf("Resolve(ab) = %q, %v; want AB", got, err)
	}
}

func TestAbbrev(t *testing.T) {
	tests := []struct {
		id, prev, next, want string
	}{
		{"01K830R1VRA000000000000000", "", "", "01K830R1"},
		{"01K830R1VRA000000000000000", "01K830R1VR0000000000000001", "01K830R1VRB000000000000000", "01K830R1VRA"},
		{"01K830R1VRB100000000000000", "01K830R1VRB000000000000000", "01K830R1VRC000000000000000", "01K830R1VRB1"},
		{"01K830R1VR0000000000000001", "01K830R1VR0000000000000000", "", "01K830R1VR0000000000000001"},
		{"01K9ZZZZZZ0000000000000000", "01K830R1VRE000000000000000", "", "01K9ZZZZ"},
		{"01K9ZZZZZZ0000000000000000", "01K9ZZZZZY0000000000000000", "", "01K9ZZZZZZ"},
	}
	for _, tt := range tests {
		if got := Abbrev(tt.id, tt.prev, tt.next); got != tt.want {
			t.Errorf("Abbrev(%s, %s, %s) = %s, want %s", tt.id, tt.prev, tt.next, got, tt.want)
		}
	}
}

// TestShortenPastesBack abbreviates every id of a real SQLite table through
// its index, and checks each abbreviation is as short as it can be (at
// least MinDisplay) and names exactly its id.
func TestShortenPastesBack(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t(id TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	for _, id := range sorted {
		if _, err := db.Exec(`INSERT INTO t VALUES (?)`, id); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	short, err := Shorten(ctx, db, `SELECT j.value,
		(SELECT id FROM t WHERE id < j.value ORDER BY id DESC LIMIT 1),
		(SELECT id FROM t WHERE id > j.value ORDER BY id LIMIT 1)
		FROM json_each(?1) j`, nil, sorted)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range sorted {
		a := short.Of(id)
		if got, err := kind.Resolve(a, lookup); err != nil || got != id {
			t.Errorf("%s abbreviated to %s, which resolves to %q, %v", id, a, got, err)
		}
		if len(a) > MinDisplay {
			if _, err := kind.Resolve(a[:len(a)-1], lookup); !errors.Is(err, errAmbiguous) {
				t.Errorf("%s abbreviated to %s, but %s is unique already", id, a, a[:len(a)-1])
			}
		}
		if len(a) < MinDisplay {
			t.Errorf("%s abbreviated to %s, shorter than %d", id, a, MinDisplay)
		}
	}
	if got := short.Of("01NOTLISTED"); got != "01NOTLISTED" {
		t.Errorf("Of(an id not abbreviated) = %q, want it whole", got)
	}
	empty, err := Shorten(ctx, db, "not even SQL", nil, nil)
	if err != nil || len(empty) != 0 {
		t.Errorf("Shorten(no ids) = %v, %v; want nothing, without a query", empty, err)
	}
	if !slices.IsSorted(sorted) {
		t.Fatal("the test's ids are not sorted")
	}
}

func TestShortenSorted(t *testing.T) {
	got := ShortenSorted([]string{"01AAAAAAAAAA", "01AAAAAAAAAB", "01BBBBBBBBBB"})
	want := Short{"01AAAAAAAAAA": "01AAAAAAAAAA", "01AAAAAAAAAB": "01AAAAAAAAAB", "01BBBBBBBBBB": Abbrev("01BBBBBBBBBB", "01AAAAAAAAAB", "")}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("ShortenSorted: %s -> %q, want %q", id, got[id], w)
		}
	}
	if len(ShortenSorted(nil)) != 0 {
		t.Error("ShortenSorted(nil) is not empty")
	}
}
