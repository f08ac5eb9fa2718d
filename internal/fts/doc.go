// Package fts is the full-text search of the messages: its tables of the
// index, the documents stored in them, the query language of `agentmail
// search`, and the search itself.
//
// # Tables
//
// The package owns its part of the index (see [Projection]): the FTS5
// table of the messages' text, and two tables beside it, of what a search
// filters on: each message's sender, thread, category, importance and time
// (search_messages, whose seq is the message's rowid in the FTS5 table),
// and its recipients, bcc included, with their receipts
// (search_recipients). The projection fills them from the archive's
// message and receipt records, so that a search reads no other package's
// tables: which messages a viewer may see (those it sent or received) is
// decided on these rows. The FTS5 table stores its own copy of the text (a
// normal FTS5 table, not contentless), so snippet() and highlight() work.
//
// The text columns (subject, body, sender, recipients, thread, category) use
// the `porter unicode61 remove_diacritics 2` tokenizer: words are case-folded,
// accents are dropped and English suffixes stemmed, so "deploying" finds
// "deployed" and "resume" finds "résumé".
//
// # Identifiers
//
// Stemming and tokenizing on punctuation suit prose but not identifiers:
// POL-358 would be the two words "pol" and "358", and CamelCases would stem to
// the same word as CamelCase. So the table has three more columns
// (subject_ids, body_ids, meta_ids) filled with an unstemmed,
// case-folded, punctuation-preserving copy of the identifiers in the text.
// Every whitespace-separated word is split into its runs of letters and
// digits ("parts"); every run of 2 to 8 consecutive parts is stored with
// the punctuation between them ("src/api/routes.py:42" yields
// "src/api/routes.py", "api/routes", "routes.py", "py:42" and so on), and so
// is every part in mixed case ("HandleRequest"), each up to 64 bytes. A
// sequence is written as one token of decimal digits, two per byte of
// printable ASCII and three per other byte, which the porter stemmer leaves
// alone. Plain search terms never reach these columns; only the exact
// matches below do. They cost index space: about three times the size of
// code-heavy text, next to nothing for prose.
//
// A query word that looks like an identifier, because it has punctuation
// between letters or digits (POL-358, src/api/routes.py, snake_case_name) or
// is in mixed case (CamelCase, iPhone), must then match one of those
// sequences exactly, as well as the stemmed phrase of its parts in the text
// columns, which is what ranks and highlights the hit. So POL-358 finds
// "POL-358", "pol-358", "(POL-358)" and "POL-358/POL-359", but not "POL 358",
// "POL-3580" or a message that only has "POL 359"; src/api/routes.py does
// not find "src/api/route.py", nor snake_case_name "snake case name". Case
// is ignored, except that a mixed-case word only finds mixed-case spellings:
// HandleRequest finds "handleRequest" but neither "HandleRequests" nor
// "handlerequest" (the plain word handlerequest, stemmed, finds all three).
// The same holds for identifiers inside a quoted phrase, and for prefixes:
// POL-35* finds "POL-358". An identifier longer than the stored sequences is
// matched as a phrase of its parts only, with a note.
//
// # Query language
//
// [Parse] reads the query language of `agentmail search` and never fails:
// parts it cannot use are dropped with a one-line note. Its result is a pure
// value: [Query.Match] is bound as the right-hand side of `MATCH ?` and is
// always valid FTS5 syntax; the other fields are the search's filters. See
// [Parse] for the syntax.
//
// A query whose only text terms are negative (`-draft`) cannot be given to
// FTS5 as it stands, because FTS5's NOT needs a left operand. Every row
// therefore has the token "0" in its meta_ids column, and Parse uses it as
// the missing left operand: `-draft` becomes `meta_ids : "0" NOT (...)`,
// which is every message without "draft".
//
// # Hits
//
// [Search] runs a query over a project's messages as one viewer may see
// them and returns the hits' message ids, best first, with a highlighted
// snippet of each body and its bm25 score; the caller shows the messages
// (package mailbox's Messages). A query without text terms lists what its
// filters keep, newest first, and when [Query.Empty] is true there are no
// hits at all, only the notes.
//
// The snippet and highlight markers are the private-use runes [MarkOpen] and
// [MarkClose], which are removed from indexed text, so that they can only
// come from FTS5 and literal brackets in a message stay literal:
// [HighlightText] turns them into [brackets] for plain text and JSON,
// [HighlightTerminal] into bold.
package fts
