// Package fts is the full-text side of the index: the FTS5 table that
// mirrors the messages table, the documents stored in it, the query language
// of `agentmail search`, and the SQL fragments that rank and excerpt hits.
//
// # Table and rowid contract
//
// [Schema] creates the FTS5 table [Table]. Its rowid is the messages table's
// integer rowid (messages.seq): [Put] writes a message's [Document] under that
// rowid, replacing any earlier one, and [Delete] removes it. The table stores
// its own copy of the text (a normal FTS5 table, not contentless), so
// snippet() and highlight() work and a row can be replaced by rowid. Empty it
// with a plain DELETE.
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
// (subject_ids, body_ids, meta_ids) that Put fills with an unstemmed,
// case-folded, punctuation-preserving copy of the text: every whitespace
// separated word is split into its letter/digit runs ("parts"), and every
// run of 1 to 8 consecutive parts, up to 64 bytes, is stored together with
// the punctuation between them ("src/api/routes.py" also yields "api/routes",
// "routes.py", "src" and so on). Each such sequence is written as a string of
// decimal digits, three per byte, which the porter stemmer leaves alone and
// which no word of prose can equal.
//
// A query word that looks like an identifier (it has punctuation between
// letters or digits, like POL-358, src/api/routes.py or snake_case_name, or
// upper case after its first letter, like CamelCase or iPhone) must then match
// one of those sequences exactly, ignoring case, as well as the stemmed phrase
// of its parts in the text columns, which is what ranks and highlights the
// hit. So POL-358 finds "POL-358", "(POL-358)" and "POL-358/POL-359", but not
// "POL 358", "POL-3580" or a message that only has "POL 359". The same holds
// for identifiers inside a quoted phrase. An identifier longer than the
// stored sequences is matched as a phrase of its parts only, with a note.
//
// # Query language
//
// [Parse] reads the query language of `agentmail search` and never fails:
// parts it cannot use are dropped with a one-line note. Its result is a pure
// value: [Query.Match] is bound as the right-hand side of `MATCH ?` and is
// always valid FTS5 syntax; the other fields are filters for the caller's
// SQL. See [Parse] for the syntax.
//
// A query whose only text terms are negative (`-draft`) cannot be given to
// FTS5 as it stands, because FTS5's NOT needs a left operand. Put therefore
// stores the token "0" in every row's meta_ids column, and Parse uses it as
// the missing left operand: `-draft` becomes `meta_ids : "0" NOT (...)`,
// which is every message without "draft".
//
// # Hits
//
// A search is then, for example:
//
//	SELECT m.seq, fts.HighlightSubjectSQL, fts.SnippetSQL
//	FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid
//	WHERE messages_fts MATCH ? AND <filters>
//	ORDER BY fts.RankSQL, m.created DESC
//
// with the constants spliced in. When Match is "" the query has no text
// terms: the caller selects from messages alone, without the FTS table, its
// rank or its snippets. The snippet and highlight markers are the private-use
// runes [MarkOpen] and [MarkClose], which Put removes from indexed text so
// they can only come from FTS5; [HighlightText] turns them into [brackets]
// for plain text and JSON, [HighlightTerminal] into bold.
package fts
