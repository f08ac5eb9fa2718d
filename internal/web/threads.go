package web

import "time"

// RouteThreads is the route of a project's list of threads.
const RouteThreads = "GET /mail/{project}/threads"

// ThreadsURL is the address of a page of a project's threads: from the
// most recently active, or with before set, after the thread whose newest
// message it is.
func ThreadsURL(project, before string) string {
	return withQuery(mailURL(project, "threads"), "before", before)
}

// ThreadSummary is a thread in the list (the threads document's).
type ThreadSummary struct {
	Thread       string
	Subject      string
	Messages     int
	Participants []string
	LastID       string
	LastFrom     string
	Last         time.Time
}

// ThreadsView is a page of a project's threads, the most recently active
// first; Before is the cursor it starts at ("" for the first page), Older
// the cursor of the next ("" on the last).
type ThreadsView struct {
	Page
	Threads []ThreadSummary
	Before  string
	Older   string
}

// Section implements View.
func (ThreadsView) Section() string { return "agents" }

func (ThreadsView) template() string { return "threads.html" }
