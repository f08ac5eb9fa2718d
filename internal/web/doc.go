// Package web is the web face of agentmail serve: the guard in front of
// every route, the pages of the web UI for the humans overseeing the
// agents, their embedded templates, stylesheet and script, and the safe
// rendering of message bodies. It calls no store: the serve command's
// handlers ask the service layer and hand this package what it returned.
//
// # The pieces
//
//   - Guard (security.go) wraps the whole server. It sets a strict
//     Content-Security-Policy and the other security headers on every
//     response; on a loopback bind it refuses a Host header that is not
//     localhost, 127.0.0.1 or [::1] with the bound port (DNS rebinding);
//     it refuses cross-origin writes (net/http's CrossOriginProtection);
//     where a token is needed (beyond loopback, or Options.RequireToken)
//     it takes it as a bearer token on /api/ and /mcp/, and on pages as a
//     session cookie that a link with ?token=T sets; and it refuses a page
//     form post without the CSRF token of Guard.CSRFToken. CheckListen
//     refuses to listen beyond loopback without a token.
//   - Markdown (markdown.go) renders a body: raw HTML shown as text, links
//     to anything but http, https, mailto or a relative address reduced to
//     their text, images shown as links, rel="nofollow noopener
//     noreferrer" on every link.
//   - Pages (pages.go) renders the views (views.go) with the embedded
//     templates; StaticHandler serves style.css, live.js and favicon.svg.
//     The views' fields are the --json documents' keys, as the service
//     names them; a time is a time.Time, zero for null.
//   - routes.go names the routes (ServeMux patterns) and builds their
//     addresses; forms.go reads the compose and search forms; errors.go
//     writes JSON errors (their HTTP statuses come from service.Describe).
//
// # Wiring it in agentmail serve
//
//  1. Read the token (--token-file or AGENTMAIL_TOKEN, trimmed), call
//     CheckListen(addr, token), listen, and build the guard with the
//     listener's address: NewGuard(Options{Addr: ln.Addr().String(),
//     Token: token, RequireToken: requireToken}).
//  2. md := NewMarkdown(markdown.Parser()), the GitHub parser (tables,
//     strikethrough, task lists, bare URLs) that search indexes with
//     too (goldmark/extension would cost every agentmail process
//     0.55 ms of package initialization). pages, _ := NewPages(md);
//     guard.ErrorPage = pages.ErrorPage.
//  3. On a ServeMux: RouteStatic → StaticHandler(); each other Route* →
//     a handler that calls the service as the overseer (search with
//     --all), copies the response into its view, sets Page.Project and
//     Page.Now, and calls pages.Serve (errors: an ErrorView with the
//     HTTP status of service.Describe(err), the one error table, the
//     page's Project for its navigation once known, and a hint in the
//     pages' terms, never a command's). The compose page puts
//     guard.CSRFToken(w, r) in its view; RouteSend reads
//     ReadCompose(r.PostForm, maxSubject), sends as Human to the agents
//     ticked (ToAll only with ConfirmAll), or replies as Human to
//     ComposeForm.Reply, and shows the ComposeView with Sent, or with
//     Error and Hint (ConfirmAll asks for the confirmation). Human's own
//     mailbox is InboxURL(project, Human, ""). RouteArchive answers `git show COMMIT:PATH` as
//     text/plain, for paths under the project's directory only. Mailbox
//     pages need the service to list messages before a cursor id
//     (MailboxView.Before and Older); search hits need the snippet with
//     fts's markers (SearchHit.Marked), which the service keeps today.
//  4. Under /api/ the JSON documents, with errors from WriteJSONError(w,
//     f.HTTP, f.Code, f.Message, f.Hint) where f = service.Describe(err); under /mcp/ the
//     MCP SDK's streamable HTTP handler. /api/events is a server-sent
//     event stream whose event names are the types pages list in
//     Page.Live (message, receipt, reservation, lock, contact, agent):
//     live.js, given the stream's address in Page.Events (with the
//     page's agent, types and the head it was made at as last_event_id),
//     when one arrives that concerns the page (Page.LiveThread, LiveFrom,
//     LiveIDs), fetches the page again and swaps in its live regions
//     (data-region, data-types: the timeline, a mailbox, a thread, the
//     board; items keyed by data-key, new or moved ones marked fresh),
//     or shows a "reload" banner for the types no region shows.
//     EventSource resends Last-Event-ID when it reconnects.
//  5. Serve guard.Handler(mux) with an http.Server, print
//     TokenURL("http://"+addr+"/mail/", token) in the startup line, and
//     shut down on SIGINT or SIGTERM.
//
// The pages and the browser tests run on fixtures: `AGENTMAIL_SCREENSHOTS=DIR
// go test -tags ... ./internal/web -run 'TestRenderPages|TestBrowser'` writes
// every page and screenshots of the main ones (wide, narrow, dark) to DIR.
package web
