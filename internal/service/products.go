package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/products"
	"github.com/agentmail/agentmail/internal/store"
)

// ProductProject is a project a product groups.
type ProductProject struct {
	ID       string `json:"id"` // the slug, under mcp_agent_mail's name
	Slug     string `json:"slug"`
	Key      string `json:"key"`
	HumanKey string `json:"human_key"` // the key, under mcp_agent_mail's name
	Created  Time   `json:"created_at"`
}

// Product is a product as every face shows it: mcp_agent_mail's fields
// (product_uid, name, created_at) and the projects it groups.
type Product struct {
	ID       string           `json:"id"` // the key, under mcp_agent_mail's name
	Key      string           `json:"key"`
	UID      string           `json:"product_uid"`
	Name     string           `json:"name"`
	Created  Time             `json:"created_at"`
	Projects []ProductProject `json:"projects"`
}

func productDoc(p products.Product) Product {
	doc := Product{ID: p.Key, Key: p.Key, UID: products.UID(p.Key), Name: p.Name, Created: Time{p.Created}, Projects: []ProductProject{}}
	for _, r := range p.Projects {
		doc.Projects = append(doc.Projects, ProductProject{r.Slug, r.Slug, r.Key, r.Key, Time{r.Created}})
	}
	return doc
}

// ProductResponse is the document of product ensure and link: the
// product, the project linked (ensure: the scope's), and whether the link
// is new.
type ProductResponse struct {
	Product
	Member  Product        `json:"product"`
	Project ProductProject `json:"project"`
	Linked  bool           `json:"linked"`       // the project is a member (always true)
	NewLink bool           `json:"newly_linked"` // it was not one before this call
	New     bool           `json:"created"`      // the product did not exist before this call
}

// ProductsResponse is the document of product list.
type ProductsResponse struct {
	Products []Product `json:"products"`
}

// LinkProduct makes the scope's project a member of the product named
// name. With create, a product of that name need not exist: it is made,
// with the scope's project as its first member (a product lives in the
// trees of its projects, so it has one from the start); without, a name
// no project is linked to yet is NOT_FOUND.
func (s *Service) LinkProduct(ctx context.Context, sc Scope, name string, create bool) (ProductResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ProductResponse{}, err
	}
	if sc.Agent != "" { // who links it is recorded: a registered agent
		if _, err := x.mb.Whoami(ctx); err != nil {
			return ProductResponse{}, err
		}
	}
	existed := true
	if _, err := products.Find(ctx, x.st.Index(), name); errors.Is(err, products.ErrNotFound) {
		if !create {
			return ProductResponse{}, err
		}
		existed = false
	} else if err != nil {
		return ProductResponse{}, err
	}
	if err := x.mb.EnsureProject(ctx); err != nil {
		return ProductResponse{}, err
	}
	p, linked, err := products.Link(ctx, x.st, x.project().Slug, name, sc.Agent)
	if err != nil {
		return ProductResponse{}, err
	}
	doc := productDoc(p)
	resp := ProductResponse{Product: doc, Member: doc, Linked: true, NewLink: linked, New: !existed}
	for _, m := range doc.Projects {
		if m.Slug == x.project().Slug {
			resp.Project = m
		}
	}
	return resp, nil
}

// Products lists the store's products.
func (s *Service) Products(ctx context.Context) (ProductsResponse, error) {
	st, _, err := s.storedProjects(ctx)
	if err != nil {
		return ProductsResponse{}, err
	}
	list, err := products.List(ctx, st.Index())
	if err != nil {
		return ProductsResponse{}, err
	}
	return ProductsResponse{Products: mapSlice(list, productDoc)}, nil
}

// findProduct returns the product named name.
func (s *Service) findProduct(ctx context.Context, name string) (products.Product, error) {
	st, _, err := s.storedProjects(ctx)
	if err != nil {
		return products.Product{}, err
	}
	return products.Find(ctx, st.Index(), name)
}

// GetProduct returns the product whose key, uid or name is name.
func (s *Service) GetProduct(ctx context.Context, name string) (Product, error) {
	p, err := s.findProduct(ctx, name)
	return productDoc(p), err
}

// eachMember runs fn in every project of the product named name, acting
// as agent ("" for nobody: the whole of each project's mail), skipping the
// projects where agent is not registered. It fails with NOT_REGISTERED
// when agent is registered in none of them.
func (s *Service) eachMember(ctx context.Context, name, agent string, fn func(sc Scope, p ProductProject) error) (products.Product, error) {
	p, err := s.findProduct(ctx, name)
	if err != nil {
		return p, err
	}
	ran := false
	for _, m := range p.Projects {
		sc := Scope{Project: ProjectRef{Key: m.Key, KeySource: SourceFlag}, Agent: agent}
		err := fn(sc, ProductProject{m.Slug, m.Slug, m.Key, m.Key, Time{m.Created}})
		if errors.Is(err, ErrNotRegistered) && agent != "" {
			continue
		}
		if err != nil {
			return p, err
		}
		ran = true
	}
	if !ran && agent != "" {
		return p, fault.WithHint(fmt.Errorf("%w: %s is registered in none of the projects of product %s (%s)", ErrNotRegistered, agent, p.Key,
			strings.Join(mapSlice(p.Projects, func(r store.ProjectRow) string { return r.Slug }), ", ")), "register the agent in one of the product's projects")
	}
	return p, nil
}

// ProductHit is a search result of a product: the hit, its project, and
// the message's importance and ack request (mcp_agent_mail's hits have
// them).
type ProductHit struct {
	SearchHit
	Project     string `json:"project"`
	Importance  string `json:"importance"`
	AckRequired bool   `json:"ack_required"`
}

