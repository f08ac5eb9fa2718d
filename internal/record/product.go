package record

import (
	"encoding/json"
	"fmt"
	"time"
)

// ProductsDir is the directory of a project's product links: one file per
// product the project belongs to, products/KEY.json.
const ProductsDir = "products"

// ProductLink says that a project belongs to a product: several projects
// (repositories) grouped as one, whose mail is searched and read together.
// A product has no file of its own: it is the links that name it, each in
// the tree of a project it groups, so that a project's branch carries its
// products wherever it syncs. Written once; merged, the smaller version
// stands (two machines linking the same project differ only in time).
type ProductLink struct {
	Project string // slug
	Key     string // the product's key: lowercase letters, digits, '.', '_', '-'
	Name    string // the product's name as first given
	Created time.Time
	By      string // who linked it ("" for a human)
}

type productJSON struct {
	Key     string `json:"key"`
	Name    string `json:"name"`
	Created string `json:"created"`
	By      string `json:"by,omitempty"`
}

// Files implements Record.
func (p *ProductLink) Files() []File {
	return []File{{ProjectDir(p.Project) + "/" + ProductsDir + "/" + p.Key + ".json",
		marshal(productJSON{p.Key, p.Name, FormatTime(p.Created), p.By})}}
}

func decodeProduct(slug, file string, data []byte) (*ProductLink, error) {
	var v productJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Key+".json" != file {
		return nil, fmt.Errorf("product link names %q but is %q", v.Key, file)
	}
	created, err := ParseTime(v.Created)
	if err != nil {
		return nil, err
	}
	return &ProductLink{Project: slug, Key: v.Key, Name: v.Name, Created: created, By: v.By}, nil
}
