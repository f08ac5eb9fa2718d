// Package names makes and checks agent names: memorable CamelCase
// adjective+noun pairs such as GreenCastle or BlueLake, drawn from two word
// lists embedded in the binary (adjectives.txt and nouns.txt).
//
// A name is exactly one listed adjective followed by one listed noun, letters
// only. Parse accepts any letter case (greencastle, GREENCASTLE) and returns
// the canonical CamelCase form. It deliberately rejects separators
// (green-castle, green_castle, "Green Castle") instead of guessing, so every
// name has one spelling in files, addresses and logs; the error then says how
// to write it. Names are unique per project case-insensitively: compare them
// by Fold.
//
// Parse explains each rejection in one line that reads well after a prefix,
// as in "register: invalid agent name ...". Parse does not know which names
// are taken, so the caller adds the suggestion of a free name, for example:
//
//	if _, err := names.Parse(input); err != nil {
//		free, _ := names.Generate(nil, taken)
//		return fmt.Errorf("register: %w; try %s", err, free)
//	}
package names

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ErrInvalid marks a string that is not an agent name. Parse wraps it with
// the reason.
var ErrInvalid = errors.New("invalid agent name")

//go:embed adjectives.txt
var adjectivesText string

//go:embed nouns.txt
var nounsText string

// wordLists are the two word lists, built on first use: most commands
// never parse or generate a name.
type wordLists struct {
	// adjectives and nouns are the word lists in file order, canonical case.
	adjectives, nouns []string
	// adjectiveAt and nounAt map a lowercased word to its index in the list.
	adjectiveAt, nounAt map[string]int
}

var lists = sync.OnceValue(func() wordLists {
	adjectives, nouns := words(adjectivesText), words(nounsText)
	return wordLists{adjectives: adjectives, nouns: nouns, adjectiveAt: index(adjectives), nounAt: index(nouns)}
})

// hint ends most messages of Parse.
const hint = "agent names are an adjective and a noun, like " + example

// maxLen is the length of the longest possible name: two words of at most 8
// letters (TestWordLists).
const maxLen = 16

// example is the name used in messages; the tests check it parses.
const example = "GreenCastle"

