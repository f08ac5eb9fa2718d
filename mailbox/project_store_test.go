package mailbox

import (
	"context"
	"testing"
)

// TestOpenAdoptsStoredSpelling: a store written before keys of
// case-insensitive hosts were folded keeps github.com/Acme/Shop; the folded
// key github.com/acme/shop opens that project, not an empty one. Other
// hosts keep case apart.
func TestOpenAdoptsStoredSpelling(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for _, old := range []string{"github.com/Acme/Shop", "git.example.com/Acme/Shop"} {
		f.proj = Project{Key: old, Slug: slugFor(old)}
		if _, err := f.as("").Register(ctx, RegisterInput{Name: "GreenCastle"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		key, wantKey string
		known        bool
	}{
		{"https://github.com/acme/shop.git", "github.com/Acme/Shop", true},
		{"git@GitHub.com:ACME/SHOP", "github.com/Acme/Shop", true},
		{"https://git.example.com/acme/shop", "git.example.com/acme/shop", false},
		{"https://git.example.com/Acme/Shop", "git.example.com/Acme/Shop", true},
	}
	for _, tt := range tests {
		p, err := ProjectFromKey(tt.key)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := Open(ctx, f.st, p, "GreenCastle")
		if err != nil {
			t.Fatal(err)
		}
		got := mb.Project()
		if got.Key != tt.wantKey || got.Slug != slugFor(tt.wantKey) || mb.Known() != tt.known {
			t.Errorf("Open(%q): key %q slug %q known %v; want key %q known %v", tt.key, got.Key, got.Slug, mb.Known(), tt.wantKey, tt.known)
		}
		h, err := mb.Holdings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[tt.known]; h.Agents != want {
			t.Errorf("Open(%q): %d agents, want %d", tt.key, h.Agents, want)
		}
	}
}

// TestEnsureProject: the project is recorded once, with no agent, and a
// second call writes nothing.
func TestEnsureProject(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	mb := f.as("")
	if mb.Known() {
		t.Fatal("a fresh store knows the project")
	}
	if err := mb.EnsureProject(ctx); err != nil {
		t.Fatal(err)
	}
	head, _ := f.st.Head()
	again := f.as("")
	if !again.Known() {
		t.Fatal("EnsureProject did not record the project")
	}
	if err := again.EnsureProject(ctx); err != nil {
		t.Fatal(err)
	}
	if h, _ := f.st.Head(); h != head {
		t.Errorf("a second EnsureProject committed %s", h)
	}
	if h, err := again.Holdings(ctx); err != nil || !h.Empty() {
		t.Errorf("Holdings of a bare project: %+v, %v", h, err)
	}
}
