package mailbox

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// TestContactPolicy walks every branch of the contact policies: what
// GreenCastle may send BlueLake (recipient) given BlueLake's policy and
// the history between them.
func TestContactPolicy(t *testing.T) {
	ctx := context.Background()
	type world = func(f *fixture)
	send := func(from, to, thread string) world {
		return func(f *fixture) {
			f.t.Helper()
			if _, err := f.as(from).Send(ctx, Draft{To: []string{to}, Subject: "setup", Body: "b", Thread: thread}); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	reserve := func(agent, pattern string) world {
		return func(f *fixture) {
			f.t.Helper()
			if _, err := reservations.New(f.st, f.proj.Slug, agent, nil).Reserve(ctx, []string{pattern}, reservations.Options{TTL: time.Hour, Shared: true}); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	contact := func(approve bool) world {
		return func(f *fixture) {
			f.t.Helper()
			if _, err := f.as("GreenCastle").RequestContact(ctx, "BlueLake", "api questions"); err != nil {
				f.t.Fatal(err)
			}
			if _, err := f.as("BlueLake").DecideContact(ctx, "GreenCastle", approve); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	wait := func(d time.Duration) world { return func(f *fixture) { f.advance(d) } }
	// legacy rewrites BlueLake's profile as agentmail wrote it before open
	// became the default: without a policy.
	legacy := func(f *fixture) {
		f.t.Helper()
		err := f.st.Update(ctx, func(tx *store.Tx) error {
			tx.Put(&record.Agent{Project: f.proj.Slug, Name: "BlueLake", Registered: f.now(), Updated: f.now()})
			return nil
		})
		if err != nil {
			f.t.Fatal(err)
		}
	}
	setPolicy := func(p string) world {
		return func(f *fixture) {
			f.t.Helper()
			if _, err := f.as("BlueLake").SetPolicy(ctx, p); err != nil {
				f.t.Fatal(err)
			}
		}
	}

	tests := []struct {
		name    string
		policy  string // BlueLake's at registration, "" for auto; "default" registers it with none
		setup   []world
		thread  string
		asHuman bool
		want    error
	}{
		{name: "a new agent's default is open", policy: "default"},
		{name: "a profile without a policy is auto", policy: "open", setup: []world{legacy}, want: ErrContactRequired},
		{name: "auto: strangers need a contact", want: ErrContactRequired},
		{name: "auto: recent mail from the recipient", setup: []world{send("BlueLake", "GreenCastle", "")}},
		{name: "auto: recent mail to the recipient", setup: []world{send("GreenCastle", "RedFox", ""), send("BlueLake", "RedFox", "")}, want: ErrContactRequired},
		{name: "auto: mail older than a day", setup: []world{send("BlueLake", "GreenCastle", ""), wait(25 * time.Hour)}, want: ErrContactRequired},
		{name: "auto: shared thread, however old", setup: []world{send("BlueLake", "GreenCastle", "auth"), wait(72 * time.Hour)}, thread: "auth"},
		{name: "auto: the recipient's thread alone is not shared", setup: []world{send("BlueLake", "RedFox", "auth"), wait(72 * time.Hour)}, thread: "auth", want: ErrContactRequired},
		{name: "auto: overlapping reservations", setup: []world{reserve("GreenCastle", "src/api/**"), reserve("BlueLake", "src/api/*.go")}},
		{name: "auto: a broad reservation overlaps nobody", setup: []world{reserve("GreenCastle", "**"), reserve("BlueLake", "src/api/*.go")}, want: ErrContactRequired},
		{name: "auto: mail from the sender is no consent", setup: []world{setPolicy("open"), send("GreenCastle", "BlueLake", "auth"), setPolicy("auto")}, thread: "auth", want: ErrContactRequired},
		{name: "auto: nor is a broadcast", setup: []world{send("GreenCastle", Broadcast, "")}, want: ErrContactRequired},
		{name: "auto: joining the recipient's thread by mailing oneself", setup: []world{send("BlueLake", "RedFox", "plan"), send("GreenCastle", "GreenCastle", "plan")}, thread: "plan", want: ErrContactRequired},
		{name: "auto: disjoint reservations", setup: []world{reserve("GreenCastle", "src/api/**"), reserve("BlueLake", "docs/**")}, want: ErrContactRequired},
		{name: "auto: approved contact", setup: []world{contact(true)}},
		{name: "auto: denied contact", setup: []world{contact(false)}, want: ErrContactRequired},
		{name: "auto: expired contact", setup: []world{contact(true), wait(ContactTTL + time.Hour)}, want: ErrContactRequired},
		{name: "explicit auto", policy: "auto", want: ErrContactRequired},
		{name: "open", policy: "open"},
		{name: "contacts_only: recent mail is not enough", policy: "contacts_only", setup: []world{send("BlueLake", "GreenCastle", "")}, want: ErrContactRequired},
		{name: "contacts_only: approved contact", policy: "contacts_only", setup: []world{contact(true)}},
		{name: "block_all", policy: "block_all", want: ErrContactBlocked},
		{name: "block_all: even an approved contact", setup: []world{contact(true), setPolicy("block_all")}, want: ErrContactBlocked},
		{name: "block_all: the human overseer passes", policy: "block_all", asHuman: true},
		{name: "auto: the human overseer passes", asHuman: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "RedFox")
			for _, name := range []string{"GreenCastle", "BlueLake"} {
				// GreenCastle's own policy is open so that the setup
				// can write to it.
				in := RegisterInput{Name: name, Policy: "open"}
				if name == "BlueLake" {
					in.Policy = cmp.Or(tt.policy, "auto")
				}
				if in.Policy == "default" {
					in.Policy = ""
				}
				if _, err := f.as("").Register(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range tt.setup {
				w(f)
			}
			msg, err := f.as("GreenCastle").Send(ctx, Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "b", Thread: tt.thread, AsHuman: tt.asHuman})
			if !errors.Is(err, tt.want) {
				t.Fatalf("send: err = %v, want %v", err, tt.want)
			}
			if err == nil && !slices.Equal(msg.To, []string{"BlueLake"}) {
				t.Fatalf("delivered to %v, want BlueLake", msg.To)
			}
		})
	}
}

// TestContactRequestToBlockAll checks that an agent that accepts no mail
// takes no contact requests either.
func TestContactRequestToBlockAll(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	if _, err := f.as("").Register(context.Background(), RegisterInput{Name: "BlueLake", Policy: "block_all"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("GreenCastle").RequestContact(context.Background(), "BlueLake", "please"); !errors.Is(err, ErrContactBlocked) {
		t.Fatalf("err = %v, want ErrContactBlocked", err)
	}
}

// TestContactRequestToSelf: an agent cannot ask itself for contact, in any
// spelling of its name.
func TestContactRequestToSelf(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	for _, name := range []string{"GreenCastle", "greencastle"} {
		if _, err := f.as("GreenCastle").RequestContact(context.Background(), name, "me"); !errors.Is(err, ErrInvalidArgument) || fault.Hint(err) == "" {
			t.Errorf("request to %s: %v, want ErrInvalidArgument with a hint", name, err)
		}
	}
}

// TestContactRequestKeepsApproval: asking again for a contact that is
// approved and not expired changes nothing; once it expired, it asks anew.
func TestContactRequestKeepsApproval(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "GreenCastle")
	if _, err := f.as("").Register(ctx, RegisterInput{Name: "BlueLake", Policy: "contacts_only"}); err != nil {
		t.Fatal(err)
	}
	g := f.as("GreenCastle")
	if _, err := g.RequestContact(ctx, "BlueLake", "api"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("BlueLake").DecideContact(ctx, "GreenCastle", true); err != nil {
		t.Fatal(err)
	}
	again, err := g.RequestContact(ctx, "BlueLake", "api, again")
	if err != nil || again.State != "approved" {
		t.Fatalf("asking again: %+v, %v; want the approval unchanged", again, err)
	}
	if _, err := g.Send(ctx, Draft{To: []string{"BlueLake"}, Subject: "s", Body: "b"}); err != nil {
		t.Fatalf("send after asking again: %v", err)
	}
	f.advance(ContactTTL + time.Hour)
	if c, err := g.RequestContact(ctx, "BlueLake", "expired"); err != nil || c.State != "requested" {
		t.Fatalf("asking after expiry: %+v, %v; want a new request", c, err)
	}
}

// TestBroadcastPolicy checks who a broadcast (send --to all) reaches: every
// active agent whose policy is open or auto (a project broadcast needs no
// contact under auto), never retired or block_all agents, and
// contacts_only agents only when they approved the sender.
func TestBroadcastPolicy(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	policies := map[string]string{"BlueLake": "", "RedFox": "open", "SilverOtter": "contacts_only", "AmberCastle": "block_all", "GreenHarbor": "", "BlueRiver": "contacts_only"}
	for _, name := range append([]string{"GreenCastle"}, slices.Sorted(maps.Keys(policies))...) {
		if _, err := f.as("").Register(ctx, RegisterInput{Name: name, Policy: policies[name]}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.as("GreenCastle").Retire(ctx, "GreenHarbor", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("GreenCastle").RequestContact(ctx, "BlueRiver", "broadcasts"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("BlueRiver").DecideContact(ctx, "GreenCastle", true); err != nil {
		t.Fatal(err)
	}
	msg, err := f.as("GreenCastle").Send(ctx, Draft{To: []string{Broadcast}, Subject: "deploy at noon", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"BlueLake", "BlueRiver", "RedFox"}; !slices.Equal(msg.To, want) {
		t.Fatalf("broadcast reached %v, want %v", msg.To, want)
	}
}
