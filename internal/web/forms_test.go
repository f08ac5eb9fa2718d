package web

import (
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/fts"
)

func TestReadCompose(t *testing.T) {
	long := strings.Repeat("é", 201)
	tests := []struct {
		name string
		form url.Values
		want ComposeForm
		err  error // nil, ErrInvalidForm or ErrConfirmAll
	}{
		{"to one agent", url.Values{"to": {"BlueLake"}, "subject": {" Stop "}, "body": {"a\r\nb"}},
			ComposeForm{To: []string{"BlueLake"}, Subject: "Stop", Body: "a\nb", Importance: "normal"}, nil},
		{"to several agents, once each", url.Values{"to": {"BlueLake", " RedFox ", "BlueLake", ""}, "subject": {"s"}, "body": {"b"}},
			ComposeForm{To: []string{"BlueLake", "RedFox"}, Subject: "s", Body: "b", Importance: "normal"}, nil},
		{"to all, confirmed, urgent handoff", url.Values{"to": {ToAll}, "confirm_all": {"on"}, "subject": {"s"}, "body": {"b"}, "importance": {"urgent"}, "category": {"HANDOFF"}, "ack": {"on"}},
			ComposeForm{To: []string{ToAll}, Subject: "s", Body: "b", Importance: "urgent", Category: "HANDOFF", Ack: true, ConfirmAll: true}, nil},
		{"to all, not confirmed", url.Values{"to": {ToAll}, "subject": {"s"}, "body": {"b"}},
			ComposeForm{To: []string{ToAll}, Subject: "s", Body: "b", Importance: "normal"}, ErrConfirmAll},
		{"no recipient", url.Values{"subject": {"s"}, "body": {"b"}}, ComposeForm{Subject: "s", Body: "b", Importance: "normal"}, ErrInvalidForm},
		{"blank subject", url.Values{"to": {"RedFox"}, "subject": {"  "}, "body": {"b"}}, ComposeForm{To: []string{"RedFox"}, Body: "b", Importance: "normal"}, ErrInvalidForm},
		{"subject over the limit", url.Values{"to": {"RedFox"}, "subject": {long}, "body": {"b"}}, ComposeForm{To: []string{"RedFox"}, Subject: long, Body: "b", Importance: "normal"}, ErrInvalidForm},
		{"empty body", url.Values{"to": {"RedFox"}, "subject": {"s"}, "body": {" \r\n "}}, ComposeForm{To: []string{"RedFox"}, Subject: "s", Body: " \n ", Importance: "normal"}, ErrInvalidForm},
		{"bad importance", url.Values{"to": {"RedFox"}, "subject": {"s"}, "body": {"b"}, "importance": {"asap"}},
			ComposeForm{To: []string{"RedFox"}, Subject: "s", Body: "b", Importance: "asap"}, ErrInvalidForm},
		{"bad category", url.Values{"to": {"RedFox"}, "subject": {"s"}, "body": {"b"}, "category": {"handoff"}},
			ComposeForm{To: []string{"RedFox"}, Subject: "s", Body: "b", Importance: "normal", Category: "handoff"}, ErrInvalidForm},
		{"reply to all", url.Values{"reply": {"01JD3Y4Q"}, "all": {"on"}, "body": {"ok"}},
			ComposeForm{Reply: "01JD3Y4Q", All: true, Body: "ok", Importance: "normal"}, nil},
		{"empty reply", url.Values{"reply": {"01JD3Y4Q"}, "body": {""}}, ComposeForm{Reply: "01JD3Y4Q", Importance: "normal"}, ErrInvalidForm},
	}
	for _, tt := range tests {
		got, err := ReadCompose(tt.form, 200)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ReadCompose = %+v, want %+v", tt.name, got, tt.want)
		}
		if (tt.err == nil) != (err == nil) || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("%s: ReadCompose error %v, want %v", tt.name, err, tt.err)
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
