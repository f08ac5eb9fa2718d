package ports

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

const slug = "shop-00000000"

// TestMain doubles as the other process of the tests: with
// AGENTMAIL_PORTS_LISTEN=P1,P2,... it listens on those ports (those it
// can), prints the ones it holds and "ready", and holds them until its
// standard input closes.
func TestMain(m *testing.M) {
	if list := os.Getenv("AGENTMAIL_PORTS_LISTEN"); list != "" {
		var held []string
		for _, s := range strings.Split(list, ",") {
			if l, err := net.Listen("tcp", ":"+s); err == nil {
				defer l.Close()
				held = append(held, s)
			}
		}
		fmt.Println(strings.Join(held, ","))
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		return
	}
	os.Exit(m.Run())
}

// listenElsewhere binds ports in another process for the rest of the
// test, and returns those it bound.
func listenElsewhere(t *testing.T, ports []int) map[int]bool {
	t.Helper()
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AGENTMAIL_PORTS_LISTEN="+strings.Join(s, ","))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	r := bufio.NewScanner(out)
	bound := map[int]bool{}
	if r.Scan() {
		for _, f := range strings.Split(r.Text(), ",") {
			if p, err := strconv.Atoi(f); err == nil {
				bound[p] = true
			}
		}
	}
	if !r.Scan() || r.Text() != "ready" {
		t.Fatalf("the listening process did not start: %v", r.Err())
	}
	if len(bound) == 0 {
		t.Fatal("the listening process bound nothing")
	}
	return bound
}

