package archive

import (
	"fmt"
	"strings"
	"testing"
)

// byFirstChar moves x<rest>.json to x/<rest>.json, as a layout that fans
// out by a part of the name does, and leaves other files alone.
func byFirstChar(name string) (string, bool) {
	if !strings.HasSuffix(name, ".json") || len(name) < 7 {
		return "", false
	}
	return name[:1] + "/" + name, true
}

func TestRelayout(t *testing.T) {
	tests := []struct {
		name  string
		files []string // path, content, ...: the commit relaid out
		want  map[string]string
		moved int
	}{
		{"nothing to move", []string{"r/a/aaaa.json", "1", "messages/m.md", "m"},
			map[string]string{"r/a/aaaa.json": "1", "messages/m.md": "m"}, 0},
		{"no such directory", []string{"messages/m.md", "m"}, map[string]string{"messages/m.md": "m"}, 0},
		{"flat files move, the rest stays", []string{"r/aaaa.json", "1", "r/bbbb.json", "2", "r/README", "x", "messages/m.md", "m"},
			map[string]string{"r/a/aaaa.json": "1", "r/b/bbbb.json": "2", "r/README": "x", "messages/m.md": "m"}, 2},
		{"a file in its place already, the same", []string{"r/aaaa.json", "1", "r/a/aaaa.json", "1"},
			map[string]string{"r/a/aaaa.json": "1"}, 1},
		{"a file in its place already, another version: merged", []string{"r/aaaa.json", "1", "r/a/aaaa.json", "3", "r/a/abbb.json", "9"},
			map[string]string{"r/a/aaaa.json": "3", "r/a/abbb.json": "9"}, 1},
		{"merged the other way", []string{"r/aaaa.json", "7", "r/a/aaaa.json", "3"},
			map[string]string{"r/a/aaaa.json": "7"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newArchive(t)
			var changes []Change
			for i := 0; i < len(tt.files); i += 2 {
				changes = append(changes, Change{Path: tt.files[i], Data: []byte(tt.files[i+1])})
			}
			res, err := a.commitOn(ProjectRef("p"), "", changes, author("GreenCastle"), "old layout", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			msg := func(n int) string { return fmt.Sprintf("move %d", n) }
			got, n, err := a.Relayout(res.Head, "r", byFirstChar, maxBytes, msg)
			if err != nil {
				t.Fatal(err)
			}
			if unmoved, err := a.Unmoved(res.Head, "r", byFirstChar); err != nil || unmoved != tt.moved {
				t.Errorf("Unmoved = %d, %v; want %d", unmoved, err, tt.moved)
			}
			if n != tt.moved || (n == 0) != (got == res.Head) {
				t.Fatalf("Relayout moved %d (commit %s, parent %s), want %d", n, got, res.Head, tt.moved)
			}
			files := lsTree(t, a.Dir(), got)
			if len(files) != len(tt.want) {
				t.Errorf("files %v, want %v", files, tt.want)
			}
			for p, content := range tt.want {
				if files[p] != blobHash([]byte(content)) {
					t.Errorf("%s: blob %s, want %q's", p, files[p], content)
				}
			}
			if n == 0 {
				return
			}
			if parent := runGit(t, a.Dir(), "rev-parse", got+"^"); parent != res.Head {
				t.Errorf("parent %s, want %s", parent, res.Head)
			}
			if s := runGit(t, a.Dir(), "log", "-1", "--format=%an %at %s", got); s != fmt.Sprintf("agentmail %d move %d", t0.Unix(), n) {
				t.Errorf("commit %q: want agentmail's, at its parent's time, named by message", s)
			}
			again, _, err := a.Relayout(res.Head, "r", byFirstChar, maxBytes, msg)
			if err != nil || again != got {
				t.Errorf("relaid out again: %s, %v; want the same commit %s", again, err, got)
			}
			if after, n, err := a.Relayout(got, "r", byFirstChar, maxBytes, msg); err != nil || n != 0 || after != got {
				t.Errorf("relaid out twice: %s moved %d, %v; want nothing", after, n, err)
			}
		})
	}
}
