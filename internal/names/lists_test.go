package names

// The word lists and their indexes as the tests read them.
var (
	adjectives  = lists().adjectives
	nouns       = lists().nouns
	adjectiveAt = lists().adjectiveAt
	nounAt      = lists().nounAt
)