// openStore opens the store in dir with a project, as another process of
// the machine would.
func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(dir, store.Options{Projections: []store.Projection{Projection()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newStore(t *testing.T) (string, *store.Store) {
	dir := t.TempDir()
	st := openStore(t, dir)
	err := st.Update(context.Background(), func(tx *store.Tx) error {
		tx.Put(&record.Project{Key: "k", Slug: slug, Created: time.Now().UTC().Truncate(time.Second)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, st
}

// Twenty claims at once, each through a store of its own (as twenty
// processes), get twenty different ports, none of them one another
// process listens on: the first choice of every name is taken by one.
func TestConcurrentClaims(t *testing.T) {
	dir, _ := newStore(t)
	const n = 20
	var first []int
	for i := range n {
		first = append(first, candidates(fmt.Sprintf("svc%d", i), 0)[0])
	}
	bound := listenElsewhere(t, first)
	got := make([]Port, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		st := openStore(t, dir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = New(st, slug, fmt.Sprintf("Agent%d", i), "host-a").Claim(context.Background(), fmt.Sprintf("svc%d", i), time.Hour)
		}()
	}
	wg.Wait()
	seen := map[int]string{}
	for i, p := range got {
		if errs[i] != nil {
			t.Fatalf("claim svc%d: %v", i, errs[i])
		}
		if prev, ok := seen[p.Port]; ok {
			t.Errorf("port %d handed out twice: %s and %s", p.Port, prev, p.Name)
		}
		seen[p.Port] = p.Name
		if bound[p.Port] {
			t.Errorf("%s got port %d, which another process listens on", p.Name, p.Port)
		}
		if !Bindable(p.Port) {
			t.Errorf("%s got port %d, which is in use", p.Name, p.Port)
		}
	}
	if len(seen) != n {
		t.Errorf("%d different ports for %d claims", len(seen), n)
	}
	list, err := New(openStore(t, dir), slug, "", "host-a").List(context.Background())
	if err != nil || len(list) != n {
		t.Fatalf("list: %d claims, %v", len(list), err)
	}
}

// A name gets its port again while it is free: claimed again, and after
// a release. Once another process has bound it meanwhile, the name gets
// another port. A name another agent holds is refused, naming the claim.
func TestClaimAgain(t *testing.T) {
	_, st := newStore(t)
	ctx := context.Background()
	green := New(st, slug, "GreenCastle", "host-a")
	a, err := green.Claim(ctx, "shop:api", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	again, err := green.Claim(ctx, "shop:api", 2*time.Hour)
	if err != nil || again.Port != a.Port || !again.Expires.After(a.Expires) {
		t.Fatalf("claim again: %+v, %v; want port %d, a later expiry", again, err, a.Port)
	}
	_, err = New(st, slug, "BlueLake", "host-a").Claim(ctx, "shop:api", time.Hour)
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) || held.Port.Holder != "GreenCastle" || held.Port.Port != a.Port {
		t.Fatalf("another agent's claim: %v, want ErrHeld naming GreenCastle's", err)
	}
	if _, err := green.Release(ctx, "shop:api"); err != nil {
		t.Fatal(err)
	}
	if _, err := green.Get(ctx, "shop:api"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after release: %v, want ErrNotFound", err)
	}
	b, err := New(st, slug, "BlueLake", "host-a").Claim(ctx, "shop:api", time.Hour)
	if err != nil || b.Port != a.Port {
		t.Fatalf("claim after release: %+v, %v; want port %d", b, err, a.Port)
	}
	if _, err := New(st, slug, "BlueLake", "host-a").Release(ctx, "shop:api"); err != nil {
		t.Fatal(err)
	}
	if bound := listenElsewhere(t, []int{a.Port}); !bound[a.Port] {
		t.Fatalf("could not bind %d elsewhere", a.Port)
	}
	c, err := green.Claim(ctx, "shop:api", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port == a.Port {
		t.Fatalf("claim: port %d, which another process listens on", c.Port)
	}
	got, err := green.Get(ctx, "shop:api")
	if err != nil || got.Port != c.Port {
		t.Fatalf("get: %+v, %v; want port %d", got, err, c.Port)
	}
}

// Ports belong to a host: another host's claim of a name holds nothing
// here, and is listed with its host.
func TestOtherHost(t *testing.T) {
	_, st := newStore(t)
	ctx := context.Background()
	there, err := New(st, slug, "BlueLake", "host-b").Claim(ctx, "shop:api", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	here, err := New(st, slug, "GreenCastle", "host-a").Claim(ctx, "shop:api", time.Hour)
	if err != nil {
		t.Fatalf("claim here of a name another host holds: %v", err)
	}
	if _, err := New(st, slug, "", "host-c").Get(ctx, "shop:api"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get on a third host: %v, want ErrNotFound", err)
	}
	list, err := New(st, slug, "", "host-a").List(ctx)
	if err != nil || len(list) != 2 || list[0].Host != "host-a" || list[1].Host != "host-b" || list[1].Port != there.Port || list[0].Port != here.Port {
		t.Fatalf("list: %+v, %v", list, err)
	}
}

// Bad names and TTLs are refused before anything is written.
func TestBadInput(t *testing.T) {
	_, st := newStore(t)
	s := New(st, slug, "GreenCastle", "host-a")
	for _, name := range []string{"", "a b", "../x", strings.Repeat("x", 101), "x//y"} {
		if _, err := s.Claim(context.Background(), name, time.Hour); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("claim %q: %v, want ErrInvalidArgument", name, err)
		}
	}
	if _, err := s.Claim(context.Background(), "ok", 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("ttl 0: %v", err)
	}
}

// Exactly as many free ports as claims made at once, each through a
// store of its own: every claim gets one, no two the same, which only a
// decision under the project's lock can give.
func TestConcurrentClaimsFewPorts(t *testing.T) {
	dir, _ := newStore(t)
	const n = 20
	allowed := map[int]bool{}
	for p := RangeStart + RangeSize/2; len(allowed) < n; p++ {
		if Bindable(p) {
			allowed[p] = true
		}
	}
	got := make([]Port, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		s := New(openStore(t, dir), slug, fmt.Sprintf("Agent%d", i), "host-a")
		s.Free = func(p int) bool { return allowed[p] && Bindable(p) }
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.Claim(context.Background(), fmt.Sprintf("svc%d", i), time.Hour)
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for i, p := range got {
		if errs[i] != nil {
			t.Fatalf("claim svc%d: %v", i, errs[i])
		}
		if seen[p.Port] || !allowed[p.Port] {
			t.Errorf("svc%d got port %d: twice, or not a free one", i, p.Port)
		}
		seen[p.Port] = true
	}
	s := New(openStore(t, dir), slug, "Late", "host-a")
	s.Free = func(p int) bool { return allowed[p] }
	if _, err := s.Claim(context.Background(), "late", time.Hour); !errors.Is(err, ErrNoFreePort) {
		t.Errorf("a claim with every free port taken: %v, want ErrNoFreePort", err)
	}
}
