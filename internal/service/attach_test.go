package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

func TestTopics(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	mail := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "build broke", Body: "b", Topic: " Builds "})
	if mail.Topic != "builds" {
		t.Errorf("topic = %q, want builds (trimmed, lowercase)", mail.Topic)
	}
	post := f.send("RedFox", SendRequest{Subject: "build fixed", Body: "green", Topic: "builds"})
	if len(post.To)+len(post.Cc)+len(post.Bcc) != 0 || post.Topic != "builds" {
		t.Errorf("post %+v", post)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "other", Body: "b"})
	f.send("GreenCastle", SendRequest{To: []string{"GreenCastle"}, Subject: "private", Body: "b", Topic: "builds"})

	for _, tt := range []struct {
		req  SendRequest
		code string
	}{
		{SendRequest{Subject: "s", Body: "b"}, "INVALID_ARGUMENT"},                                        // no recipients, no topic
		{SendRequest{Subject: "s", Body: "b", Topic: "no spaces"}, "INVALID_TOPIC"},                       // a topic is one word
		{SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b", Topic: "-flag"}, "INVALID_TOPIC"}, // not a flag
	} {
		_, err := f.svc.Send(ctx, as("GreenCastle"), tt.req)
		wantCode(t, "send "+tt.req.Topic, err, tt.code)
	}

	// BlueLake sees the mail sent to it and the post, not GreenCastle's
	// note to itself; a human sees all three.
	for _, tt := range []struct {
		agent string
		want  []string
	}{{"BlueLake", []string{post.ID, mail.ID}}, {"", nil}} {
		resp, err := f.svc.Topic(ctx, as(tt.agent), TopicRequest{Topic: "BUILDS", Bodies: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range resp.Messages {
			got = append(got, m.ID)
			if m.Body == nil {
				t.Errorf("no body for %s", m.ID)
			}
		}
		if tt.agent == "" && len(got) != 3 || tt.agent != "" && strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("topic builds as %q: %v, want %v (newest first)", tt.agent, got, tt.want)
		}
	}
	// The post is no inbox's mail, but anyone may show and answer it.
	inbox, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{Topic: "builds"})
	if err != nil || len(inbox.Messages) != 1 || inbox.Messages[0].ID != mail.ID {
		t.Errorf("inbox --topic builds: %+v %v", inbox.Messages, err)
	}
	if _, err := f.svc.Show(ctx, as("BlueLake"), post.ID); err != nil {
		t.Errorf("show a post: %v", err)
	}
	reply, err := f.svc.Reply(ctx, as("BlueLake"), ReplyRequest{ID: post.ID, Body: "thanks"})
	if err != nil || reply.Message.Topic != "builds" || strings.Join(reply.Message.To, ",") != "RedFox" {
		t.Errorf("reply to a post: %+v %v", reply.Message, err)
	}
	list, err := f.svc.Topics(ctx, as("BlueLake"))
	if err != nil || len(list.Topics) != 1 || list.Topics[0].Topic != "builds" || list.Topics[0].Messages != 3 || list.Topics[0].Last.IsZero() {
		t.Errorf("topics: %+v %v", list, err)
	}
	_, err = f.svc.Topic(ctx, as("BlueLake"), TopicRequest{Topic: "a/b"})
	wantCode(t, "topic a/b", err, "INVALID_TOPIC")
}

