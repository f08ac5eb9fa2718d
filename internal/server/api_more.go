package server

import (
	"context"
	"net/http"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// moreAPIRoutes mounts the products, delivery receipts, conflict checks
// and recent-mail summaries (issue 24).
func (s *Server) moreAPIRoutes(mux *http.ServeMux) {
	const p = "/api/projects/{project}"
	mux.HandleFunc("GET /api/products", s.storeAPI(func(ctx context.Context, c *apiCall) (any, error) { return c.svc.Products(ctx) }))
	mux.HandleFunc("GET /api/products/{product}/search", s.storeAPI(apiProductSearch))
	mux.HandleFunc("GET /api/products/{product}/agents/{agent}/inbox", s.storeAPI(apiProductInbox))
	mux.HandleFunc("POST "+p+"/products", apiPost(s, apiLinkProduct))
	mux.HandleFunc("GET "+p+"/messages/{id}/receipt", s.api(func(ctx context.Context, c *apiCall) (any, error) {
		return c.svc.DeliveryReceipt(ctx, c.watch(c.query("agent")), c.r.PathValue("id"))
	}))
	mux.HandleFunc("GET "+p+"/reservations/conflicts", s.api(apiConflicts))
	mux.HandleFunc("GET "+p+"/summary", s.api(apiSummary))
}

// storeAPI returns the handler of a read of the whole store (no project in
// the path): fn runs on the gate's Service.
func (s *Server) storeAPI(fn func(context.Context, *apiCall) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var doc any
		err := s.gate.Do(func(svc *service.Service) (err error) {
			doc, err = fn(r.Context(), &apiCall{r: r, svc: svc})
			return err
		})
		if err != nil {
			writeError(w, nil, err)
			return
		}
		writeJSON(w, http.StatusOK, doc)
	}
}

func apiProductSearch(ctx context.Context, c *apiCall) (any, error) {
	limit, err := c.number("limit", service.DefaultListLimit)
	if err != nil {
		return nil, err
	}
	return c.svc.ProductSearch(ctx, c.query("agent"), c.r.PathValue("product"), service.SearchRequest{Query: c.query("q"), Limit: limit})
}

func apiProductInbox(ctx context.Context, c *apiCall) (any, error) {
	limit, err := c.number("limit", service.DefaultListLimit)
	if err != nil {
		return nil, err
	}
	req := service.InboxRequest{Since: c.query("since"), Limit: limit}
	if req.Unread, err = c.flag("unread"); err != nil {
		return nil, err
	}
	if req.Bodies, err = c.flag("bodies"); err != nil {
		return nil, err
	}
	return c.svc.ProductInbox(ctx, c.r.PathValue("agent"), c.r.PathValue("product"), req)
}

// productBody names a product to make or join.
type productBody struct {
	Product string `json:"product"`
	Agent   string `json:"agent"`  // who links it ("" for the overseer)
	Create  *bool  `json:"create"` // make the product when it does not exist; default true
}

func apiLinkProduct(ctx context.Context, c *apiCall, in productBody) (any, error) {
	create := in.Create == nil || *in.Create
	return c.svc.LinkProduct(ctx, service.Scope{Project: c.project, Agent: in.Agent}, in.Product, create)
}

func apiConflicts(ctx context.Context, c *apiCall) (any, error) {
	sc, err := c.as(c.query("agent"))
	if err != nil {
		return nil, err
	}
	shared, err := c.flag("shared")
	if err != nil {
		return nil, err
	}
	sc.Watching = true
	return c.svc.CheckConflicts(ctx, sc, c.r.URL.Query()["path"], shared)
}

func apiSummary(ctx context.Context, c *apiCall) (any, error) {
	hours, err := c.number("hours", int(service.DefaultSummaryWindow/time.Hour))
	if err != nil {
		return nil, err
	}
	return c.svc.SummarizeRecent(ctx, c.watch(c.query("agent")), service.RecentRequest{Since: time.Duration(hours) * time.Hour, Max: service.MaxRecent})
}
