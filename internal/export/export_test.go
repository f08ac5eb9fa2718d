package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func site(n int) *Site {
	s := &Site{Project: "shop-fe4abaed", Key: "github.com/acme/shop", Generated: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC),
		Agents: []Agent{{Name: "GreenCastle"}, {Name: "BlueLake"}}}
	for i := n - 1; i >= 0; i-- {
		s.Messages = append(s.Messages, Message{ID: fmt.Sprintf("01JD%022d", i), Thread: fmt.Sprintf("t%d", i%7), From: "GreenCastle",
			To: []string{"BlueLake"}, Subject: fmt.Sprintf("note %d", i), Body: "body", Created: s.Generated.Add(time.Duration(i) * time.Minute)})
	}
	return s
}

// The timeline is paged, newest first, each page linking the next; the
// threads and agents count what the messages hold.
func TestWritePages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	res, err := Write(dir, site(2*PerPage+50), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages != 2*PerPage+50 || res.Threads != 7 || res.Agents != 2 {
		t.Errorf("result %+v", res)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first, last := read("index.html"), read("timeline-3.html")
	if !strings.Contains(first, fmt.Sprintf("note %d<", 2*PerPage+49)) || !strings.Contains(first, `href="timeline-2.html"`) {
		t.Error("the first page does not start with the newest message and link the next")
	}
	if !strings.Contains(last, "note 0<") || !strings.Contains(last, `href="timeline-2.html"`) || strings.Contains(last, "timeline-4") {
		t.Error("the last page does not end with the oldest message, or links past itself")
	}
	if agents := read("agents.html"); !strings.Contains(agents, `<td class="right">450</td>`) {
		t.Error("the agents page does not count the 450 messages sent and received")
	}
	if _, err := Verify(dir, "", ""); err != nil {
		t.Fatal(err)
	}
}

// A manifest that names a path outside the export, or is malformed, fails
// verification: --verify reads nothing outside the directory.
func TestVerifyRefusesPathsOutside(t *testing.T) {
	for _, entry := range []string{
		strings.Repeat("0", 64) + "  ../outside.html",
		strings.Repeat("0", 64) + "  /etc/passwd",
		strings.Repeat("0", 64) + "  a//b.html",
		"not a line",
	} {
		dir := filepath.Join(t.TempDir(), "site")
		if _, err := Write(dir, site(3), Options{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(entry+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Verify(dir, "", "")
		if !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), "MANIFEST.sha256 is malformed: line 1") {
			t.Errorf("%q: %v, want the manifest's line 1 named", entry, err)
		}
	}
}

// Redaction masks every text before anything is made of it.
func TestRedact(t *testing.T) {
	s := site(2)
	s.Messages[0].Body = "key sk-abcdef0123456789abcd and more"
	s.Messages[0].Subject = "rotate sk-abcdef0123456789abcd"
	s.Messages[0].Attachments = []Attachment{{Name: "sk-abcdef0123456789abcd.txt"}}
	s.Agents[0].Task = "holds sk-abcdef0123456789abcd"
	pats, err := CompilePatterns([]string{`sk-[a-z0-9]{20,}`})
	if err != nil {
		t.Fatal(err)
	}
	Redaction{Patterns: pats}.Redact(s)
	if got := fmt.Sprintf("%+v", *s); strings.Contains(got, "sk-abc") || !strings.Contains(got, "rotate [redacted]") {
		t.Errorf("redacted site still holds the key: %s", got)
	}
	Redaction{Bodies: true}.Redact(s)
	if s.Messages[1].Body != BodyDropped {
		t.Errorf("body %q, want it dropped", s.Messages[1].Body)
	}
	for _, bad := range []string{"(", "a*", ""} {
		if _, err := CompilePatterns([]string{bad}); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}
