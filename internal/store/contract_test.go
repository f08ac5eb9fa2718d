package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/products"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
)

// The storage boundary: each table of the index belongs to the one
// package that creates it, and only that package names it in SQL. The
// tests below read the module's source (its non-test files) the way a
// reviewer would, so that a query on another package's table, or a
// *sql.DB handed out, fails here rather than in review.

// sqlText holds the SQL-looking text of one package: each string
// constant expression of its files, with the parts that are not constants
// of the package shown as "?".
type sqlText struct {
	dir   string
	texts []string
	// handles lists the uses of database/sql's handle types and of
	// sql.Open, which only the store may have.
	handles []string
}

// moduleRoot is the directory of go.mod, two levels up from this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// readPackages returns the SQL text of every package of the module, by
// directory relative to the root.
func readPackages(t *testing.T) map[string]*sqlText {
	t.Helper()
	root := moduleRoot(t)
	out := map[string]*sqlText{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if out[rel] == nil {
			out[rel] = &sqlText{dir: rel}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, p := range out {
		p.read(t, filepath.Join(root, rel))
	}
	return out
}

// read parses the non-test files of the package in dir.
func (p *sqlText) read(t *testing.T, dir string) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	consts := constants(files)
	for _, f := range files {
		sqlName := importName(f, "database/sql")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.ADD {
					if s, ok := eval(n, consts); ok {
						p.texts = append(p.texts, s)
						return false // its parts are in s
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					s, _ := strconv.Unquote(n.Value)
					p.texts = append(p.texts, s)
				}
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && sqlName != "" && id.Name == sqlName &&
					slices.Contains([]string{"DB", "Tx", "Conn", "Stmt", "Open", "OpenDB"}, n.Sel.Name) {
					p.handles = append(p.handles, fset.Position(n.Pos()).String()+": sql."+n.Sel.Name)
				}
			}
			return true
		})
	}
}

// importName returns the name file f imports path by, or "".
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return filepath.Base(path)
		}
	}
	return ""
}

// constants returns the string constants of the files whose values are
// literals or sums of literals and such constants.
func constants(files []*ast.File) map[string]string {
	decl := map[string]ast.Expr{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							decl[name.Name] = vs.Values[i]
						}
					}
				}
			}
			return true
		})
	}
	out := map[string]string{}
	for changed := true; changed; {
		changed = false
		for name, e := range decl {
			if _, done := out[name]; done {
				continue
			}
			if s, ok := evalStrict(e, out); ok {
				out[name], changed = s, true
			}
		}
	}
	return out
}

// evalStrict evaluates a string constant expression whose every part is
// known.
func evalStrict(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.ParenExpr:
		return evalStrict(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			a, ok1 := evalStrict(e.X, consts)
			b, ok2 := evalStrict(e.Y, consts)
			return a + b, ok1 && ok2
		}
	}
	return "", false
}

// eval evaluates a sum with at least one string literal in it, showing
// the parts it cannot evaluate as "?".
func eval(e ast.Expr, consts map[string]string) (string, bool) {
	var sb strings.Builder
	literal := false
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
			walk(b.X)
			walk(b.Y)
			return
		}
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			literal = true
		}
		if s, ok := evalStrict(e, consts); ok {
			sb.WriteString(s)
			return
		}
		sb.WriteString("?")
	}
	walk(e)
	return sb.String(), literal
}

