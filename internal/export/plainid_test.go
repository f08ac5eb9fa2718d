package export

import (
	"regexp"
	"strings"
	"testing"
)

// TestPlainIDAsPattern: plainID agrees with the regular expression it
// stands for.
func TestPlainIDAsPattern(t *testing.T) {
	re := regexp.MustCompile(`^[0-9A-Za-z]{1,64}$`)
	for _, id := range []string{"", "01JD0000000000000000000000", "a", "Z9", "a-b", "a b", "é", "a\n",
		strings.Repeat("x", 64), strings.Repeat("x", 65), "../x", "\xff"} {
		if got, want := plainID(id), re.MatchString(id); got != want {
			t.Errorf("plainID(%q) = %v, want %v", id, got, want)
		}
	}
}
