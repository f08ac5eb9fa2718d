package fts

import (
	"strings"
	"testing"
)

// BenchmarkRow is the CPU cost of preparing a message's row for the index
// (cleaning and identifier extraction; the body is plain text already), for
// prose and for text full of identifiers.
func BenchmarkRow(b *testing.B) {
	prose := strings.Repeat("The deploy of the api branch failed again, so we retry the lock. Review the schema migration before the merge. ", 6)
	code := strings.Repeat("See POL-358 in src/api/routes.py:42, HandleRequest and snake_case_name (v1.2.3). ", 6)
	for _, c := range []struct{ name, body string }{{"prose", prose}, {"code", code}} {
		d := Document{Subject: "Re: deploy of the api branch", Body: c.body, Sender: "GreenCastle", Recipients: "BlueLake, RedFox", Thread: "topic-7"}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				d.row()
			}
		})
	}
}

// BenchmarkPlainText compares PlainText on prose, which skips the markdown
// parser, with parsing the same text.
func BenchmarkPlainText(b *testing.B) {
	prose := strings.Repeat("The deploy of the api branch failed again, so we retry the lock. Review the schema migration before the merge. \n\n", 4)
	b.Run("prose", func(b *testing.B) {
		for b.Loop() {
			PlainText(prose)
		}
	})
	b.Run("parsed", func(b *testing.B) {
		for b.Loop() {
			plainText(mdParser(), prose)
		}
	})
}
