// Package products groups projects of a store into products: several
// repositories worked on as one, whose mail is searched and read together.
// A product is the links that name it (record.ProductLink), each kept in
// the tree of a project it groups: a project's branch carries its
// products wherever it syncs, and no store-wide file is written.
package products

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Errors callers branch on.
var (
	// ErrNotFound: no project belongs to a product of that name.
	ErrNotFound = fmt.Errorf("%w: no such product", mailbox.ErrNotFound)
	// ErrInvalidArgument: a name that makes no key.
	ErrInvalidArgument = mailbox.ErrInvalidArgument
)

// Projection returns the index's table of product links, which a store
// must be opened with to serve products.
func Projection() store.Projection { return projection{} }

type projection struct{}

func (projection) Name() string { return "products1" }

func (projection) Tables() []store.Table {
	return []store.Table{{Name: "product_links", Create: `CREATE TABLE product_links(project_id INTEGER NOT NULL, key TEXT NOT NULL,
		name TEXT NOT NULL, created TEXT NOT NULL, by TEXT NOT NULL, PRIMARY KEY(key, project_id)) WITHOUT ROWID`}}
}

func (projection) Prepare(record.Record) any { return nil }

func (projection) Apply(w *store.Writer, rec record.Record, _ any) error {
	l, ok := rec.(*record.ProductLink)
	if !ok {
		return nil
	}
	pid, err := w.ProjectID(l.Project)
	if err != nil {
		return err
	}
	_, err = w.Exec(`INSERT OR REPLACE INTO product_links(project_id, key, name, created, by) VALUES (?, ?, ?, ?, ?)`,
		pid, l.Key, l.Name, record.FormatTime(l.Created), l.By)
	return err
}

var keyChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// Key returns the key of a product named name: lowercase, runs of other
// characters as one '-', at most 64 characters. "Shop Platform" is
// shop-platform.
func Key(name string) (string, error) {
	k := strings.Trim(keyChars.ReplaceAllString(strings.ToLower(strings.TrimSpace(name)), "-"), "-.")
	if len(k) > 64 {
		k = strings.Trim(k[:64], "-.")
	}
	if k == "" {
		return "", fault.WithHint(fmt.Errorf("%w: product name %q has no letter or digit", ErrInvalidArgument, name),
			"name the product with letters and digits, such as shop-platform")
	}
	return k, nil
}

// UID returns the product's uid: 20 hex digits of its key's SHA-1, the
// same on every machine.
func UID(key string) string {
	sum := sha1.Sum([]byte(key))
	return hex.EncodeToString(sum[:])[:20]
}

// Product is a product and the projects it groups.
type Product struct {
	Key      string
	Name     string
	Created  time.Time          // its first link's time
	Projects []store.ProjectRow // by slug
}

// List returns every product of the store, by key.
func List(ctx context.Context, q store.Querier) ([]Product, error) {
	return list(ctx, q, "")
}

// Find returns the product whose key, uid or name (ignoring case) is
// name; ErrNotFound if none.
func Find(ctx context.Context, q store.Querier, name string) (Product, error) {
	name = strings.TrimSpace(name)
	key, err := Key(name)
	if err != nil {
		return Product{}, err
	}
	all, err := list(ctx, q, "")
	if err != nil {
		return Product{}, err
	}
	var known []string
	for _, p := range all {
		if p.Key == key || UID(p.Key) == strings.ToLower(name) || strings.EqualFold(p.Name, name) {
			return p, nil
		}
		known = append(known, p.Key)
	}
	list := "no product exists yet"
	if len(known) > 0 {
		list = "known products: " + strings.Join(known, ", ")
	}
	return Product{}, fault.WithField(fmt.Errorf("%w %q (%s)", ErrNotFound, name, list), "product", "name", name, "known", known)
}

func list(ctx context.Context, q store.Querier, key string) ([]Product, error) {
	projects, err := store.ListProjects(ctx, q)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]store.ProjectRow, len(projects))
	for _, p := range projects {
		byID[p.ID] = p
	}
	rows, err := q.QueryContext(ctx, `SELECT key, name, created, project_id FROM product_links
		WHERE ? = '' OR key = ? ORDER BY key`, key, key)
	if err != nil {
		return nil, fmt.Errorf("list products: %w", err)
	}
	defer rows.Close()
	var out []Product
	for rows.Next() {
		var key, name, created string
		var pid int64
		if err := rows.Scan(&key, &name, &created, &pid); err != nil {
			return nil, fmt.Errorf("list products: %w", err)
		}
		t, _ := record.ParseTime(created)
		if n := len(out); n == 0 || out[n-1].Key != key {
			out = append(out, Product{Key: key, Name: name, Created: t})
		}
		last := &out[len(out)-1]
		if t.Before(last.Created) {
			last.Created, last.Name = t, name
		}
		if p, ok := byID[pid]; ok {
			last.Projects = append(last.Projects, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		slices.SortFunc(out[i].Projects, func(a, b store.ProjectRow) int { return strings.Compare(a.Slug, b.Slug) })
	}
	return out, nil
}

// Link makes project slug (which the store must hold) a member of the
// product named name, as by ("" for a human); linked says whether it was
// not one yet. The product's name is the one it has where it exists.
func Link(ctx context.Context, st *store.Store, slug, name, by string) (p Product, linked bool, err error) {
	key, err := Key(name)
	if err != nil {
		return Product{}, false, err
	}
	err = st.UpdateProject(ctx, slug, func(tx *store.Tx) error {
		linked = false
		all, err := list(ctx, tx, key)
		if err != nil {
			return err
		}
		link := &record.ProductLink{Project: slug, Key: key, Name: strings.Join(strings.Fields(name), " "), Created: st.Now(), By: by}
		if len(all) > 0 {
			link.Name = all[0].Name
			for _, m := range all[0].Projects {
				if m.Slug == slug {
					return nil
				}
			}
		}
		linked = true
		tx.Put(link)
		author := by
		if author == "" {
			author = "agentmail"
		}
		tx.Describe(author, fmt.Sprintf("product: %s links %s", key, slug))
		return nil
	})
	if err != nil {
		return Product{}, false, err
	}
	all, err := list(ctx, st.Index(), key)
	if err == nil && len(all) == 0 {
		err = errors.New("the link is not in the index")
	}
	if err != nil {
		return Product{}, false, err
	}
	return all[0], linked, nil
}
