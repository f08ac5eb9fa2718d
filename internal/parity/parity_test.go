package parity

import (
	"strings"
	"testing"
)

// An op is one operation as each face spells it. The command line's
// document is the reference (else the HTTP API's); MCP's result must hold it (its results are
// supersets: mcp_agent_mail's fields beside ours), the HTTP API's must be
// it exactly. {NAME} in any face's arguments is replaced by what setup
// returned under NAME (and by the world's names: {M0}, {slug}).
type op struct {
	name  string
	agent string // the acting agent, on every face ({NAME} too)
	// setup runs through the command line before each face's call (the
	// same state for each), and returns the names the calls use; after
	// runs after it.
	setup func(w *world) map[string]string
	after func(w *world, vars map[string]string)

	cli []string // agentmail --json --agent AGENT ...

	tool string         // the MCP tool ...
	args map[string]any // ... and its arguments
	uri  string         // or the MCP resource read instead

	method, path, body string // the HTTP API's route ("": none)

	// pick takes a face's document to the comparable one (nil: as it is).
	pick map[string]func(any) any
	// fresh: the operation writes, and each face makes its own ids,
	// which are renamed before the documents are compared.
	fresh bool
	// vary names the values setup returns that differ from face to face
	// by construction (a channel of each face's own): they are written
	// {NAME} in the documents before they are compared.
	vary []string
	// code and field are the error every face must answer ("": none).
	code, field string
	// why says why a face is missing, or what of its envelope pick takes
	// off.
	why string
}

const (
	faceCLI  = "cli"
	faceMCP  = "mcp"
	faceHTTP = "http"
)

// TestFaceParity runs each operation of ops through the command line,
// MCP and the HTTP API on one store, and compares what they answer.
func TestFaceParity(t *testing.T) {
	w := newWorld(t)
	shared := w.seed()
	w.start()
	shared["slug"] = w.slug
	w.shared = shared
	for _, o := range ops() {
		t.Run(o.name, func(t *testing.T) {
			w.t = t
			replies := map[string]reply{}
			for _, face := range []string{faceCLI, faceMCP, faceHTTP} {
				if face == faceCLI && o.cli == nil || face == faceMCP && o.tool == "" && o.uri == "" || face == faceHTTP && o.method == "" {
					continue
				}
				vars := map[string]string{}
				for k, v := range shared {
					vars[k] = v
				}
				if o.setup != nil {
					for k, v := range o.setup(w) {
						vars[k] = v
					}
				}
				var r reply
				switch face {
				case faceCLI:
					args := make([]string, len(o.cli))
					for i, a := range o.cli {
						args[i] = expand(a, vars)
					}
					r = w.cli(expand(o.agent, vars), args...)
				case faceMCP:
					if o.uri != "" {
						r = w.resource(expand(o.agent, vars), expand(o.uri, vars))
					} else {
						r = w.tool(expand(o.agent, vars), o.tool, expandArgs(o.args, vars))
					}
				case faceHTTP:
					r = w.api(o.method, expand(o.path, vars), expand(o.body, vars))
				}
				if o.after != nil {
					o.after(w, vars)
				}
				if pick := o.pick[face]; pick != nil && r.doc != nil {
					r.doc = pick(r.doc)
				}
				for _, name := range o.vary {
					r.doc = unexpand(r.doc, name, vars[name])
				}
				replies[face] = r
			}
			if len(replies) < 2 {
				t.Fatalf("%s has only one face", o.name)
			}
			// The reference is the command line's answer, else the HTTP
			// API's (MCP's results may hold more than ours).
			refFace := faceCLI
			if _, ok := replies[faceCLI]; !ok {
				refFace = faceHTTP
			}
			ref := replies[refFace]
			keep := make([]string, 0, len(shared))
			for _, v := range shared {
				keep = append(keep, v)
			}
			for _, face := range []string{faceCLI, faceMCP, faceHTTP} {
				r, ok := replies[face]
				if !ok {
					continue
				}
				switch {
				case o.code != "" && r.err == nil:
					t.Errorf("%s succeeded, want %s: %s", face, o.code, r)
				case o.code == "" && r.err != nil:
					t.Errorf("%s failed: %s", face, r)
				case o.code != "":
					if r.err["code"] != o.code || o.field != "" && r.err["field"] != o.field {
						t.Errorf("%s: error %v (field %v), want %s (field %q)", face, r.err["code"], r.err["field"], o.code, o.field)
					}
					if face != refFace && ref.err != nil {
						for _, k := range []string{"code", "field", "values"} {
							// The ids setup made for each face differ.
							if !equalJSON(normalize(r.err[k], keep), normalize(ref.err[k], keep)) {
								t.Errorf("%s: error's %s %s, %s's %s", face, k, short(r.err[k]), refFace, short(ref.err[k]))
							}
						}
					}
				case face != refFace && ref.err == nil:
					want, got := ref.doc, r.doc
					if face == faceMCP {
						got = project(want, got)
					}
					if o.fresh {
						want, got = normalize(want, keep), normalize(got, keep)
					}
					if d := differences(want, got, face == faceMCP); len(d) > 0 {
						t.Errorf("%s's document differs from %s's:\n  %s\n%s: %s\n%s: %s", face, refFace, strings.Join(d, "\n  "), refFace, ref.raw, face, r.raw)
					}
				}
			}
		})
	}
}

