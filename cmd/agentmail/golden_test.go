package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/testscript"
)

// goldenDir holds the expected --json documents of the journeys.
var goldenDir = filepath.Join("..", "..", "testdata", "golden")

// golden FILE NAME compares the JSON document in FILE (stdout, stderr or a
// file), normalized, byte for byte with testdata/golden/NAME.json. With
// UPDATE_GOLDEN=1 in the test's environment it writes that file instead.
// Run the journeys on a stopped clock (AGENTMAIL_NOW, see tick): times are
// compared as they are.
func cmdGolden(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: golden FILE NAME")
	}
	doc := ts.ReadFile(args[0])
	if !json.Valid([]byte(doc)) {
		ts.Fatalf("%s: not a JSON document:\n%s", args[0], doc)
	}
	got := normalizeDocument(doc, ts.Getenv("WORK"), agentmailPath(ts))
	path := filepath.Join(goldenDir, args[1]+".json")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		ts.Check(os.MkdirAll(goldenDir, 0o755))
		ts.Check(os.WriteFile(path, []byte(got), 0o644))
		ts.Logf("wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		ts.Fatalf("no golden file %s (run the test with UPDATE_GOLDEN=1 to write it):\n%s", path, got)
	}
	ts.Check(err)
	if got != string(want) {
		ts.Fatalf("%s differs from %s (UPDATE_GOLDEN=1 rewrites it, if the change is meant):\n%s",
			args[0], path, diff.Diff(path, want, args[0], []byte(got)))
	}
}

var (
	// A ULID: 26 Crockford base-32 digits, the first at most 7 (48 bits of
	// milliseconds).
	ulidPattern = regexp.MustCompile(`\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b`)
	// A git object name.
	hashPattern = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
)

// normalizeDocument replaces what differs from run to run in a journey's
// document, and nothing else: the script's directory work by $WORK and the
// binary's path exe by $AGENTMAIL; the 8 hex digits of SHA-1 that end the
// slug of a project keyed by a path in work by <sha1 PATH>; then each ULID
// by <ID1>, <ID2>... and each commit hash by <H1>, <H2>... in order of
// first appearance, so that equal ids stay equal and different ones
// different.
func normalizeDocument(doc, work, exe string) string {
	if work != "" {
		keys := regexp.MustCompile(`"(`+regexp.QuoteMeta(work)+`(?:/[^"\\]*)?)"`).FindAllStringSubmatch(doc, -1)
		for _, k := range keys {
			doc = strings.ReplaceAll(doc, "-"+sha1Hex8(k[1]), "-<sha1 "+strings.Replace(k[1], work, "$WORK", 1)+">")
		}
	}
	// The longer path first (strings.Replacer tries them in order): one
	// may contain the other.
	paths := [][2]string{{work, "$WORK"}, {exe, "$AGENTMAIL"}}
	slices.SortFunc(paths, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var oldnew []string
	for _, p := range paths {
		if p[0] != "" {
			oldnew = append(oldnew, p[0], p[1])
		}
	}
	doc = strings.NewReplacer(oldnew...).Replace(doc)
	doc = number(doc, hashPattern, "H")
	return number(doc, ulidPattern, "ID")
}

// number replaces each distinct match of re in s by <PREFIXn>, n counting
// from 1 in order of first appearance.
func number(s string, re *regexp.Regexp, prefix string) string {
	seen := map[string]string{}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if p, ok := seen[m]; ok {
			return p
		}
		seen[m] = fmt.Sprintf("<%s%d>", prefix, len(seen)+1)
		return seen[m]
	})
}

// tick [DURATION] moves the stopped clock of AGENTMAIL_NOW on by DURATION
// (default 1s), so that each write of a journey has a time of its own and
// the same time on every run.
func cmdTick(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: tick [DURATION]")
	}
	now, err := time.Parse(time.RFC3339, ts.Getenv("AGENTMAIL_NOW"))
	if err != nil {
		ts.Fatalf("tick: AGENTMAIL_NOW is not a time: %v", err)
	}
	d := time.Second
	if len(args) == 1 {
		d, err = time.ParseDuration(args[0])
		ts.Check(err)
	}
	ts.Setenv("AGENTMAIL_NOW", now.Add(d).UTC().Format(time.RFC3339))
}

