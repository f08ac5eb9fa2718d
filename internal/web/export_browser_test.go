package web

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
)

// offline are Chromium's switches that leave it no network: every host
// name fails to resolve and every request goes to a proxy nobody runs.
var offline = []string{"--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
	"--host-resolver-rules=MAP * ~NOTFOUND"}

// TestExportInBrowser exports a project (agentmail export's service
// operation, with the pages' markdown and stylesheet) and opens the site
// from file:// in headless Chromium with the network off: the timeline
// lists the mail, a message's page opens through a relative link, and
// the search page finds a message by a word of its body alone (its
// scripts run under the site's Content-Security-Policy) and links to it.
// Screenshots go where TestBrowser's go.
func TestExportInBrowser(t *testing.T) {
	b := newBrowser(t)
	ctx := context.Background()
	svc := service.New(service.Config{Dir: filepath.Join(t.TempDir(), "store")})
	t.Cleanup(func() { _ = svc.Close() })
	sc := func(agent string) service.Scope {
		return service.Scope{Project: service.ProjectRef{Key: "github.com/acme/shop"}, Agent: agent}
	}
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := svc.Register(ctx, sc(""), service.RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	var wanted string
	for i, m := range []service.SendRequest{
		{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "The endpoints are **merged**."},
		{To: []string{"GreenCastle"}, Subject: "Schema question", Body: "Does the zanzibar column stay nullable?"},
		{To: []string{"BlueLake"}, Subject: "Re: Schema question", Body: "Yes, for now."},
	} {
		from := []string{"GreenCastle", "BlueLake", "GreenCastle"}[i]
		resp, err := svc.Send(ctx, sc(from), m)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			wanted = resp.Message.ID
		}
	}
	first, err := svc.CreateTask(ctx, sc("GreenCastle"), service.CreateTaskRequest{Title: "Rotate the API keys", Description: "Old keys stop at **noon**."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTask(ctx, sc("GreenCastle"), service.CreateTaskRequest{Title: "Announce the rotation", Deps: []string{first.Task.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ClaimTask(ctx, sc("BlueLake"), service.ClaimTaskRequest{ID: first.Task.ID}); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := svc.Export(ctx, sc(""), service.ExportRequest{Dir: site, Markdown: BodyMarkdown().Render, Stylesheet: Stylesheet()}); err != nil {
		t.Fatal(err)
	}
	shots := previewDir(t)
	url := "file://" + filepath.ToSlash(site)

	dom := b.capture(url+"/index.html", filepath.Join(shots, "export-timeline.png"), 1400, 900, false)
	for _, want := range []string{"Auth API ready", "Schema question", "3 messages, newest first"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the exported timeline lacks %q:\n%s", want, dom)
		}
	}
	if !strings.Contains(dom, `href="messages/`+wanted+`.html"`) {
		t.Errorf("the timeline has no relative link to messages/%s.html", wanted)
	}
	for _, width := range []int{1400, 390} {
		dom = b.capture(url+"/tasks.html", filepath.Join(shots, fmt.Sprintf("export-tasks-%d.png", width)), width, 900, false)
		progress, blocked, _ := strings.Cut(dom, `aria-label="Blocked"`)
		if !strings.Contains(progress, "Rotate the API keys") || !strings.Contains(blocked, "Announce the rotation") || !strings.Contains(blocked, `href="#task-`+first.Task.ID+`"`) {
			t.Errorf("the exported board does not show the claimed task in progress and the one after it blocked:\n%s", dom)
		}
	}
	dom = b.run(url+"/messages/"+wanted+".html", append([]string{"--dump-dom"}, offline...)...)
	if !strings.Contains(dom, "zanzibar column") || !strings.Contains(dom, `href="../threads/`) {
		t.Errorf("the message page lacks its body or its thread's link:\n%s", dom)
	}

	dom = b.run(url+"/search.html?q=ZANZIBAR", append([]string{"--dump-dom", "--screenshot=" + filepath.Join(shots, "export-search.png"), "--window-size=1400,900"}, offline...)...)
	if !strings.Contains(dom, ">1 message<") {
		t.Errorf("the search for a word of one body did not count one message:\n%s", dom)
	}
	if !strings.Contains(dom, `href="messages/`+wanted+`.html"`) || !strings.Contains(dom, "Schema question") {
		t.Errorf("the search's result does not link to the message:\n%s", dom)
	}
	if strings.Contains(dom, "Auth API ready</span>") {
		t.Errorf("the search listed a message without the word:\n%s", dom)
	}
	dom = b.run(url+"/search.html?q=schema+question", append([]string{"--dump-dom"}, offline...)...)
	if !strings.Contains(dom, ">2 messages<") {
		t.Errorf("the search for two words of two subjects did not find both:\n%s", dom)
	}
}
