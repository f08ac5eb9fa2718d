package names

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestWordLists(t *testing.T) {
	word := regexp.MustCompile(`^[A-Z][a-z]{2,7}$`)
	seen := map[string]string{}
	for _, l := range []struct {
		name  string
		words []string
	}{{"adjectives", adjectives}, {"nouns", nouns}} {
		if len(l.words) < 150 {
			t.Errorf("%s: %d words, want at least 150", l.name, len(l.words))
		}
		if !slices.IsSorted(l.words) {
			t.Errorf("%s: not sorted", l.name)
		}
		for _, w := range l.words {
			if !word.MatchString(w) {
				t.Errorf("%s: %q is not one capitalised word of 3 to 8 ASCII letters", l.name, w)
			}
			if other, dup := seen[strings.ToLower(w)]; dup {
				t.Errorf("%s: %q is already in %s", l.name, w, other)
			}
			seen[strings.ToLower(w)] = l.name
		}
	}
	t.Logf("%d adjectives, %d nouns, %d names", len(adjectives), len(nouns), len(adjectives)*len(nouns))
}

// TestUniqueSplit proves that every adjective+noun concatenation splits back
// one way only, in any case: no two pairs spell the same name, and Parse
// returns the pair it was made from.
func TestUniqueSplit(t *testing.T) {
	spelled := make(map[string]string, len(adjectives)*len(nouns))
	for _, a := range adjectives {
		for _, n := range nouns {
			name := a + n
			key := strings.ToLower(name)
			if other, dup := spelled[key]; dup {
				t.Errorf("%s+%s spells the same name as %s", a, n, other)
				continue
			}
			spelled[key] = a + "+" + n
			for _, in := range []string{name, key, strings.ToUpper(name)} {
				if got, err := Parse(in); got != name || err != nil {
					t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, name)
				}
			}
		}
	}
}

func TestKnownNamesAreNotWords(t *testing.T) {
	for _, w := range slices.Concat(adjectives, nouns) {
		if kind, ok := knownNames[strings.ToLower(w)]; ok {
			t.Errorf("listed word %s is also a known name (%s)", w, kind)
		}
	}
	for k := range knownNames {
		if k != strings.ToLower(lettersOnly(k)) || k == "" {
			t.Errorf("known name %q must be lowercase letters only", k)
		}
	}
}

func TestExampleIsAName(t *testing.T) {
	if got, err := Parse(example); got != example || err != nil {
		t.Fatalf("Parse(%q) = %q, %v", example, got, err)
	}
	if _, ok := adjectiveAt[strings.ToLower(exampleAdjective())]; !ok {
		t.Errorf("exampleAdjective %q is not listed", exampleAdjective())
	}
	if _, ok := nounAt[strings.ToLower(exampleNoun())]; !ok {
		t.Errorf("exampleNoun %q is not listed", exampleNoun())
	}
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GreenCastle", "GreenCastle"},
		{"greencastle", "GreenCastle"},
		{"GREENCASTLE", "GreenCastle"},
		{"gReEnCaStLe", "GreenCastle"},
		{"Greencastle", "GreenCastle"},
		{"BlueLake", "BlueLake"},
		{"bluelake", "BlueLake"},
		{"SwiftFalcon", "SwiftFalcon"},
		{"quietharbor", "QuietHarbor"},
		{"AmberFox", "AmberFox"},
		{"redoak", "RedOak"},
		{"ZestyZephyr", "ZestyZephyr"},
	} {
		got, err := Parse(tc.in)
		if got != tc.want || err != nil {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if Fold(got) != Fold(tc.in) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q; want equal", got, Fold(got), tc.in, Fold(tc.in))
		}
	}
}

