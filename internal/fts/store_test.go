package fts

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// indexed is a store indexed by the search projection alone, fed with
// records as a mailbox would write them.
type indexed struct {
	t     *testing.T
	st    *store.Store
	clock time.Time
	n     int // messages written, for their ids
}

func newIndexed(t *testing.T) *indexed {
	c := &indexed{t: t, clock: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	st, err := store.Open(t.TempDir(), store.Options{Now: func() time.Time { return c.clock }, Projections: []store.Projection{Projection()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c.st = st
	return c
}

// message returns a message of project slug, made now.
func (c *indexed) message(slug, from string, to []string, subject, body string) *record.Message {
	c.n++
	var entropy [10]byte
	entropy[8], entropy[9] = byte(c.n>>8), byte(c.n)
	id := ulid.MustNew(ulid.Timestamp(c.clock), strings.NewReader(string(entropy[:]))).String()
	return &record.Message{Project: slug, ID: id, From: from, To: to, Subject: subject, Body: body, Importance: "normal", Created: c.clock}
}

func (c *indexed) put(recs ...record.Record) {
	c.t.Helper()
	if err := c.st.Update(context.Background(), func(tx *store.Tx) error { tx.Put(recs...); return nil }); err != nil {
		c.t.Fatal(err)
	}
}

func (c *indexed) projectID(slug string) int64 {
	c.t.Helper()
	p, ok, err := store.LookupProject(context.Background(), c.st.Index(), slug)
	if err != nil || !ok {
		c.t.Fatalf("project %s: %v, %v", slug, ok, err)
	}
	return p.ID
}

// referenceSearch is Search as one query that reads and excerpts every hit:
// slow, but plainly right, so the two-step Search must give the same hits.
func referenceSearch(ctx context.Context, st *store.Store, r Request) ([]Hit, error) {
	q := Parse(r.Query)
	s := &lookup{db: st.Index(), pid: r.Project, viewer: r.Viewer, scoped: r.Viewer != "" && !r.All, limit: r.Limit}
	s.filter(q)
	where := append([]string{table + " MATCH ?", "d.project_id = ?"}, s.where...)
	args := append([]any{r.Viewer, q.Match, r.Project}, s.args...)
	if s.scoped {
		where = append(where, "(d.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, r.Viewer)
	}
	sql := `SELECT d.id, ` + snippetSQL + `, -` + rankSQL + `, d.seq FROM ` + table + textJoin + recipientJoin +
		` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + rankSQL + `, d.id DESC`
	if r.Limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", r.Limit)
	}
	hits, err := s.hits(ctx, sql, args, nil)
	if hits == nil {
		hits = []Hit{}
	}
	return hits, err
}

// TestSearchMatchesReference searches a project big enough for every plan
// of a ranked search (few and many text hits, hits read by rowid or in a
// scan), with many exact ties, next to another project.
func TestSearchMatchesReference(t *testing.T) {
	c := newIndexed(t)
	ctx := context.Background()
	agents := []string{"GreenCastle", "BlueLake", "RedFox"}
	words := []string{"alpha", "beta", "gamma", "delta"}
	importances := []string{"low", "normal", "high", "urgent"}
	const slug = "shop-00000000"
	c.put(&record.Project{Key: "example.com/acme/shop", Slug: slug, Created: c.clock})
	for batch := 0; batch < 2; batch++ {
		for i, from := range agents {
			var recs []record.Record
			for j := 0; j < 400; j++ {
				n := batch*1200 + i*400 + j
				m := c.message(slug, from, []string{agents[(i+1+j%2)%3]}, "about "+words[n%4],
					strings.Repeat(words[n%3]+" ", 1+n%3)+fmt.Sprintf("alpha note%d", n%7))
				m.Importance = importances[n%4]
				if n%5 == 0 {
					m.Bcc = []string{agents[(i+2-j%2)%3]}
				}
				recs = append(recs, m)
				if n%3 == 0 { // some are read
					recs = append(recs, &record.Receipt{Project: slug, Message: m.ID, Agent: m.To[0], ReadAt: c.clock})
				}
			}
			c.put(recs...)
			c.clock = c.clock.Add(time.Hour)
		}
	}
	pid := c.projectID(slug)
	queries := []string{"alpha", "beta", "gamma", "note3", "about", "alpha -beta", "beta from:greencastle",
		"alpha to:redfox", "gamma importance:high", "alpha is:unread", "zeta", "from:bluelake"}
	compare := func(when string) {
		for _, viewer := range []string{"BlueLake", ""} {
			for _, query := range queries {
				for _, all := range []bool{false, true} {
					for _, limit := range []int{0, 1, 7, 150} {
						if viewer == "" && strings.Contains(query, "is:") {
							continue
						}
						r := Request{Project: pid, Viewer: viewer, All: all, Query: query, Limit: limit}
						got, err := Search(ctx, c.st, r)
						if err != nil {
							t.Fatalf("%s: %+v: %v", when, r, err)
						}
						if Parse(query).Match == "" {
							continue
						}
						want, err := referenceSearch(ctx, c.st, r)
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(got.Hits, want) {
							t.Errorf("%s: %+v: %d hits, want %d, or in another order", when, r, len(got.Hits), len(want))
						}
					}
				}
			}
		}
	}
	compare("one project")

	c.put(&record.Project{Key: "example.com/acme/other", Slug: "other-00000000", Created: c.clock},
		c.message("other-00000000", "GreenCastle", []string{"GreenCastle"}, "alpha", "alpha beta"))
	compare("two projects")
}

// TestSearchVisibility: an agent finds what it sent or received, bcc
// included; the others' mail only with All; a human everything; and
// is:unread follows the receipts, which need an agent.
func TestSearchVisibility(t *testing.T) {
	c := newIndexed(t)
	ctx := context.Background()
	const slug = "shop-00000000"
	toBlue := c.message(slug, "GreenCastle", []string{"BlueLake"}, "ocelot one", "x")
	bccRed := c.message(slug, "GreenCastle", []string{"BlueLake"}, "ocelot two", "x")
	bccRed.Bcc = []string{"RedFox"}
	c.put(&record.Project{Key: "k", Slug: slug, Created: c.clock}, toBlue, bccRed,
		&record.Receipt{Project: slug, Message: toBlue.ID, Agent: "BlueLake", ReadAt: c.clock})
	pid := c.projectID(slug)
	ids := func(r Request) []string {
		t.Helper()
		res, err := Search(ctx, c.st, r)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	for _, tt := range []struct {
		viewer, query string
		all           bool
		want          []string
	}{
		{"BlueLake", "ocelot", false, []string{bccRed.ID, toBlue.ID}},
		{"RedFox", "ocelot", false, []string{bccRed.ID}},
		{"RedFox", "ocelot", true, []string{bccRed.ID, toBlue.ID}},
		{"QuietOwl", "ocelot", false, nil},
		{"", "ocelot", false, []string{bccRed.ID, toBlue.ID}},
		{"BlueLake", "ocelot is:unread", false, []string{bccRed.ID}},
		{"BlueLake", "to:redfox", false, nil}, // the bcc list is the sender's and RedFox's to see
		{"GreenCastle", "to:redfox", false, []string{bccRed.ID}},
		{"RedFox", "to:redfox", false, []string{bccRed.ID}},
	} {
		if got := ids(Request{Project: pid, Viewer: tt.viewer, Query: tt.query, All: tt.all}); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s searching %q (all %v): %v, want %v", tt.viewer, tt.query, tt.all, got, tt.want)
		}
	}
	if _, err := Search(ctx, c.st, Request{Project: pid, Query: "is:unread"}); err == nil {
		t.Error("is:unread without an agent")
	}
}

// TestHashSize: the FTS5 table gathers 32 MB of new terms before it
// writes a segment (see setup), as created and as rebuilt.
func TestHashSize(t *testing.T) {
	c := newIndexed(t)
	hashsize := func() int {
		t.Helper()
		var v int
		if err := c.st.Index().QueryRowContext(context.Background(), `SELECT v FROM `+table+`_config WHERE k = 'hashsize'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := hashsize(); got != 33554432 {
		t.Errorf("created: hashsize %d, want 33554432", got)
	}
	c.put(c.message("p", "BlueLake", []string{"RedCat"}, "hello", "body"))
	if _, err := c.st.Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := hashsize(); got != 33554432 {
		t.Errorf("rebuilt: hashsize %d, want 33554432", got)
	}
}
