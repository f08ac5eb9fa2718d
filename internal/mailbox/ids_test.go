package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestShortIDsPasteBack: every id as listings display it names its message
// when pasted back, is as short as it can be, and has at least 8
// characters, also for many messages of one clock reading (one batch), and
// counting messages the viewer does not see.
func TestShortIDsPasteBack(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	var drafts []Draft
	for i := range 40 {
		to := "BlueLake"
		if i%4 == 3 {
			to = "RedFox" // not BlueLake's: still makes BlueLake's prefixes longer
		}
		drafts = append(drafts, Draft{To: []string{to}, Subject: fmt.Sprintf("batch %d", i)})
	}
	if _, err := f.as("GreenCastle").SendBatch(ctx, drafts); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f.advance(3 * time.Hour)
		f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "later"})
	}
	mb := f.as("BlueLake")
	inbox, err := mb.Inbox(ctx, InboxQuery{})
	if err != nil || len(inbox) != 33 {
		t.Fatalf("inbox: %d messages, %v", len(inbox), err)
	}
	list := make([]string, len(inbox))
	for i, m := range inbox {
		list[i] = m.ID
	}
	short, err := mb.ShortIDs(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	lengths := map[int]int{}
	for _, m := range inbox {
		s := short.Of(m.ID)
		lengths[len(s)]++
		if len(s) < 8 {
			t.Errorf("%s shown as %s, shorter than 8", m.ID, s)
		}
		got, err := mb.Show(ctx, s)
		if err != nil || got.ID != m.ID {
			t.Errorf("%s shown as %s, which shows %q, %v", m.ID, s, got.ID, err)
		}
		if len(s) > 8 {
			if _, err := mb.Show(ctx, s[:len(s)-1]); !errors.Is(err, ErrAmbiguousID) {
				t.Errorf("%s shown as %s, but %s is unique already (%v)", m.ID, s, s[:len(s)-1], err)
			}
		}
	}
	if lengths[8] == 0 || len(lengths) < 2 {
		t.Errorf("display lengths %v: want the lone messages at 8 characters and the batch longer", lengths)
	}
}

// TestAmbiguousIDListsMatches: an ambiguous prefix is an error listing the
// matches by the prefixes that tell them apart, with the subjects of those
// the viewer may see; with a few more than are listed counted.
func TestAmbiguousIDListsMatches(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	drafts := []Draft{{To: []string{"BlueLake"}, Subject: "first"}, {To: []string{"RedFox"}, Subject: "for RedFox only"}}
	for i := range 6 {
		drafts = append(drafts, Draft{To: []string{"BlueLake"}, Subject: fmt.Sprintf("more %d", i)})
	}
	sent, err := f.as("GreenCastle").SendBatch(ctx, drafts)
	if err != nil {
		t.Fatal(err)
	}
	prefix := sent[0].ID[:10]
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"show", func() error { _, err := f.as("BlueLake").Show(ctx, prefix); return err }},
		{"read", func() error { _, err := f.as("BlueLake").Mark(ctx, []string{prefix}, false, false); return err }},
		{"ack", func() error { _, err := f.as("BlueLake").Mark(ctx, []string{prefix}, false, true); return err }},
		{"reply", func() error { _, err := f.as("BlueLake").Reply(ctx, prefix, ReplyDraft{Body: "x"}); return err }},
		{"thread", func() error { _, _, err := f.as("BlueLake").Thread(ctx, prefix); return err }},
		{"send --thread", func() error {
			_, err := f.as("BlueLake").Send(ctx, Draft{To: []string{"GreenCastle"}, Subject: "s", Thread: prefix})
			return err
		}},
	} {
		err := op.call()
		if !errors.Is(err, ErrAmbiguousID) {
			t.Errorf("%s %s: %v, want ErrAmbiguousID", op.name, prefix, err)
			continue
		}
		for _, want := range []string{"matches 8 messages", "(first)", "(not your mail)", "(more 2)", "and 3 more"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %q does not say %q", op.name, prefix, err, want)
			}
		}
		if strings.Contains(err.Error(), "for RedFox only") {
			t.Errorf("%s %s: %q shows the subject of RedFox's mail to BlueLake", op.name, prefix, err)
		}
	}
	inbox, err := f.as("BlueLake").Inbox(ctx, InboxQuery{Unread: true})
	if err != nil || len(inbox) != 7 {
		t.Fatalf("after the ambiguous reads: %d unread, %v; want all 7", len(inbox), err)
	}
}

// TestSendThreadByID: send --thread with a message id (or a prefix of
// one) the sender may see joins that message's thread; anything else is
// a thread name.
func TestSendThreadByID(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	named := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "auth", Thread: "auth-api"})
	f.advance(time.Hour)
	own := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "lunch"})
	f.advance(time.Hour)
	hidden := f.send("GreenCastle", Draft{To: []string{"RedFox"}, Subject: "not for BlueLake", Thread: "secret"})
	f.advance(time.Hour) // the sends below must not share the prefixes above
	tests := []struct {
		name, from, thread, want string
		human                    bool
	}{
		{"prefix of a message in a named thread", "BlueLake", named.ID[:8], "auth-api", false},
		{"whole id, lower case", "BlueLake", strings.ToLower(named.ID), "auth-api", false},
		{"prefix of a message that started its own thread", "BlueLake", own.ID[:9], own.ID, false},
		{"the sender's own message", "GreenCastle", own.ID[:8], own.ID, false},
		{"a name", "BlueLake", "planning", "planning", false},
		{"a name of id characters that matches nothing", "BlueLake", "BACKEND", "BACKEND", false},
		{"too short for an id: a name", "BlueLake", "01K8", "01K8", false},
		{"a message the sender may not see: a name", "BlueLake", hidden.ID[:10], hidden.ID[:10], false},
		{"the human overseer sees every message", "", hidden.ID[:10], "secret", true},
	}
	for _, tt := range tests {
		d := Draft{To: []string{"GreenCastle"}, Subject: tt.name, Thread: tt.thread, AsHuman: tt.human}
		got, err := f.as(tt.from).Send(ctx, d)
		if err != nil || got.Thread != tt.want {
			t.Errorf("%s: send --thread %s: thread %q, %v; want %q", tt.name, tt.thread, got.Thread, err, tt.want)
		}
	}
	_, msgs, err := f.as("BlueLake").Thread(ctx, "auth-api")
	if err != nil || len(msgs) != 3 {
		t.Errorf("thread auth-api: %d messages, %v; want the first and the two that joined it", len(msgs), err)
	}
}
