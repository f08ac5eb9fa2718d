package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/oklog/ulid/v2"
	"golang.org/x/sys/unix"
)

// agentMailSource reads one project of a Python mcp_agent_mail archive.
type agentMailSource struct {
	root   string            // the storage root, for file names in warnings
	dir    string            // the project's directory
	target string            // the slug of the project imported into
	here   map[string]string // agents registered in the target project, by fold
	agents map[string]string // usable profiles in the source, by fold
	bad    map[string]bool   // folded names whose profile is unusable
	rep    *Report
}

func (s *agentMailSource) warn(path, format string, args ...any) {
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		rel = path
	}
	s.rep.Warnings = append(s.rep.Warnings, filepath.ToSlash(rel)+": "+fmt.Sprintf(format, args...))
}

// pyString is a JSON string, number or null, as a string.
type pyString string

func (p *pyString) UnmarshalJSON(b []byte) error {
	// encoding/json has checked that b is one JSON value: a string
	// without escapes, a number and null need no decoder.
	switch {
	case len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0:
		*p = pyString(b[1 : len(b)-1])
		return nil
	case len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9'):
		*p = pyString(b)
		return nil
	case string(b) == "null":
		*p = ""
		return nil
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*p = ""
	case string:
		*p = pyString(x)
	case json.Number:
		*p = pyString(x.String())
	default:
		return fmt.Errorf("want a string or number, got %s", b)
	}
	return nil
}

// jsonError describes a JSON decoding error without Go type names.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("want a JSON object, got %s", te.Value)
		}
		return fmt.Errorf("%s: want %s, got %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return err
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "a list"
	case "bool":
		return "true or false"
	case "struct", "map":
		return "an object"
	case "ptr":
		return "a value"
	}
	return "a " + goKind
}

// parsePyTime reads a Python isoformat() time: RFC 3339 with any fraction
// of a second, or without a zone (then UTC), with "T" or a space.
func parsePyTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 time", s)
}

// derivedID is the ULID an imported record gets: its time, and entropy
// from a hash of the target project, the kind and the original id, so that
// importing again gives the same id.
func (s *agentMailSource) derivedID(kind, orig string, t time.Time) (string, error) {
	if t.Before(time.Unix(0, 0)) {
		return "", fmt.Errorf("time %s is before 1970", t.Format(time.RFC3339))
	}
	sum := sha256.Sum256([]byte("agent-mail\x00" + kind + "\x00" + s.target + "\x00" + orig))
	var u ulid.ULID
	if err := u.SetTime(ulid.Timestamp(t)); err != nil {
		return "", err
	}
	if err := u.SetEntropy(sum[:10]); err != nil {
		return "", err
	}
	return u.String(), nil
}

type pyProfile struct {
	Name       *string `json:"name"`
	Program    string  `json:"program"`
	Model      string  `json:"model"`
	Task       string  `json:"task_description"`
	Inception  string  `json:"inception_ts"`
	LastActive string  `json:"last_active_ts"`
}

// readAgents reads agents/<Name>/profile.json.
func (s *agentMailSource) readAgents() []record.Agent {
	s.agents, s.bad = map[string]string{}, map[string]bool{}
	dir := filepath.Join(s.dir, "agents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warn(dir, "cannot list agents: %v", err)
		}
		return nil
	}
	var out []record.Agent
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name(), "profile.json")
		a, err := readProfile(path, e.Name())
		if err != nil {
			s.warn(path, "%v", err)
			s.rep.Malformed.Agents++
			s.bad[names.Fold(e.Name())] = true
			continue
		}
		fold := names.Fold(a.Name)
		if _, dup := s.agents[fold]; dup {
			s.warn(path, "skipped: a second profile for %s", a.Name)
			s.rep.Malformed.Agents++
			continue
		}
		s.agents[fold] = a.Name
		out = append(out, a)
	}
	return out
}

func readProfile(path, dirName string) (record.Agent, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return record.Agent{}, errors.New("skipped: no profile.json")
	}
	if err != nil {
		return record.Agent{}, fmt.Errorf("skipped: %v", err)
	}
	var p pyProfile
	if err := json.Unmarshal(data, &p); err != nil {
		return record.Agent{}, fmt.Errorf("skipped: not a valid profile: %v", jsonError(err))
	}
	if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
		return record.Agent{}, errors.New("skipped: the profile has no name")
	}
	name, err := names.Parse(*p.Name)
	if err != nil {
		return record.Agent{}, fmt.Errorf("skipped: %v", err)
	}
	if !strings.EqualFold(name, dirName) {
		return record.Agent{}, fmt.Errorf("skipped: the profile names %s but lives under agents/%s", name, dirName)
	}
	reg, err := parsePyTime(p.Inception)
	if err != nil {
		return record.Agent{}, fmt.Errorf("skipped: inception_ts: %v", err)
	}
	last := reg
	if strings.TrimSpace(p.LastActive) != "" {
		if last, err = parsePyTime(p.LastActive); err != nil {
			return record.Agent{}, fmt.Errorf("skipped: last_active_ts: %v", err)
		}
	}
	return record.Agent{Name: name, Program: p.Program, Model: p.Model, Task: p.Task, Registered: reg, Updated: last}, nil
}

