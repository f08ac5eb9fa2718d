package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// table is the name of the FTS5 table that [schema] creates.
const table = "messages_fts"

// schema is the statement that creates table. Columns 0–5 hold the
// searchable text of a message, columns 6–8 the identifier sequences described
// in the package documentation; all of them are written by [putDocument] only.
const schema = `CREATE VIRTUAL TABLE ` + table + ` USING fts5(
	subject, body, sender, recipients, thread, category,
	subject_ids, body_ids, meta_ids,
	tokenize = 'porter unicode61 remove_diacritics 2'
)`

// setup configures table once created. FTS5 gathers a transaction's new
// terms in memory and writes them out as a segment of the index whenever
// they pass hashsize bytes, then merges segments: at its default of 1 MB
// an import's batch of 5,000 messages wrote dozens of segments and merged
// them again; 32 MB writes one or two (import of 100,000 messages: 17.6 ->
// 15.9 s cpu). A write of a few messages holds a few kilobytes whatever
// the limit.
var setup = []string{`INSERT INTO ` + table + `(` + table + `, rank) VALUES ('hashsize', 33554432)`}

// rankSQL is the bm25() call that ranks hits, best first when sorted
// ascending (bm25 scores are negative). A hit in the subject weighs ten times
// one in the body; sender, thread and category count double; the identifier
// columns count nothing, since every identifier hit also hits the text
// columns. It may only be used in a query with a MATCH on table.
const rankSQL = "bm25(" + table + ", 10.0, 1.0, 2.0, 1.0, 2.0, 2.0, 0.0, 0.0, 0.0)"

// snippetSQL is the snippet() call that excerpts a hit's body: about twelve
// tokens around the best match, matched words between [MarkOpen] and
// [MarkClose], elisions shown as "…". When only other columns matched it
// shows the start of the body without markers.
const snippetSQL = "snippet(" + table + ", 1, char(57344), char(57345), '…', 12)"

// highlightSubjectSQL is the highlight() call that returns a hit's whole
// subject with matched words between [MarkOpen] and [MarkClose].
const highlightSubjectSQL = "highlight(" + table + ", 0, char(57344), char(57345))"

// allToken is the token every row has in meta_ids; it stands for "every
// message" as the left operand of a query that only excludes.
const allToken = "0"

// Document is the searchable text of one message.
type Document struct {
	Subject    string
	Body       string // plain text; see [PlainText]
	Sender     string // an agent name
	Recipients string // agent names, separated by spaces or commas
	Thread     string // the thread's name or id
	Category   string
}

// NewDocument builds the Document of a message whose body is markdown. The
// recipients should be those every reader of the index may see (to and cc,
// not bcc), since search results show which field matched.
func NewDocument(subject, markdownBody, sender string, recipients []string, thread, category string) Document {
	return Document{
		Subject:    subject,
		Body:       PlainText(markdownBody),
		Sender:     sender,
		Recipients: strings.Join(recipients, ", "),
		Thread:     thread,
		Category:   category,
	}
}

// putSQL stores a message's document under its rowid, replacing the one
// stored before, if any; its values are a row's (row.values).
const putSQL = `INSERT OR REPLACE INTO ` + table + `(rowid, subject, body, sender, recipients, thread, category,
	subject_ids, body_ids, meta_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// row is a Document as the table stores it: the text columns cleaned
// (control characters, invalid UTF-8 and the marker runes replaced by
// spaces), then the identifier sequences. Making it is the costly part of
// indexing a message, which the projection does off the SQL goroutine.
type row [9]string

func (d Document) row() row {
	subject, body := clean(d.Subject), clean(d.Body)
	sender, recipients, thread, category := clean(d.Sender), clean(d.Recipients), clean(d.Thread), clean(d.Category)
	meta := strings.Join([]string{sender, recipients, thread, category}, " ")
	return row{subject, body, sender, recipients, thread, category,
		exactTokens(subject), exactTokens(body), allToken + " " + exactTokens(meta)}
}

// values returns the arguments of putSQL for the row under rowid.
func (r row) values(rowid int64) []any {
	return []any{rowid, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]}
}

// clean replaces invalid UTF-8, control characters other than tab and
// newline, and the marker runes with spaces, so that indexed text can neither
// fake a hit marker nor carry terminal escapes into a snippet.
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unwanted(r) {
			b.WriteByte(' ')
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsClean(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unwanted(r) {
			return true
		}
	}
	return false
}

func unwanted(r rune) bool {
	return (unicode.IsControl(r) && r != '\n' && r != '\t') || r == markOpen || r == markClose
}