// ProductSearchResponse is the document of search --product: the hits of
// every project, best first by score, and the notes of the query.
type ProductSearchResponse struct {
	Product string       `json:"product"`
	Results []ProductHit `json:"results"`
	Notes   []string     `json:"notes"`
}

// ProductSearch runs a query in every project of a product, as the scope's
// agent sees each (the projects where it is not registered are left out;
// without an agent, each project's whole mail).
func (s *Service) ProductSearch(ctx context.Context, agent, product string, req SearchRequest) (ProductSearchResponse, error) {
	resp := ProductSearchResponse{Results: []ProductHit{}, Notes: []string{}}
	p, err := s.eachMember(ctx, product, agent, func(sc Scope, m ProductProject) error {
		r, err := s.Search(ctx, sc, req)
		for _, h := range r.Results {
			resp.Results = append(resp.Results, ProductHit{h, m.Slug, h.importance, h.ack})
		}
		for _, n := range r.Notes {
			if !slices.Contains(resp.Notes, n) {
				resp.Notes = append(resp.Notes, n)
			}
		}
		return err
	})
	if err != nil {
		return ProductSearchResponse{}, err
	}
	resp.Product = p.Key
	slices.SortStableFunc(resp.Results, func(a, b ProductHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(b.ID, a.ID)
	})
	if req.Limit > 0 && len(resp.Results) > req.Limit {
		resp.Results = resp.Results[:req.Limit]
	}
	return resp, nil
}

// ProductInboxMessage is a received message of a product, with its
// project.
type ProductInboxMessage struct {
	InboxMessage
	Project string `json:"project"`
}

// ProductInboxResponse is the document of inbox --product: the agent's
// messages in every project of the product, newest first.
type ProductInboxResponse struct {
	Product  string                `json:"product"`
	Messages []ProductInboxMessage `json:"messages"`
}

// ProductInbox lists the agent's received messages in every project of a
// product where it is registered, newest first, at most req.Limit (0:
// all).
func (s *Service) ProductInbox(ctx context.Context, agent, product string, req InboxRequest) (ProductInboxResponse, error) {
	resp := ProductInboxResponse{Messages: []ProductInboxMessage{}}
	p, err := s.eachMember(ctx, product, agent, func(sc Scope, m ProductProject) error {
		r, err := s.Inbox(ctx, sc, req)
		for _, msg := range r.Messages {
			resp.Messages = append(resp.Messages, ProductInboxMessage{msg, m.Slug})
		}
		return err
	})
	if err != nil {
		return ProductInboxResponse{}, err
	}
	resp.Product = p.Key
	slices.SortStableFunc(resp.Messages, func(a, b ProductInboxMessage) int { return strings.Compare(b.ID, a.ID) })
	if req.Limit > 0 && len(resp.Messages) > req.Limit {
		resp.Messages = resp.Messages[:req.Limit]
	}
	return resp, nil
}

// ProductThreadMessage is a message of a product's thread, with its
// project.
type ProductThreadMessage struct {
	FullMessage
	Project string `json:"project"`
}

// ProductThreadResponse is a thread across the projects of a product,
// oldest first, with its digest.
type ProductThreadResponse struct {
	Product  string                 `json:"product"`
	Thread   string                 `json:"thread_id"`
	Messages []ProductThreadMessage `json:"messages"`
	Summary  Digest                 `json:"summary"`
}

// ProductThread returns the thread ref names (a thread name or a message
// id) in every project of a product, as the agent sees it in each, oldest
// first, with its digest. A thread found in none is NOT_FOUND.
func (s *Service) ProductThread(ctx context.Context, agent, product, ref string) (ProductThreadResponse, error) {
	resp := ProductThreadResponse{Thread: ref, Messages: []ProductThreadMessage{}}
	var notFound error
	p, err := s.eachMember(ctx, product, agent, func(sc Scope, m ProductProject) error {
		t, err := s.Thread(ctx, sc, ref)
		if errors.Is(err, ErrNotFound) {
			notFound = err
			return nil
		}
		if err != nil {
			return err
		}
		resp.Thread = t.Thread
		for _, msg := range t.Messages {
			resp.Messages = append(resp.Messages, ProductThreadMessage{msg, m.Slug})
		}
		return nil
	})
	if err != nil {
		return ProductThreadResponse{}, err
	}
	if len(resp.Messages) == 0 && notFound != nil {
		return ProductThreadResponse{}, notFound
	}
	resp.Product = p.Key
	slices.SortStableFunc(resp.Messages, func(a, b ProductThreadMessage) int { return strings.Compare(a.ID, b.ID) })
	resp.Summary = Summarize(mapSlice(resp.Messages, func(m ProductThreadMessage) FullMessage { return m.FullMessage }))
	return resp, nil
}

// ProjectNamed returns the ref of the project name names: a directory in a
// git repository (that repository's project), else a project of the store
// by key, slug or slug prefix (FindProject).
func (s *Service) ProjectNamed(ctx context.Context, name string) (ProjectRef, error) {
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		dir, err := filepath.Abs(name)
		if err != nil {
			return ProjectRef{}, err
		}
		if _, err := ResolveProject(ProjectRef{Dir: dir}); err == nil {
			return ProjectRef{Dir: dir}, nil
		}
	}
	p, err := s.FindProject(ctx, name)
	if err != nil {
		return ProjectRef{}, err
	}
	return ProjectRef{Key: p.Key, KeySource: SourceFlag}, nil
}