// resolveAgent maps a name in a source file to an agent of the target
// project: one registered there or with a usable profile in the source.
func (s *agentMailSource) resolveAgent(raw string) (string, error) {
	name, err := names.Parse(raw)
	if err != nil {
		return "", err
	}
	fold := names.Fold(name)
	if n, ok := s.here[fold]; ok {
		return n, nil
	}
	if n, ok := s.agents[fold]; ok {
		return n, nil
	}
	if s.bad[fold] {
		return "", fmt.Errorf("%s has no usable profile", name)
	}
	return "", fmt.Errorf("%s has no profile and is not registered here", name)
}

type pyMessage struct {
	ID          *pyString         `json:"id"`
	Thread      pyString          `json:"thread_id"`
	From        *string           `json:"from"`
	To          []string          `json:"to"`
	Cc          []string          `json:"cc"`
	Bcc         []string          `json:"bcc"`
	Subject     *string           `json:"subject"`
	Importance  string            `json:"importance"`
	AckRequired bool              `json:"ack_required"`
	Created     *string           `json:"created"`
	Attachments []json.RawMessage `json:"attachments"`
}

// readMessages reads every .md file under messages/ except the thread
// digests in messages/threads/, oldest first. The files are listed first,
// then read and parsed on every processor at once; what each gave is then
// taken in the order of the listing, so that the warnings and the choice
// among duplicates are those of reading them one by one.
func (s *agentMailSource) readMessages() []record.Message {
	dir := filepath.Join(s.dir, "messages")
	type entry struct {
		path    string
		listErr error // the directory could not be listed
		notMD   bool  // not a message file
		// What reading and parsing the file gave.
		msg   record.Message
		drop  bool
		err   error
		warns []string
	}
	var list []*entry
	var paths []*entry // the .md files, to read
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || path != dir {
				list = append(list, &entry{path: path, listErr: err})
			}
			return nil
		}
		if d.IsDir() {
			if path == filepath.Join(dir, "threads") {
				return filepath.SkipDir // the server's per-thread digests, not messages
			}
			return nil
		}
		e := &entry{path: path, notMD: !strings.HasSuffix(d.Name(), ".md")}
		list = append(list, e)
		if !e.notMD {
			paths = append(paths, e)
		}
		return nil
	})
	if err != nil {
		s.warn(dir, "could not read every message: %v", err)
	}
	readers := make([]dirReader, runtime.GOMAXPROCS(0)) // one a worker
	for i := range readers {
		readers[i].fd = -1
	}
	parallel(len(paths), func(worker, i int) {
		e := paths[i]
		e.msg, e.drop, e.err = s.readMessage(&readers[worker], e.path, func(format string, args ...any) {
			e.warns = append(e.warns, fmt.Sprintf(format, args...))
		})
	})
	for i := range readers {
		readers[i].close()
	}

	var out []record.Message
	seen := map[string]string{} // derived id -> file
	for _, e := range list {
		for _, w := range e.warns {
			s.warn(e.path, "%s", w)
		}
		switch {
		case e.listErr != nil:
			s.warn(e.path, "skipped: %v", e.listErr)
			continue
		case e.notMD:
			s.warn(e.path, "skipped: not a message file (.md)")
			s.rep.Malformed.Messages++
			continue
		case e.err != nil:
			s.warn(e.path, "skipped: %v", e.err)
			s.rep.Malformed.Messages++
			continue
		case e.drop:
			s.rep.Malformed.Messages++
			continue
		}
		if first, dup := seen[e.msg.ID]; dup {
			s.warn(e.path, "skipped: the same message as %s", first)
			s.rep.Skipped.Messages++
			continue
		}
		rel, _ := filepath.Rel(s.root, e.path)
		seen[e.msg.ID] = filepath.ToSlash(rel)
		out = append(out, e.msg)
	}
	slices.SortFunc(out, func(a, b record.Message) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// dirReader reads files one after another into a buffer of its own,
// opening each through its directory's descriptor, kept open while the
// files come from it: reading the 100,000 files of a corpus so took half
// the cpu of os.ReadFile (which resolves every path from the root, stats
// the file and allocates for each).
type dirReader struct {
	dir string // the directory fd is open on
	fd  int    // -1: none
	buf []byte
}

// read returns the content of the file at path, in r's buffer: valid until
// the next read. Whatever fails is read again with os.ReadFile, for its
// error.
func (r *dirReader) read(path string) ([]byte, error) {
	if data, ok := r.readAt(path); ok {
		return data, nil
	}
	return os.ReadFile(path)
}

func (r *dirReader) readAt(path string) ([]byte, bool) {
	dir, name := filepath.Split(path)
	if dir != r.dir || r.fd < 0 {
		r.close()
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, false
		}
		r.dir, r.fd = dir, fd
	}
	fd, err := unix.Openat(r.fd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 64<<10)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, 0)[:n]
			r.buf = r.buf[:cap(r.buf)]
		}
		k, err := unix.Read(fd, r.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if k == 0 {
			return r.buf[:n], true
		}
		n += k
	}
}

