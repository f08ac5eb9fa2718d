package web

import (
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/internal/fault"
)

func TestReadCompose(t *testing.T) {
	tests := []struct {
		name string
		form url.Values
		want ComposeForm
		err  bool
	}{
		{"to one agent", url.Values{"to": {"BlueLake"}, "subject": {" Stop "}, "body": {"a\r\nb"}},
			ComposeForm{To: "BlueLake", Subject: "Stop", Body: "a\nb", Importance: "normal"}, false},
		{"to all, urgent handoff", url.Values{"to": {ToAll}, "subject": {"s"}, "importance": {"urgent"}, "category": {"HANDOFF"}, "ack": {"on"}},
			ComposeForm{To: ToAll, Subject: "s", Importance: "urgent", Category: "HANDOFF", Ack: true}, false},
		{"no recipient", url.Values{"subject": {"s"}}, ComposeForm{Subject: "s", Importance: "normal"}, true},
		{"blank subject", url.Values{"to": {ToAll}, "subject": {"  "}}, ComposeForm{To: ToAll, Importance: "normal"}, true},
		{"bad importance", url.Values{"to": {ToAll}, "subject": {"s"}, "importance": {"asap"}},
			ComposeForm{To: ToAll, Subject: "s", Importance: "asap"}, true},
		{"bad category", url.Values{"to": {ToAll}, "subject": {"s"}, "category": {"handoff"}},
			ComposeForm{To: ToAll, Subject: "s", Importance: "normal", Category: "handoff"}, true},
	}
	for _, tt := range tests {
		got, err := ReadCompose(tt.form)
		if got != tt.want {
			t.Errorf("%s: ReadCompose = %+v, want %+v", tt.name, got, tt.want)
		}
		if tt.err != (err != nil) {
			t.Errorf("%s: ReadCompose error %v, want error %v", tt.name, err, tt.err)
		}
		if err != nil && (!errors.Is(err, ErrInvalidForm) || fault.Hint(err) == "") {
			t.Errorf("%s: error %v is not ErrInvalidForm with a hint", tt.name, err)
		}
	}
}

// TestSearchFiltersQuery checks that fts's own parser reads each filter
// back as the value typed.
func TestSearchFiltersQuery(t *testing.T) {
	values := []string{"GreenCastle", "release 2", "POL-358", "-x", "a(b)", "x*", "a:b", "<script>alert(1)</script>",
		"日本 語", "tab\there", "nb\u00a0sp"}
	for _, v := range values {
		q := SearchFilters{Thread: v, Category: v}.Query("deploy")
		got := fts.Parse(q)
		if !slices.Equal(got.Thread, []string{v}) || !slices.Equal(got.Category, []string{v}) || got.Match == "" {
			t.Errorf("thread and category %q: query %q reads as thread %q, category %q, match %q (notes %q)",
				v, q, got.Thread, got.Category, got.Match, got.Notes)
		}
	}
	q := SearchFilters{From: "GreenCastle", To: "BlueLake", Importance: "HIGH", Since: "2026-11-01", Before: "2026-12-01"}.Query("")
	got := fts.Parse(q)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	if !slices.Equal(got.From, []string{"greencastle"}) || !slices.Equal(got.To, []string{"bluelake"}) ||
		!slices.Equal(got.Importance, []string{"high"}) || !got.Since.Equal(day("2026-11-01")) ||
		!got.Before.Equal(day("2026-12-01")) || got.Match != "" || len(got.Notes) != 0 {
		t.Errorf("query %q reads as %+v", q, got)
	}
	if q := (SearchFilters{Thread: `say "hi"`}).Query(""); q != `thread:"say hi"` {
		t.Errorf("a value with quotes gives %q", q)
	}
	if q := (SearchFilters{}).Query("a b"); q != "a b" {
		t.Errorf("no filters gives %q", q)
	}
}

func TestReadSearch(t *testing.T) {
	q, f := ReadSearch(url.Values{"q": {" deploy "}, "from": {"GreenCastle"}, "since": {"2026-11-01"}})
	if q != "deploy" || f != (SearchFilters{From: "GreenCastle", Since: "2026-11-01"}) {
		t.Errorf("ReadSearch = %q, %+v", q, f)
	}
}
