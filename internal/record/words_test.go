package record

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions isTopic, isSHA256 and isRole stand for: they
// must agree on every input.
var (
	topicRE = regexp.MustCompile(`^[a-z0-9_][a-z0-9._-]{0,63}$`)
	shaRE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	roleRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
)

var wordInputs = []string{
	"", "a", "_", ".", "-", "builds", "team-api", "release_2.1", ".hidden", "-dash", "_under", "Upper", "a b",
	"a\n", "\na", "é", "a.é", strings.Repeat("a", 32), strings.Repeat("a", 33), strings.Repeat("a", 64),
	strings.Repeat("a", 65), strings.Repeat("0f", 32), strings.Repeat("0F", 32), strings.Repeat("0f", 32) + "\n",
	strings.Repeat("0g", 32), "qa", "qa_lead-2", "\xff",
}

func checkWords(t *testing.T, s string) {
	if got, want := isTopic(s), topicRE.MatchString(s); got != want {
		t.Errorf("isTopic(%q) = %v, want %v", s, got, want)
	}
	if got, want := isSHA256(s), shaRE.MatchString(s); got != want {
		t.Errorf("isSHA256(%q) = %v, want %v", s, got, want)
	}
	if got, want := isRole(s), roleRE.MatchString(s); got != want {
		t.Errorf("isRole(%q) = %v, want %v", s, got, want)
	}
}

func TestWordsAsPatterns(t *testing.T) {
	for _, s := range wordInputs {
		checkWords(t, s)
	}
}

func FuzzWordsAsPatterns(f *testing.F) {
	for _, s := range wordInputs {
		f.Add(s)
	}
	f.Fuzz(checkWords)
}