// words returns the words of an embedded list: one per line, skipping blank
// lines and # comments.
func words(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

func index(list []string) map[string]int {
	m := make(map[string]int, len(list))
	for i, w := range list {
		m[strings.ToLower(w)] = i
	}
	return m
}

// Parse checks that s is an agent name, one listed adjective followed by one
// listed noun in any letter case, and returns its canonical CamelCase form:
// Parse("greencastle") and Parse("GREENCASTLE") both give "GreenCastle".
//
// Anything else is an error wrapping ErrInvalid with one reason: the name is
// empty, looks like an e-mail address, is a known program, model, account or
// generic name (claude, gpt4, root, agent, ...), contains digits, contains
// spaces, punctuation or non-ASCII characters, or is not an adjective and a
// noun from the lists. Separators are never accepted; when removing them would
// give a valid name, the message shows that spelling.
func Parse(s string) (string, error) {
	if name, ok := lookup(s); ok {
		return name, nil
	}
	return "", fmt.Errorf("%w %s: %s", ErrInvalid, quote(s), reason(s))
}

// Fold returns the case-folded key that decides whether two names are the
// same: Fold(a) == Fold(b) exactly when strings.EqualFold(a, b). For agent
// names it is the lowercase form, so Fold("GreenCastle") == "greencastle".
func Fold(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(name)
	}
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name { // invalid bytes read as utf8.RuneError, as in EqualFold
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune maps every rune of a unicode.SimpleFold orbit to the same member:
// the smallest lowercase one, or the smallest one if none is lowercase.
func foldRune(r rune) rune {
	least, lower := r, rune(-1)
	if unicode.IsLower(r) {
		lower = r
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
		if unicode.IsLower(f) && (lower < 0 || f < lower) {
			lower = f
		}
	}
	if lower >= 0 {
		return lower
	}
	return least
}

// lookup returns the canonical name for s if s is a listed adjective followed
// by a listed noun in any letter case. The lists split uniquely (see
// TestUniqueSplit), so the first split that matches is the only one.
func lookup(s string) (string, bool) {
	if len(s) > maxLen || !asciiLetters(s) {
		return "", false
	}
	lower, l := strings.ToLower(s), lists()
	for i := 1; i < len(lower); i++ {
		a, ok := l.adjectiveAt[lower[:i]]
		if !ok {
			continue
		}
		if n, ok := l.nounAt[lower[i:]]; ok {
			return l.adjectives[a] + l.nouns[n], true
		}
	}
	return "", false
}

func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// quote renders s for a one-line message, shortening long input to its first
// 32 runes.
func quote(s string) string {
	const limit, keep = 40, 32
	if utf8.RuneCountInString(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	end, n := 0, 0
	for i := range s {
		if n == keep {
			end = i
			break
		}
		n++
	}
	return fmt.Sprintf("%q...", s[:end])
}

// reason explains why s, which lookup rejected, is not an agent name.
func reason(s string) string {
	if strings.TrimSpace(s) == "" {
		return "it is empty"
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) >= 0 {
		return "it contains a control character (such as ESC); agent names are letters only, like GreenCastle"
	}
	if at := strings.LastIndexByte(s, '@'); at > 0 && at < len(s)-1 {
		return "it looks like an e-mail address; " + hint
	}
	if word, kind, ok := known(s); ok {
		return fmt.Sprintf("%s is %s; %s", word, kind, hint)
	}
	if strings.IndexFunc(s, unicode.IsDigit) >= 0 {
		return "it contains digits; " + hint
	}
	nonASCII, other := false, false
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && isASCIILetter(byte(r)):
		case r >= utf8.RuneSelf && !unicode.IsSpace(r) && !unicode.IsPunct(r):
			nonASCII = true
		default:
			other = true
		}
	}
	if other {
		msg := "it contains spaces or punctuation; agent names are letters only"
		if name, ok := lookup(lettersOnly(s)); ok && !nonASCII {
			msg += ", like " + name
		}
		return msg
	}
	if nonASCII {
		return "it contains characters other than the letters A to Z; " + hint
	}
	return structure(s)
}

// structure explains why s, a string of ASCII letters, is not a listed
// adjective followed by a listed noun.
func structure(s string) string {
	if len(s) > maxLen {
		return "it is too long; " + hint
	}
	lower, l := strings.ToLower(s), lists()
	adj, adjLen := longestPrefix(lower, l.adjectiveAt, l.adjectives)
	noun, nounLen := longestSuffix(lower, l.nounAt, l.nouns)
	switch {
	case adjLen == len(lower):
		return fmt.Sprintf("it needs a noun after %s, like %s", adj, adj+exampleNoun())
	case nounLen == len(lower):
		return fmt.Sprintf("it needs an adjective before %s, like %s", noun, exampleAdjective()+noun)
	case adjLen > 0:
		return fmt.Sprintf("%s is not in the noun list", quote(s[adjLen:]))
	case nounLen > 0:
		return fmt.Sprintf("%s is not in the adjective list", quote(s[:len(s)-nounLen]))
	}
	// The words the wrong way round: CastleGreen.
	for i := 1; i < len(lower); i++ {
		n, ok1 := l.nounAt[lower[:i]]
		a, ok2 := l.adjectiveAt[lower[i:]]
		if ok1 && ok2 {
			return fmt.Sprintf("the adjective comes first, as in %s", l.adjectives[a]+l.nouns[n])
		}
	}
	return "it is not an adjective and a noun from the name lists, like " + example
}

// longestPrefix returns the longest word of the list that begins lower, in
// canonical case, and its length; 0 if none does.
func longestPrefix(lower string, at map[string]int, list []string) (string, int) {
	for i := len(lower); i > 0; i-- {
		if k, ok := at[lower[:i]]; ok {
			return list[k], i
		}
	}
	return "", 0
}

// longestSuffix returns the longest word of the list that ends lower, in
// canonical case, and its length; 0 if none does.
func longestSuffix(lower string, at map[string]int, list []string) (string, int) {
	for i := 0; i < len(lower); i++ {
		if k, ok := at[lower[i:]]; ok {
			return list[k], len(lower) - i
		}
	}
	return "", 0
}

func exampleAdjective() string { return example[:len("Green")] }
func exampleNoun() string      { return example[len("Green"):] }

func lettersOnly(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isASCIILetter(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
