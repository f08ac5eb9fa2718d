package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
)

// The board shows the top 100 of a column and counts the rest; a closed
// task's close reason and the history of a task read in words.
func TestTasksBoardBounds(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle"})
	var first string
	for i := range columnShown + 3 {
		resp, err := h.svc.CreateTask(t.Context(), h.scope("GreenCastle"), service.CreateTaskRequest{Title: fmt.Sprintf("chore %03d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = resp.Task.ID
		}
	}
	if _, err := h.svc.CloseTask(t.Context(), h.scope("GreenCastle"), service.CloseTaskRequest{ID: first, Reason: "not needed"}); err != nil {
		t.Fatal(err)
	}
	r := h.do("GET", "/mail/"+h.slug+"/tasks", nil)
	page := string(r.body)
	ready := page[strings.Index(page, `data-column="ready"`):strings.Index(page, `data-column="progress"`)]
	if r.status != 200 || strings.Count(ready, `<article class="card"`) != columnShown || !strings.Contains(ready, `<span class="count">102</span>`) ||
		!strings.Contains(ready, "and 2 more") {
		t.Errorf("the ready column: %d, %d cards\n%.600s", r.status, strings.Count(ready, `<article class="card"`), ready)
	}
	r = h.do("GET", "/mail/"+h.slug+"/task/"+first, nil)
	if page := string(r.body); r.status != 200 || !strings.Contains(page, "GreenCastle: closed: not needed") || !strings.Contains(page, "closed: not needed</dd>") {
		t.Errorf("a closed task's page: %d\n%.3000s", r.status, page)
	}
}