func (r *dirReader) close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
	r.dir, r.fd = "", -1
}

// parallel calls fn(worker, i) for every i in [0, n), on as many
// goroutines as there are processors (worker numbers the goroutine, from
// 0), and returns when all calls have.
func parallel(n int, fn func(worker, i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}

// splitPyMessage splits a message file into its JSON front matter and its
// body: "---json\n{...}\n---\n\n" then the body, kept exactly as the file
// holds it (the server ends it with one newline).
func splitPyMessage(data []byte) (head []byte, body string, err error) {
	s := string(data)
	rest, ok := strings.CutPrefix(s, "---json\n")
	if !ok {
		return nil, "", errors.New(`no front matter (the file does not start with a "---json" line)`)
	}
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		return nil, "", errors.New(`front matter not closed by a "---" line`)
	}
	h, b := rest[:end+1], rest[end+5:]
	if b != "" {
		if b, ok = strings.CutPrefix(b, "\n"); !ok {
			return nil, "", errors.New("no blank line after the front matter")
		}
	}
	return []byte(h), b, nil
}

// readMessage parses one message file, telling warn what it imports
// otherwise than the file says. drop reports a message with no usable
// recipient left (warned about). It only reads s, so that files may be
// read at once.
func (s *agentMailSource) readMessage(r *dirReader, path string, warn func(format string, args ...any)) (msg record.Message, drop bool, err error) {
	data, err := r.read(path) // r's: splitPyMessage copies what it keeps
	if err != nil {
		return msg, false, err
	}
	head, body, err := splitPyMessage(data)
	if err != nil {
		return msg, false, err
	}
	var p pyMessage
	if err := json.Unmarshal(head, &p); err != nil {
		return msg, false, fmt.Errorf("front matter is not valid JSON: %v", jsonError(err))
	}
	var missing []string
	if p.ID == nil || *p.ID == "" {
		missing = append(missing, "id")
	}
	if p.From == nil || strings.TrimSpace(*p.From) == "" {
		missing = append(missing, "from")
	}
	if p.Created == nil {
		missing = append(missing, "created")
	}
	if p.Subject == nil {
		missing = append(missing, "subject")
	}
	if p.To == nil && p.Cc == nil && p.Bcc == nil {
		missing = append(missing, "to")
	}
	if len(missing) > 0 {
		return msg, false, fmt.Errorf("front matter lacks %s", strings.Join(missing, ", "))
	}
	orig := string(*p.ID)
	created, err := parsePyTime(*p.Created)
	if err != nil {
		return msg, false, fmt.Errorf("created: %v", err)
	}
	if !utf8.ValidString(body) {
		return msg, false, errors.New("the body is not valid UTF-8")
	}
	from, err := s.resolveAgent(strings.TrimSpace(*p.From))
	if err != nil {
		return msg, false, fmt.Errorf("sender: %v", err)
	}
	msg = record.Message{From: from, Body: body, AckRequired: p.AckRequired, Created: created}
	if msg.ID, err = s.derivedID("message", orig, created); err != nil {
		return msg, false, fmt.Errorf("created: %v", err)
	}
	recipients := func(field string, list []string) []string {
		var out []string
		for _, raw := range list {
			n, err := s.resolveAgent(strings.TrimSpace(raw))
			if err != nil {
				warn("recipient dropped (%s): %v", field, err)
				continue
			}
			out = append(out, n)
		}
		return out
	}
	msg.To, msg.Cc, msg.Bcc = recipients("to", p.To), recipients("cc", p.Cc), recipients("bcc", p.Bcc)
	if len(msg.To)+len(msg.Cc)+len(msg.Bcc) == 0 {
		warn("skipped: no recipient left")
		return msg, true, nil
	}

	// Python groups a reply to a message without a thread under that
	// message's id; so does the import.
	msg.Thread = strings.TrimSpace(string(p.Thread))
	if msg.Thread == "" {
		msg.Thread = orig
	}
	if utf8.RuneCountInString(msg.Thread) > mailbox.MaxThread || strings.IndexFunc(msg.Thread, unicode.IsControl) >= 0 {
		warn("thread_id is longer than %d characters or not one line; filed under the message's own id", mailbox.MaxThread)
		msg.Thread = orig
	}
	msg.Subject = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(*p.Subject))
	if msg.Subject == "" {
		msg.Subject = "(no subject)"
	}
	if utf8.RuneCountInString(msg.Subject) > mailbox.MaxSubject {
		warn("subject cut to %d characters", mailbox.MaxSubject)
		msg.Subject = strings.TrimSpace(string([]rune(msg.Subject)[:mailbox.MaxSubject]))
	}
	msg.Importance = strings.ToLower(strings.TrimSpace(p.Importance))
	if msg.Importance != "" && !slices.Contains(mailbox.Importances, msg.Importance) {
		warn("unknown importance %q imported as normal", p.Importance)
		msg.Importance = "normal"
	}
	if len(p.Attachments) > 0 {
		warn("%s not imported (the body keeps its links; the files stay in the source)", plural(len(p.Attachments), "attachment"))
	}
	return msg, false, nil
}

