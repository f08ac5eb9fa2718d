package setup

import (
	"testing"
)

// Adding a member follows the layout of the object it goes in, and taking
// it out (without a record) gives the original bytes back.
func TestJSONInsertRemove(t *testing.T) {
	entry := map[string]any{"command": "am"}
	for _, tt := range []struct{ name, src, want string }{
		{"empty object", `{"s": {}}`,
			"{\"s\": {\n  \"agentmail\": {\n    \"command\": \"am\"\n  }\n}}"},
		{"empty object with a space", `{"s": { }}`,
			"{\"s\": {\n  \"agentmail\": {\n    \"command\": \"am\"\n  }\n }}"},
		{"one line", `{"s": {"a": 1}}`,
			`{"s": {"a": 1, "agentmail": {"command":"am"}}}`},
		{"one line, trailing comma", `{"s": {"a": 1,}}`,
			`{"s": {"a": 1, "agentmail": {"command":"am"},}}`},
		{"tabs", "{\n\t\"s\": {\n\t\t\"a\": 1\n\t}\n}",
			"{\n\t\"s\": {\n\t\t\"a\": 1,\n\t\t\"agentmail\": {\n\t\t\t\"command\": \"am\"\n\t\t}\n\t}\n}"},
		{"comment after the last member", "{\n  \"s\": {\n    \"a\": 1 // one\n  }\n}",
			"{\n  \"s\": {\n    \"a\": 1,\n    \"agentmail\": {\n      \"command\": \"am\"\n    } // one\n  }\n}"},
		{"trailing comma and a comment", "{\n  \"s\": {\n    \"a\": 1, // one\n    /* end */\n  },\n}",
			"{\n  \"s\": {\n    \"a\": 1,\n    \"agentmail\": {\n      \"command\": \"am\"\n    }, // one\n    /* end */\n  },\n}"},
		{"a comment in the empty object", "{\n  \"s\": {\n    // none yet\n  }\n}",
			"{\n  \"s\": {\n    \"agentmail\": {\n      \"command\": \"am\"\n    }\n    // none yet\n  }\n}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ed := jsonServer{jsonc, []string{"s", "agentmail"}, entry}
			out, err := ed.add([]byte(tt.src), false)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("add:\n%s\nwant:\n%s", out, tt.want)
			}
			// Taking it out of its object is the inverse (ed.remove would
			// also drop an object left empty).
			f, err := parseJSON(out, jsonc)
			if err != nil {
				t.Fatal(err)
			}
			parent, _, err := f.object([]string{"s"})
			if err != nil {
				t.Fatal(err)
			}
			back := f.remove(parent, len(parent.items)-1).apply(out)
			if string(back) != tt.src {
				t.Errorf("remove:\n%s\nwant:\n%s", back, tt.src)
			}
		})
	}
}

// Taking out a member that is not the last one, as someone may have moved
// ours, leaves the others and their commas right.
func TestJSONRemoveAnywhere(t *testing.T) {
	ed := jsonServer{plainJSON, []string{"s", "agentmail"}, map[string]any{}}
	for _, tt := range []struct{ src, want string }{
		{"{\"s\": {\n  \"agentmail\": {},\n  \"b\": 2\n}}", "{\"s\": {\n  \"b\": 2\n}}"},
		{"{\"s\": {\"a\": 1, \"agentmail\": {}, \"b\": 2}}", "{\"s\": {\"a\": 1, \"b\": 2}}"},
		{"{\"s\": {\"agentmail\": {}}, \"t\": 1}", "{\"t\": 1}"},
		{"{\"s\": {\"a\": 1}}", "{\"s\": {\"a\": 1}}"},
	} {
		out, err := ed.remove([]byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if string(out) != tt.want {
			t.Errorf("remove from %s:\n%s\nwant:\n%s", tt.src, out, tt.want)
		}
	}
}