// seed registers the agents and writes what the reads read; it returns
// the ids every face may name.
func (w *world) seed() map[string]string {
	for _, a := range []string{"BlueLake", "GreenCastle", "GentleBobcat"} {
		w.ok(nil, "--agent", a, "register", "--program", "parity", "--model", "test")
	}
	var sent struct{ Message struct{ ID string } }
	w.ok(&sent, "--agent", "GreenCastle", "send", "--to", "BlueLake", "--subject", "kickoff plan", "--body", "the plan for the parser")
	w.ok(nil, "--agent", "GreenCastle", "reserve", "docs/**", "--reason", "rewriting the docs")
	w.ok(nil, "--agent", "GreenCastle", "lock", "acquire", "gate")
	w.ok(nil, "--agent", "BlueLake", "subscribe", "news")
	w.ok(nil, "--agent", "GreenCastle", "send", "--to", "BlueLake", "--subject", "named", "--body", "in a thread", "--thread", "lexer-talk")
	var task struct{ Task struct{ ID string } }
	w.ok(&task, "--agent", "GreenCastle", "task", "create", "Write the parser")
	return map[string]string{"M0": sent.Message.ID, "T0": task.Task.ID}
}

// cliID runs a command through the command line and returns the id at
// the top of its document (message.id, task.id, granted.0.id).
func (w *world) cliID(args ...string) string {
	w.t.Helper()
	var doc struct {
		Message struct{ ID string }
		Task    struct{ ID string }
		Granted []struct{ ID string }
	}
	w.ok(&doc, args...)
	switch {
	case doc.Message.ID != "":
		return doc.Message.ID
	case doc.Task.ID != "":
		return doc.Task.ID
	case len(doc.Granted) > 0:
		return doc.Granted[0].ID
	}
	w.t.Fatalf("agentmail %s: no id in its document", strings.Join(args, " "))
	return ""
}

// key returns the value at key of a document, for pick.
func key(k string) func(any) any {
	return func(doc any) any {
		m, _ := doc.(map[string]any)
		return m[k]
	}
}

// rename moves a document's field from to the name to, over the field
// already there: an MCP result whose mcp_agent_mail field has our name
// and its own meaning, with ours under another name.
func rename(from, to string) func(any) any {
	return func(doc any) any {
		m, _ := doc.(map[string]any)
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		out[to] = m[from]
		delete(out, from)
		return out
	}
}