func TestNormalizeDocument(t *testing.T) {
	const (
		id1  = "01KABCDEFGHJKMNPQRSTVWXYZ0"
		id2  = "01KABCDEFGHJKMNPQRSTVWXYZ1"
		h1   = "0123456789abcdef0123456789abcdef01234567"
		h2   = "89abcdef0123456789abcdef0123456789abcdef"
		work = "/tmp/script-x"
	)
	for _, c := range []struct {
		name, in, want string
	}{
		{"ids numbered by first appearance, repeats kept",
			`{"id":"` + id2 + `","thread":"` + id1 + `","reply_to":"` + id2 + `"}`,
			`{"id":"<ID1>","thread":"<ID2>","reply_to":"<ID1>"}`},
		{"ids inside paths",
			`"path":"projects/x/messages/2026/11/22/` + id1 + `-hello.md"`,
			`"path":"projects/x/messages/2026/11/22/<ID1>-hello.md"`},
		{"hashes apart from ids",
			`{"commit":"` + h1 + `","head":"` + h2 + `","again":"` + h1 + `","id":"` + id1 + `"}`,
			`{"commit":"<H1>","head":"<H2>","again":"<H1>","id":"<ID1>"}`},
		{"the work directory, the longer path first",
			`{"store":"` + work + `/.store","bin":"` + work + `-bin/agentmail"}`,
			`{"store":"$WORK/.store","bin":"$AGENTMAIL"}`},
		{"the slug of a project keyed by a path in $WORK",
			`{"key":"` + work + `/repo","slug":"repo-` + sha1Hex8(work+"/repo") + `","in":"in project repo-` + sha1Hex8(work+"/repo") + `: x","other":"shop-` + sha1Hex8(work+"/shop") + `"}`,
			`{"key":"$WORK/repo","slug":"repo-<sha1 $WORK/repo>","in":"in project repo-<sha1 $WORK/repo>: x","other":"shop-` + sha1Hex8(work+"/shop") + `"}`},
		{"nothing else: times, prefixes, words, numbers",
			`{"created":"2026-11-22T10:00:00Z","prefix":"01KABCDE","code":"RESERVATION_CONFLICT","n":1234567890123456789012345}`,
			`{"created":"2026-11-22T10:00:00Z","prefix":"01KABCDE","code":"RESERVATION_CONFLICT","n":1234567890123456789012345}`},
		{"not a ULID: too long, lowercase, starts above 7, a longer hex run",
			`"` + id1 + `Z" "01kabcdefghjkmnpqrstvwxyz0" "81KABCDEFGHJKMNPQRSTVWXYZ0" "` + h1 + `0"`,
			`"` + id1 + `Z" "01kabcdefghjkmnpqrstvwxyz0" "81KABCDEFGHJKMNPQRSTVWXYZ0" "` + h1 + `0"`},
	} {
		got := normalizeDocument(c.in, work, work+"-bin/agentmail")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func sha1Hex8(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// Each golden file is compared by one journey step: none lies unused, and
// none is written by two steps (UPDATE_GOLDEN would keep only the last).
func TestGoldenFilesAreUsed(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:\[[^]]*\]\s*)?golden \S+ (\S+)\s*$`).FindAllStringSubmatch(all.String(), -1) {
		if used[m[1]] {
			t.Errorf("golden %s: compared by two steps", m[1])
		}
		used[m[1]] = true
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !used[name] {
			t.Errorf("%s: no journey compares a document with it", f)
		}
	}
}

func TestJSONExtends(t *testing.T) {
	for _, tc := range []struct {
		new, old string
		ok       bool
	}{
		{`{"a":1,"b":null}`, `{"a":1}`, true},
		{`{"a":[{"x":"y","z":1}]}`, `{"a":[{"x":"y"}]}`, true},
		{`{"a":2}`, `{"a":1}`, false},
		{`{"b":1}`, `{"a":1}`, false},
		{`{"a":[1,2]}`, `{"a":[1]}`, false},
		{`{"a":"1"}`, `{"a":{"x":1}}`, false},
	} {
		var n, o any
		if err := json.Unmarshal([]byte(tc.new), &n); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.old), &o); err != nil {
			t.Fatal(err)
		}
		if got := jsonExtends(n, o, "$") == ""; got != tc.ok {
			t.Errorf("jsonExtends(%s, %s) = %v, want %v", tc.new, tc.old, got, tc.ok)
		}
	}
}