func TestParseRejects(t *testing.T) {
	long := strings.Repeat("Green", 30)
	for _, tc := range []struct{ in, want string }{
		// empty
		{"", `invalid agent name "": it is empty`},
		{"  \t", "it is empty"},
		// e-mail address
		{"bob@example.com", "it looks like an e-mail address; agent names are an adjective and a noun, like GreenCastle"},
		{"claude@anthropic.com", "looks like an e-mail address"},
		{"GreenCastle@example.com", "looks like an e-mail address"},
		{"agent7@host", "looks like an e-mail address"},
		// programs and models
		{"claude", `invalid agent name "claude": claude is a program or model name; agent names are an adjective and a noun, like GreenCastle`},
		{"Claude", "claude is a program or model name"},
		{"Claude-Code", "claudecode is a program or model name"},
		{"claude_v2", "claude is a program or model name"},
		{"codex", "codex is a program or model name"},
		{"gemini", "gemini is a program or model name"},
		{"gpt4", "gpt is a program or model name"},
		{"GPT-4o", "gpt is a program or model name"},
		{"ChatGPT", "chatgpt is a program or model name"},
		{"copilot", "copilot is a program or model name"},
		{"GitHub Copilot", "githubcopilot is a program or model name"},
		{"cursor", "cursor is a program or model name"},
		// accounts
		{"root", "root is a user or system account name"},
		{"ubuntu", "ubuntu is a user or system account name"},
		{"admin", "admin is a user or system account name"},
		{"user", "user is a user or system account name"},
		{"ec2-user", "ecuser is a user or system account name"},
		{"www-data", "wwwdata is a user or system account name"},
		// generic words
		{"agent", "agent is a generic word"},
		{"Agent007", "agent is a generic word"},
		{"human", "human is a generic word"},
		{"assistant", "assistant is a generic word"},
		// digits
		{"GreenCastle2", "it contains digits; agent names are an adjective and a noun, like GreenCastle"},
		{"Green2Castle", "it contains digits"},
		{"007", "it contains digits"},
		{"BlueLake-2", "it contains digits"},
		// control characters, before what they spell (ESC[31m has digits)
		{"\x1b[31mGreenCastle", "it contains a control character (such as ESC)"},
		{"Green\x00Castle", "it contains a control character"},
		// spaces and punctuation, with the spelling to use when there is one
		{"green-castle", `invalid agent name "green-castle": it contains spaces or punctuation; agent names are letters only, like GreenCastle`},
		{"green_castle", "spaces or punctuation; agent names are letters only, like GreenCastle"},
		{"Green Castle", "spaces or punctuation; agent names are letters only, like GreenCastle"},
		{" BlueLake ", "spaces or punctuation; agent names are letters only, like BlueLake"},
		{"Green\nCastle", `"Green\nCastle": it contains spaces or punctuation; agent names are letters only, like GreenCastle`},
		{"blue.lake!", "letters only, like BlueLake"},
		{"Green-Thing", "it contains spaces or punctuation; agent names are letters only"},
		{"@BlueLake", "spaces or punctuation"},
		// non-ASCII
		{"GrünSchloss", "it contains characters other than the letters A to Z"},
		{"Grееn", "characters other than the letters A to Z"}, // Cyrillic е
		// not an adjective and a noun
		{"Green", "it needs a noun after Green, like GreenCastle"},
		{"blue", "it needs a noun after Blue, like BlueCastle"},
		{"Castle", "it needs an adjective before Castle, like GreenCastle"},
		{"GreenCastl", `"Castl" is not in the noun list`},
		{"BlueLak", `"Lak" is not in the noun list`},
		{"BigCastle", `"Big" is not in the adjective list`},
		{"CastleGreen", "the adjective comes first, as in GreenCastle"},
		{"lakeblue", "the adjective comes first, as in BlueLake"},
		{"Bob", "it is not an adjective and a noun from the name lists, like GreenCastle"},
		{"x", "not an adjective and a noun"},
		{long, `invalid agent name "GreenGreenGreenGreenGreenGreenGr"...: it is too long; agent names are an adjective`},
		{"GreenAbcdefghijklmnopqrstuvwxyzAbcdefghijklmnop", "it is too long"},
		{"GreenAbcdefghij", `"Abcdefghij" is not in the noun list`},
	} {
		got, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) = %q, nil; want error %q", tc.in, got, tc.want)
			continue
		}
		msg := err.Error()
		if got != "" || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %q, %v; want \"\" and ErrInvalid", tc.in, got, err)
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("Parse(%q) error = %q; want it to contain %q", tc.in, msg, tc.want)
		}
		if !strings.HasPrefix(msg, "invalid agent name ") || strings.ContainsAny(msg, "\r\n") ||
			strings.HasSuffix(msg, ".") || len(msg) > 200 {
			t.Errorf("Parse(%q) error = %q; want one short line from \"invalid agent name\", no trailing period", tc.in, msg)
		}
	}
}

func TestLetterWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"ChatGPT-4o", []string{"chat", "gpt", "o"}},
		{"GPTModel", []string{"gpt", "model"}},
		{"claude_code", []string{"claude", "code"}},
		{"RootShell", []string{"root", "shell"}},
		{"greencastle", []string{"greencastle"}},
		{"ABC", []string{"abc"}},
		{"42", nil},
	} {
		if got := letterWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("letterWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GreenCastle", "greencastle"},
		{"GREENCASTLE", "greencastle"},
		{"greencastle", "greencastle"},
		{"", ""},
		{"Grün", "grün"},
		{"GRÜN", "grün"},
		{"\u212a", "k"}, // Kelvin sign folds with K and k
		{"ΣΑΣ", Fold("σας")},
		{"a\xffb", "a\ufffdb"}, // invalid bytes fold like strings.EqualFold reads them
	} {
		if got := Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Fold(a) == Fold(b) exactly when strings.EqualFold(a, b).
	inputs := []string{"GreenCastle", "greencastle", "GREENCASTLE", "BlueLake", "k", "K", "\u212a",
		"ß", "ẞ", "ss", "SS", "σ", "ς", "Σ", "ǅ", "ǆ", "Ǆ", "İ", "i", "I", "ı", "\xff", "\xfe", "µ", "μ", "Μ"}
	for _, a := range inputs {
		for _, b := range inputs {
			if same, eq := Fold(a) == Fold(b), strings.EqualFold(a, b); same != eq {
				t.Errorf("Fold(%q) == Fold(%q) is %v, strings.EqualFold is %v", a, b, same, eq)
			}
		}
	}
}