func TestAttachments(t *testing.T) {
	gitEnv(t)
	repo := newRepo(t)
	f := newFixture(t)
	ctx := context.Background()
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := f.svc.Register(ctx, in(repo, ""), RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	write := func(rel string, data []byte) {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shots/a.png", png)
	write("shots/copy.png", png)
	write("notes.txt", []byte("hello\n"))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "link.txt")); err != nil {
		t.Fatal(err)
	}

	send := func(req SendRequest) (Message, error) {
		req.To, req.Subject = []string{"BlueLake"}, "files"
		resp, err := f.svc.Send(ctx, in(filepath.Join(repo, "shots"), "GreenCastle"), req)
		return resp.Message, err
	}
	m, err := send(SendRequest{Body: "see", AttachmentPaths: []string{"a.png", "../notes.txt", "copy.png"},
		Attachments: []Upload{{Name: "up.bin", Data: []byte{0, 1, 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Attachments) != 4 {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	byName := map[string]Attachment{}
	for _, a := range m.Attachments {
		byName[a.Name] = a
	}
	a := byName["a.png"]
	if a.MediaType != "image/png" || a.Size != int64(len(png)) || a.SHA256 != record.SHA256(png) || a.Type != "file" ||
		a.Path != "projects/"+strings.Split(m.Path, "/")[1]+"/attachments/"+a.SHA256[:2]+"/"+a.SHA256 || byName["copy.png"].SHA256 != a.SHA256 {
		t.Errorf("a.png: %+v", a)
	}
	if !strings.HasPrefix(byName["notes.txt"].MediaType, "text/plain") {
		t.Errorf("notes.txt: %+v", byName["notes.txt"])
	}
	got, err := f.svc.Attachment(ctx, in(repo, "BlueLake"), m.ID[:12], "a.png")
	if err != nil || !bytes.Equal(got.Data, png) || got.Message != m.ID || got.Attachment.Name != "a.png" {
		t.Errorf("attachment get: %+v %v", got.Attachment, err)
	}
	up, err := f.svc.Attachment(ctx, in(repo, "BlueLake"), m.ID, "up.bin")
	if err != nil || !bytes.Equal(up.Data, []byte{0, 1, 2}) {
		t.Errorf("uploaded attachment: %v %v", up.Data, err)
	}
	_, err = f.svc.Attachment(ctx, in(repo, "BlueLake"), m.ID, "nope.png")
	wantCode(t, "attachment get nope.png", err, "NOT_FOUND")
	// The message lists them after a reindex too.
	if _, err := f.svc.Doctor(ctx, DoctorRequest{Reindex: true}); err != nil {
		t.Fatal(err)
	}
	shown, err := f.svc.Show(ctx, in(repo, "BlueLake"), m.ID)
	if err != nil || len(shown.Message.Attachments) != 4 {
		t.Errorf("show after reindex: %+v %v", shown.Message.Attachments, err)
	}

	t.Setenv("AGENTMAIL_MAX_BODY", "")
	for _, tt := range []struct {
		name string
		req  SendRequest
		code string
	}{
		{"missing", SendRequest{AttachmentPaths: []string{"gone.png"}}, "INVALID_ARGUMENT"},
		{"outside", SendRequest{AttachmentPaths: []string{outside}}, "INVALID_ARGUMENT"},
		{"up and out", SendRequest{AttachmentPaths: []string{"../../x"}}, "INVALID_ARGUMENT"},
		{"symlink out", SendRequest{AttachmentPaths: []string{"../link.txt"}}, "INVALID_ARGUMENT"},
		{"directory", SendRequest{AttachmentPaths: []string{"."}}, "INVALID_ARGUMENT"},
		{"same name twice", SendRequest{AttachmentPaths: []string{"a.png", "a.png"}}, "INVALID_ARGUMENT"},
		{"too large", SendRequest{Body: strings.Repeat("x", f.svc.MaxBody()-50), AttachmentPaths: []string{"a.png"}}, "MESSAGE_TOO_LARGE"},
		{"upload too large", SendRequest{Attachments: []Upload{{Name: "big", Data: make([]byte, f.svc.MaxBody()+1)}}}, "MESSAGE_TOO_LARGE"},
		{"bad upload name", SendRequest{Attachments: []Upload{{Name: "../x", Data: []byte{1}}}}, "INVALID_ARGUMENT"},
	} {
		_, err := send(tt.req)
		wantCode(t, tt.name, err, tt.code)
	}
	// Nothing of the refused sends was written.
	out, err := f.svc.Outbox(ctx, in(repo, "GreenCastle"), OutboxRequest{})
	if err != nil || len(out.Messages) != 1 {
		t.Errorf("outbox after refusals: %d messages, %v", len(out.Messages), err)
	}
	// A project named by key has no working tree to read from.
	_, err = f.svc.Send(ctx, Scope{Project: ProjectRef{Key: "github.com/acme/shop"}, Agent: "GreenCastle"},
		SendRequest{To: []string{"BlueLake"}, Subject: "s", AttachmentPaths: []string{"notes.txt"}})
	wantCode(t, "by key", err, "INVALID_ARGUMENT")
}

func TestSendAndWaitRefusesAPost(t *testing.T) {
	f := newFixture(t)
	f.register("GreenCastle")
	_, err := f.svc.SendAndWait(context.Background(), as("GreenCastle"), SendAndWaitRequest{
		SendRequest: SendRequest{Subject: "s", Body: "b", Topic: "builds"}, Wait: time.Second})
	wantCode(t, "send --wait a post", err, "USAGE")
}
