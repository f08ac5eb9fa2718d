package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentmail/agentmail/"

// The layers, lowest first: a package imports only packages of its layer
// or below (docs/design.md, Layout), and a face imports nothing of the
// storage layer nor the domain's record types: it reaches them through the
// service.
const (
	base    = iota // shared leaves: errors, ids, names, the record types
	storage        // the archive and the index
	domain         // mail, leases, ports, search, the guard, setup, projects
	svc            // each operation once
	face           // the command line, MCP, the HTTP server and its pages
)

// layers places every package of the module; a package missing here fails
// the test, so that a new one is placed on purpose.
var layers = map[string]int{
	"internal/fault": base, "internal/ids": base, "internal/names": base, "internal/flock": base,
	"internal/crash": base, "internal/procstat": base, "internal/record": base, "internal/markdown": base, "internal/glob": base,
	"internal/archive": storage, "internal/store": storage,
	"internal/mailbox": domain, "internal/reservations": domain, "internal/tasks": domain, "internal/webhooks": domain, "internal/ports": domain, "internal/products": domain, "internal/fts": domain, "internal/guard": domain, "internal/hooks": domain,
	"internal/project": domain, "internal/importer": domain, "internal/setup": domain, "internal/export": domain,
	"internal/service": svc, "internal/service/errorcases": svc,
	"cmd/agentmail": face, "internal/mcpserver": face, "internal/server": face, "internal/web": face,
	// The event stream is serve's: an HTTP handler over the service.
	"internal/events": face,
}

// tools are packages outside the layers: a benchmark harness and test
// helpers, which reach into any layer on purpose.
var tools = []string{"cmd/agentmail-bench", "internal/testbin", "internal/glob/globtest", "internal/gittest", "internal/sqlitetest", "internal/layering", "internal/parity"}

// belowService are the packages a face reaches only through the service.
var belowService = []string{"internal/store", "internal/archive", "internal/record", "internal/project"}

// knownEdges are the imports against the direction that remain, each with
// its reason (issue 26). The list only shrinks: an edge that goes away
// must leave it.
var knownEdges = map[string]string{
	"internal/events -> internal/archive": "the event stream reads the archive's branches itself",
	"internal/events -> internal/store":   "the event stream reads the archive's branches itself",
	"internal/events -> internal/record":  "the event stream decodes the records it reads",
}

// TestImportDirection fails on an import that runs against the layers:
// upwards (the domain importing the service, storage importing the
// domain, anything importing a face but a face above it), or from a face
// past the service into the domain or storage. Test files may import what
// they test with.
func TestImportDirection(t *testing.T) {
	root := moduleRoot(t)
	imports := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for pkg, deps := range imports {
		if slices.Contains(tools, pkg) {
			continue
		}
		from, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s has no layer: place it in layers", pkg)
			continue
		}
		for _, dep := range deps {
			to, ok := layers[dep]
			if !ok {
				continue // reported as a package of its own
			}
			edge := pkg + " -> " + dep
			bad := to > from || from == face && (to == domain || slices.Contains(belowService, dep))
			switch {
			case bad && knownEdges[edge] != "":
				seen[edge] = true
			case bad:
				t.Errorf("%s imports against the layers (faces → service → domain → storage): go through the service, or move the code", edge)
			}
		}
	}
	for edge := range knownEdges {
		if !seen[edge] {
			t.Errorf("known edge %s is gone: take it off knownEdges", edge)
		}
	}
}