var (
	// createdRE finds the tables a statement creates.
	createdRE = regexp.MustCompile(`\bCREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
	// usedRE finds the tables a statement names: after FROM, JOIN, INTO,
	// UPDATE and TABLE, and in CREATE INDEX ... ON table(...). SQL keywords
	// are upper case in this module, names lower case.
	usedRE = regexp.MustCompile(`\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+([a-z_][a-z0-9_]*)(\.[a-z_?][a-z0-9_]*)?|\bON\s+([a-z_][a-z0-9_]*)\s*\(`)
)

// builtin reports whether name is SQLite's own: its schema tables, table-
// valued functions and pragmas.
func builtin(name string) bool {
	return strings.HasPrefix(name, "sqlite_") || strings.HasPrefix(name, "pragma_") || name == "json_each"
}

// tables returns the tables the package creates and those it names.
func (p *sqlText) tables() (created, used map[string]bool) {
	created, used = map[string]bool{}, map[string]bool{}
	for _, s := range p.texts {
		for _, m := range createdRE.FindAllStringSubmatch(s, -1) {
			created[m[1]] = true
		}
		for _, m := range usedRE.FindAllStringSubmatch(s, -1) {
			name := m[1] + m[3]
			if m[2] != "" { // schema.table
				if name = m[2][1:]; name == "?" {
					continue
				}
			}
			if !builtin(name) {
				used[name] = true
			}
		}
	}
	return created, used
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTablesOwned: every table is created by one package, and no package
// names a table it did not create.
func TestTablesOwned(t *testing.T) {
	owner := map[string]string{}
	pkgs := readPackages(t)
	for _, p := range pkgs {
		created, _ := p.tables()
		for name := range created {
			if other, ok := owner[name]; ok {
				t.Errorf("table %s is created by both %s and %s", name, other, p.dir)
			}
			owner[name] = p.dir
		}
	}
	for _, dir := range []string{"internal/store", "internal/mailbox", "internal/reservations", "internal/fts"} {
		if created, _ := pkgs[dir].tables(); len(created) == 0 {
			t.Errorf("found no table created by %s: is the scan blind?", dir)
		}
	}
	for _, p := range pkgs {
		_, used := p.tables()
		for _, name := range sortedKeys(used) {
			switch o, ok := owner[name]; {
			case !ok:
				t.Errorf("%s names the table %s, which no package creates", p.dir, name)
			case o != p.dir:
				t.Errorf("%s names the table %s of %s: ask %s through a Go API instead", p.dir, name, o, o)
			}
		}
	}
}

// TestProjectionsDeclareTheirTables: what a package's projection registers
// with the store is what the package creates.
func TestProjectionsDeclareTheirTables(t *testing.T) {
	pkgs := readPackages(t)
	for dir, projs := range map[string][]store.Projection{
		"internal/mailbox":      {mailbox.Projection(), mailbox.CursorProjection(), mailbox.AttentionProjection(), mailbox.RulesProjection()},
		"internal/reservations": {reservations.Projection()},
		"internal/fts":          {fts.Projection()},
		"internal/products":     {products.Projection()},
		"internal/tasks":        {tasks.Projection()},
	} {
		created, _ := pkgs[dir].tables()
		var declared []string
		for _, proj := range projs {
			for _, tb := range proj.Tables() {
				declared = append(declared, tb.Name)
			}
		}
		sort.Strings(declared)
		if want := sortedKeys(created); !slices.Equal(declared, want) {
			t.Errorf("%s's projection declares %v, the package creates %v", dir, declared, want)
		}
	}
}

// TestNoSQLHandlesOutsideStore: the index's database handles stay in the
// store, which hands the domain packages store.Querier instead. The
// others: the tests' own (internal/sqlitetest opens a connection of its
// own to count what SQLite compiles on it), and webhooks, whose database
// (webhooks.db: hooks, secrets, the delivery queue and log) is no index:
// nothing rebuilds it from the archive, and no projection reads it.
func TestNoSQLHandlesOutsideStore(t *testing.T) {
	for _, p := range readPackages(t) {
		if p.dir == "internal/store" || p.dir == "internal/sqlitetest" || p.dir == "internal/webhooks" {
			continue
		}
		for _, h := range p.handles {
			t.Errorf("%s", h)
		}
	}
}

// TestScannerFindsTables checks the scan on statements of the forms the
// module uses, so that a blind spot shows here.
func TestScannerFindsTables(t *testing.T) {
	p := &sqlText{texts: []string{
		`SELECT a.name FROM agents a LEFT JOIN presence p ON p.slug = ? WHERE a.fold IN (SELECT value FROM json_each(?))`,
		`INSERT OR REPLACE INTO locks(project_id) VALUES (?) ON CONFLICT(project_id) DO NOTHING`,
		`UPDATE recipients SET read_at = ?`,
		`DELETE FROM contacts`,
		`SELECT count(*) FROM main.reservations EXCEPT SELECT 1 FROM rebuilt.?`,
		`CREATE INDEX messages_thread ON messages(project_id, thread)`,
		`CREATE VIRTUAL TABLE messages_fts USING fts5(subject)`,
		`DROP TABLE IF EXISTS objects`,
		`SELECT name FROM sqlite_master; SELECT name FROM pragma_table_info(?)`,
		`no reply from GreenCastle in thread t`,
	}}
	created, used := p.tables()
	if got, want := sortedKeys(created), []string{"messages_fts"}; !slices.Equal(got, want) {
		t.Errorf("created %v, want %v", got, want)
	}
	want := []string{"agents", "contacts", "locks", "messages", "messages_fts", "objects", "presence", "recipients", "reservations"}
	if got := sortedKeys(used); !slices.Equal(got, want) {
		t.Errorf("used %v, want %v", got, want)
	}
}