type pyReservation struct {
	ID        *pyString `json:"id"`
	Agent     *string   `json:"agent"`
	Pattern   *string   `json:"path_pattern"`
	Exclusive *bool     `json:"exclusive"`
	Reason    string    `json:"reason"`
	Created   *string   `json:"created_ts"`
	Expires   *string   `json:"expires_ts"`
	Released  *string   `json:"released_ts"`
}

// readReservations reads file_reservations/*.json. The server writes each
// reservation twice (id-<N>.json and <sha1 of the pattern>.json); copies of
// one id count once, the released one winning.
func (s *agentMailSource) readReservations(isDir func(string) bool) []record.Reservation {
	dir := filepath.Join(s.dir, "file_reservations")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warn(dir, "cannot list reservations: %v", err)
		}
		return nil
	}
	byID := map[string]record.Reservation{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			s.warn(path, "skipped: not a reservation file (.json)")
			s.rep.Malformed.Reservations++
			continue
		}
		r, err := s.readReservation(path, isDir)
		if err != nil {
			s.warn(path, "skipped: %v", err)
			s.rep.Malformed.Reservations++
			continue
		}
		if prev, ok := byID[r.ID]; ok && (!prev.Released.IsZero() || r.Released.IsZero()) {
			continue
		}
		byID[r.ID] = r
	}
	out := make([]record.Reservation, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b record.Reservation) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (s *agentMailSource) readReservation(path string, isDir func(string) bool) (record.Reservation, error) {
	var r record.Reservation
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	var p pyReservation
	if err := json.Unmarshal(data, &p); err != nil {
		return r, fmt.Errorf("not a valid reservation: %v", jsonError(err))
	}
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"id", p.ID != nil && *p.ID != ""}, {"agent", p.Agent != nil}, {"path_pattern", p.Pattern != nil},
		{"created_ts", p.Created != nil}, {"expires_ts", p.Expires != nil}} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return r, fmt.Errorf("lacks %s", strings.Join(missing, ", "))
	}
	if r.Created, err = parsePyTime(*p.Created); err != nil {
		return r, fmt.Errorf("created_ts: %v", err)
	}
	if r.Expires, err = parsePyTime(*p.Expires); err != nil {
		return r, fmt.Errorf("expires_ts: %v", err)
	}
	if p.Released != nil {
		if r.Released, err = parsePyTime(*p.Released); err != nil {
			return r, fmt.Errorf("released_ts: %v", err)
		}
	}
	if r.Agent, err = s.resolveAgent(strings.TrimSpace(*p.Agent)); err != nil {
		return r, fmt.Errorf("holder: %v", err)
	}
	if r.Pattern, err = glob.NormalizePattern(*p.Pattern, isDir); err != nil {
		return r, err
	}
	if _, err := glob.Compile(r.Pattern); err != nil {
		return r, err
	}
	r.Exclusive = p.Exclusive == nil || *p.Exclusive
	r.Reason = p.Reason
	if r.ID, err = s.derivedID("reservation", string(*p.ID), r.Created); err != nil {
		return r, fmt.Errorf("created_ts: %v", err)
	}
	return r, nil
}
