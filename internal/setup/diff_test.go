package setup

import "testing"

func TestDiff(t *testing.T) {
	for _, tt := range []struct {
		name string
		ch   Change
		want string
	}{
		{"created", Change{Path: "/p/a.json", Action: "created", After: []byte("{\n}\n")},
			"--- /dev/null\n+++ /p/a.json\n@@ -0,0 +1,2 @@\n+{\n+}\n"},
		{"removed", Change{Path: "/p/a.json", Action: "removed", Before: []byte("x\n")},
			"--- /p/a.json\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n"},
		{"context", Change{Path: "f", Action: "updated", Before: []byte("1\n2\n3\n4\n5\n6\n7\n8\n"), After: []byte("1\n2\n3\n4\n5\nnew\n6\n7\n8\n")},
			"--- f\n+++ f\n@@ -3,6 +3,7 @@\n 3\n 4\n 5\n+new\n 6\n 7\n 8\n"},
		{"no newline at the end", Change{Path: "f", Action: "updated", Before: []byte("a = 1"), After: []byte("a = 1\n[t]\n")},
			"--- f\n+++ f\n@@ -1,1 +1,2 @@\n-a = 1\n\\ No newline at end of file\n+a = 1\n+[t]\n"},
		{"unchanged", Change{Path: "f", Action: "unchanged", Before: []byte("a"), After: []byte("a")}, ""},
	} {
		if got := tt.ch.Diff(); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}
