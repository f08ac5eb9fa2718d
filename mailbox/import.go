package mailbox

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/reservations"
	"github.com/oklog/ulid/v2"
)

// ImportedAgent is an identity brought over from another mail system.
type ImportedAgent struct {
	Name       string // a valid agent name (see internal/names)
	Program    string
	Model      string
	Task       string
	Registered time.Time
	LastActive time.Time // zero means Registered
}

// ImportedMessage is a message brought over from another mail system, with
// its own id (a ULID), time, thread and sender.
type ImportedMessage struct {
	ID          string
	Thread      string // "" files it under its own id
	From        string
	To, Cc, Bcc []string
	Subject     string
	Body        string // stored byte for byte
	Importance  string // "" means normal
	AckRequired bool
	Created     time.Time
}

// ImportedReservation is a file reservation brought over from another
// system, with its own id (a ULID) and times.
type ImportedReservation struct {
	ID        string
	Agent     string
	Pattern   string // a normalized pattern (reservations.NormalizePattern)
	Exclusive bool
	Reason    string
	Created   time.Time
	Expires   time.Time
	Released  time.Time // zero while not released
}

// ImportBatch is what one Import call writes, as one archive commit.
type ImportBatch struct {
	Source       string // names the origin in the commit subject, such as "agent-mail"
	Agents       []ImportedAgent
	Messages     []ImportedMessage
	Reservations []ImportedReservation
}

// ImportCounts counts records of each kind.
type ImportCounts struct {
	Agents       int
	Messages     int
	Reservations int
}

func (c *ImportCounts) add(o ImportCounts) {
	c.Agents += o.Agents
	c.Messages += o.Messages
	c.Reservations += o.Reservations
}

// Import writes a batch of records from another system as one archive
// commit, keeping their ids, times, threads and senders. Records already in
// the project (an agent of the same name, a message or reservation of the
// same id) are left alone and counted in present, so importing the same
// batch twice writes nothing the second time. Every sender, recipient and
// reservation holder must be registered or among b.Agents, and messages
// obey the rules of Send (subject, importance, thread, UTF-8) except that
// their time, id and sender are given. On any error nothing is written.
func (m *Mailbox) Import(ctx context.Context, b ImportBatch) (written, present ImportCounts, err error) {
	pid := m.pid
	err = m.st.Update(ctx, func(tx *store.Tx) error {
		written, present = ImportCounts{}, ImportCounts{}
		if err := m.ensureProject(tx); err != nil {
			return err
		}
		known := map[string]string{} // fold -> name, for agents of this batch
		for _, a := range b.Agents {
			rec, err := m.importAgent(a)
			if err != nil {
				return err
			}
			fold := names.Fold(rec.Name)
			if _, dup := known[fold]; dup {
				present.Agents++
				continue
			}
			if _, ok, err := m.lookupAgent(ctx, tx, rec.Name); err != nil {
				return err
			} else if ok {
				present.Agents++
				continue
			}
			known[fold] = rec.Name
			tx.Put(rec)
			written.Agents++
		}
		resolve := func(name string) (string, error) {
			if n, ok := known[names.Fold(name)]; ok {
				return n, nil
			}
			a, ok, err := m.lookupAgent(ctx, tx, name)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", m.unknownRecipient(ctx, tx, name)
			}
			known[names.Fold(name)] = a.Name
			return a.Name, nil
		}
		seen := map[string]bool{} // ids of this batch
		for _, im := range b.Messages {
			if seen[im.ID] {
				present.Messages++
				continue
			}
			seen[im.ID] = true
			if ok, err := exists(ctx, tx, `SELECT 1 FROM messages WHERE id = ?`, im.ID); err != nil {
				return err
			} else if ok {
				present.Messages++
				continue
			}
			rec, err := m.importMessage(im, resolve)
			if err != nil {
				return fmt.Errorf("import message %s: %w", im.ID, err)
			}
			tx.Put(rec)
			written.Messages++
		}
		for _, ir := range b.Reservations {
			if seen[ir.ID] {
				present.Reservations++
				continue
			}
			seen[ir.ID] = true
			if ok, err := exists(ctx, tx, `SELECT 1 FROM reservations WHERE id = ?`, ir.ID); err != nil {
				return err
			} else if ok {
				present.Reservations++
				continue
			}
			rec, err := m.importReservation(ir, resolve)
			if err != nil {
				return fmt.Errorf("import reservation %s: %w", ir.ID, err)
			}
			tx.Put(rec)
			written.Reservations++
		}
		tx.Describe("agentmail", importSubject(b.Source, written))
		return nil
	})
	if err != nil {
		m.pid = pid // a project row created in the rolled-back transaction is gone
	}
	return written, present, err
}

func exists(ctx context.Context, q queryer, query string, args ...any) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// importSubject is the commit subject of an import batch:
// "import: agent-mail 3 agents, 500 messages".
func importSubject(source string, c ImportCounts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.Agents, "agent"}, {c.Messages, "message"}, {c.Reservations, "reservation"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.what))
		}
	}
	if len(parts) == 0 {
		parts = []string{"project"}
	}
	return strings.TrimSpace("import: " + source + " " + strings.Join(parts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (m *Mailbox) importAgent(a ImportedAgent) (*record.Agent, error) {
	name, err := names.Parse(a.Name)
	if err != nil {
		return nil, fmt.Errorf("import agent: %w", err)
	}
	if a.Registered.IsZero() {
		return nil, invalid("agent "+name+" has no registration time", "give every imported agent its registration time")
	}
	reg := a.Registered.UTC().Truncate(time.Second)
	upd := reg
	if !a.LastActive.IsZero() {
		upd = a.LastActive.UTC().Truncate(time.Second)
	}
	return &record.Agent{Project: m.proj.Slug, Name: name, Program: a.Program, Model: a.Model, Task: a.Task,
		Registered: reg, Updated: upd}, nil
}

func (m *Mailbox) importMessage(im ImportedMessage, resolve func(string) (string, error)) (*record.Message, error) {
	id, err := ulid.ParseStrict(im.ID)
	if err != nil {
		return nil, invalid(fmt.Sprintf("%q is not a ULID", im.ID), "imported messages need ULID ids")
	}
	if im.Created.IsZero() {
		return nil, invalid("no creation time", "give every imported message its time")
	}
	// The contact policy finds recent mail by id (see relatedQuery).
	if created := im.Created.UTC().Truncate(time.Second); ulid.Time(id.Time()).Before(created) {
		return nil, invalid(fmt.Sprintf("id %s names a time before the message was created (%s)", im.ID, record.FormatTime(created)),
			"give an imported message an id of its creation time or later")
	}
	d := Draft{To: im.To, Cc: im.Cc, Bcc: im.Bcc, Subject: im.Subject, Body: im.Body, Thread: im.Thread,
		Importance: im.Importance, AckRequired: im.AckRequired}
	if err := d.validate(); err != nil {
		return nil, err
	}
	from, err := resolve(im.From)
	if err != nil {
		return nil, err
	}
	to, cc, bcc, err := recipientLists(d, func(raw string) ([]string, error) {
		n, err := resolve(raw)
		return []string{n}, err
	})
	if err != nil {
		return nil, err
	}
	return &record.Message{
		Project: m.proj.Slug, ID: im.ID, Thread: d.Thread, From: from, To: to, Cc: cc, Bcc: bcc,
		Subject: d.Subject, Importance: d.Importance, AckRequired: d.AckRequired,
		Created: im.Created.UTC().Truncate(time.Second), Body: d.Body,
	}, nil
}

func (m *Mailbox) importReservation(ir ImportedReservation, resolve func(string) (string, error)) (*record.Reservation, error) {
	if _, err := ulid.ParseStrict(ir.ID); err != nil {
		return nil, invalid(fmt.Sprintf("%q is not a ULID", ir.ID), "imported reservations need ULID ids")
	}
	if ir.Created.IsZero() || ir.Expires.IsZero() {
		return nil, invalid("no creation or expiry time", "give every imported reservation its times")
	}
	if _, err := reservations.Compile(ir.Pattern); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	agent, err := resolve(ir.Agent)
	if err != nil {
		return nil, err
	}
	r := &record.Reservation{Project: m.proj.Slug, ID: ir.ID, Agent: agent, Pattern: ir.Pattern, Exclusive: ir.Exclusive,
		Reason: ir.Reason, Created: ir.Created.UTC().Truncate(time.Second), Expires: ir.Expires.UTC().Truncate(time.Second)}
	if !ir.Released.IsZero() {
		r.Released = ir.Released.UTC().Truncate(time.Second)
	}
	return r, nil
}

// DefaultImportBatch is how many records ImportAgentMail writes per archive
// commit.
const DefaultImportBatch = 500

// AgentMailOptions tune ImportAgentMail.
type AgentMailOptions struct {
	// SourceProject is the slug, under DIR/projects, of the project to
	// import; needed when DIR holds more than one.
	SourceProject string
	// BatchSize is the number of records per archive commit; 0 means
	// DefaultImportBatch.
	BatchSize int
	// Progress, when set, is told how many of the total records (agents,
	// messages and reservations read from the source) are done: once
	// before the first batch, then after each.
	Progress func(done, total int)
}

// ImportReport is what an import did.
type ImportReport struct {
	Dir       string       // the source directory, absolute
	Source    string       // the slug of the imported project in the source
	Imported  ImportCounts // written now
	Skipped   ImportCounts // already present: imported before, or registered here
	Malformed ImportCounts // files that could not be used; each has a warning
	Warnings  []string     // "file: reason", the file relative to Dir
}

// ImportAgentMail imports into the mailbox's project one project of an
// archive written by the Python mcp_agent_mail server, given its storage
// root dir (or the project's own directory under dir/projects):
//
//	projects/<slug>/agents/<Name>/profile.json        agents
//	projects/<slug>/messages/YYYY/MM/<...>.md          messages (JSON front matter)
//	projects/<slug>/file_reservations/*.json           file reservations
//
// The inbox and outbox copies under agents/<Name>/ are not read: they are
// byte-identical copies of the canonical files.
//
// Messages keep their time, sender, recipients, subject, importance, ack
// request, body and thread: a message without a thread_id is filed under
// its original id, which is how the Python server groups replies to it.
// Each gets a ULID made of its time and a hash of the project and its
// original id, so importing again finds it already present: the import is
// idempotent. Reservations likewise, and agents by name.
//
// A file that cannot be used (unreadable JSON, missing fields, an agent
// name agentmail does not accept, a sender with no profile) is skipped with
// a warning naming it; a recipient with no usable profile is dropped from
// its message with a warning (and the message skipped if none is left).
// Records are written in batches of opts.BatchSize, one archive commit
// each.
func (m *Mailbox) ImportAgentMail(ctx context.Context, dir string, opts AgentMailOptions) (ImportReport, error) {
	rep := ImportReport{Warnings: []string{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return rep, err
	}
	rep.Dir = abs
	projDir, slug, err := agentMailProject(abs, strings.TrimSpace(opts.SourceProject))
	if err != nil {
		return rep, err
	}
	rep.Source = slug
	src := &agentMailSource{root: abs, dir: projDir, target: m.proj.Slug, rep: &rep}
	if src.here, err = m.agentNames(ctx); err != nil {
		return rep, err
	}
	agents := src.readAgents()
	msgs := src.readMessages()
	var isDir func(string) bool
	if root := m.proj.Root; root != "" {
		isDir = func(rel string) bool {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
			return err == nil && fi.IsDir()
		}
	}
	res := src.readReservations(isDir)

	size := opts.BatchSize
	if size <= 0 {
		size = DefaultImportBatch
	}
	batch := ImportBatch{Source: "agent-mail"}
	n, done, total := 0, 0, len(agents)+len(msgs)+len(res)
	progress := func() {
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	progress()
	flush := func() error {
		if n == 0 {
			return nil
		}
		written, present, err := m.Import(ctx, batch)
		if err != nil {
			return err
		}
		rep.Imported.add(written)
		rep.Skipped.add(present)
		done += n
		progress()
		batch, n = ImportBatch{Source: "agent-mail"}, 0
		return nil
	}
	full := func() error {
		if n++; n >= size {
			return flush()
		}
		return nil
	}
	for _, a := range agents {
		batch.Agents = append(batch.Agents, a)
		if err := full(); err != nil {
			return rep, err
		}
	}
	for _, msg := range msgs {
		batch.Messages = append(batch.Messages, msg)
		if err := full(); err != nil {
			return rep, err
		}
	}
	for _, r := range res {
		batch.Reservations = append(batch.Reservations, r)
		if err := full(); err != nil {
			return rep, err
		}
	}
	return rep, flush()
}

// agentNames returns the project's registered agents by folded name.
func (m *Mailbox) agentNames(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	if m.pid == 0 {
		return out, nil
	}
	rows, err := m.st.DB().QueryContext(ctx, `SELECT name FROM agents WHERE project_id = ?`, m.pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[names.Fold(n)] = n
	}
	return out, rows.Err()
}

// agentMailProject finds the project directory to import under root: the
// only one under root/projects, the one named want, or root itself when it
// is a project directory.
func agentMailProject(root, want string) (dir, slug string, err error) {
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return "", "", fault.WithHint(fmt.Errorf("%w: %s is not a directory", ErrInvalidArgument, root),
			"pass the storage root of the mcp_agent_mail server (its STORAGE_ROOT)")
	}
	entries, err := os.ReadDir(filepath.Join(root, "projects"))
	if errors.Is(err, fs.ErrNotExist) {
		if dirExists(filepath.Join(root, "messages")) || dirExists(filepath.Join(root, "agents")) {
			slug = filepath.Base(root)
			if want != "" && want != slug {
				return "", "", fault.WithHint(fmt.Errorf("%w: %s is the agent-mail project %s, not %s", ErrInvalidArgument, root, slug, want),
					"drop --source-project, or pass the storage root that holds projects/"+want)
			}
			return root, slug, nil
		}
		return "", "", fault.WithHint(fmt.Errorf("%w: %s is not an mcp_agent_mail archive (it has no projects/ directory)", ErrInvalidArgument, root),
			"pass the server's storage root (its STORAGE_ROOT), which holds projects/<slug>/messages")
	}
	if err != nil {
		return "", "", err
	}
	var slugs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			slugs = append(slugs, e.Name())
		}
	}
	switch {
	case want != "":
		if !slices.Contains(slugs, want) {
			return "", "", fault.WithHint(fmt.Errorf("%w: no agent-mail project %q in %s (it has: %s)", ErrNotFound, want, root, listOrNone(slugs)),
				"pass one of them with --source-project")
		}
		slug = want
	case len(slugs) == 0:
		return "", "", fault.WithHint(fmt.Errorf("%w: %s holds no agent-mail projects", ErrNotFound, filepath.Join(root, "projects")),
			"pass the storage root of a server that has stored mail")
	case len(slugs) > 1:
		return "", "", fault.WithHint(fmt.Errorf("%w: %s holds %d agent-mail projects: %s", ErrInvalidArgument, root, len(slugs), strings.Join(slugs, ", ")),
			"choose the one to import into this project with --source-project SLUG")
	default:
		slug = slugs[0]
	}
	return filepath.Join(root, "projects", slug), slug, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// agentMailSource reads one project of a Python mcp_agent_mail archive.
type agentMailSource struct {
	root   string            // the storage root, for file names in warnings
	dir    string            // the project's directory
	target string            // the slug of the project imported into
	here   map[string]string // agents registered in the target project, by fold
	agents map[string]string // usable profiles in the source, by fold
	bad    map[string]bool   // folded names whose profile is unusable
	rep    *ImportReport
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
func (s *agentMailSource) readAgents() []ImportedAgent {
	s.agents, s.bad = map[string]string{}, map[string]bool{}
	dir := filepath.Join(s.dir, "agents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warn(dir, "cannot list agents: %v", err)
		}
		return nil
	}
	var out []ImportedAgent
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

func readProfile(path, dirName string) (ImportedAgent, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ImportedAgent{}, errors.New("skipped: no profile.json")
	}
	if err != nil {
		return ImportedAgent{}, fmt.Errorf("skipped: %v", err)
	}
	var p pyProfile
	if err := json.Unmarshal(data, &p); err != nil {
		return ImportedAgent{}, fmt.Errorf("skipped: not a valid profile: %v", jsonError(err))
	}
	if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
		return ImportedAgent{}, errors.New("skipped: the profile has no name")
	}
	name, err := names.Parse(*p.Name)
	if err != nil {
		return ImportedAgent{}, fmt.Errorf("skipped: %v", err)
	}
	if !strings.EqualFold(name, dirName) {
		return ImportedAgent{}, fmt.Errorf("skipped: the profile names %s but lives under agents/%s", name, dirName)
	}
	reg, err := parsePyTime(p.Inception)
	if err != nil {
		return ImportedAgent{}, fmt.Errorf("skipped: inception_ts: %v", err)
	}
	last := reg
	if strings.TrimSpace(p.LastActive) != "" {
		if last, err = parsePyTime(p.LastActive); err != nil {
			return ImportedAgent{}, fmt.Errorf("skipped: last_active_ts: %v", err)
		}
	}
	return ImportedAgent{Name: name, Program: p.Program, Model: p.Model, Task: p.Task, Registered: reg, LastActive: last}, nil
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
// digests in messages/threads/, oldest first.
func (s *agentMailSource) readMessages() []ImportedMessage {
	dir := filepath.Join(s.dir, "messages")
	var out []ImportedMessage
	seen := map[string]string{} // derived id -> file
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || path != dir {
				s.warn(path, "skipped: %v", err)
			}
			return nil
		}
		if d.IsDir() {
			if path == filepath.Join(dir, "threads") {
				return filepath.SkipDir // the server's per-thread digests, not messages
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") {
			s.warn(path, "skipped: not a message file (.md)")
			s.rep.Malformed.Messages++
			return nil
		}
		msg, drop, err := s.readMessage(path)
		switch {
		case err != nil:
			s.warn(path, "skipped: %v", err)
			s.rep.Malformed.Messages++
			return nil
		case drop:
			s.rep.Malformed.Messages++
			return nil
		}
		if first, dup := seen[msg.ID]; dup {
			s.warn(path, "skipped: the same message as %s", first)
			s.rep.Skipped.Messages++
			return nil
		}
		rel, _ := filepath.Rel(s.root, path)
		seen[msg.ID] = filepath.ToSlash(rel)
		out = append(out, msg)
		return nil
	})
	if err != nil {
		s.warn(dir, "could not read every message: %v", err)
	}
	slices.SortFunc(out, func(a, b ImportedMessage) int { return strings.Compare(a.ID, b.ID) })
	return out
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

// readMessage parses one message file. drop reports a message with no
// usable recipient left (warned about).
func (s *agentMailSource) readMessage(path string) (msg ImportedMessage, drop bool, err error) {
	data, err := os.ReadFile(path)
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
	msg = ImportedMessage{From: from, Body: body, AckRequired: p.AckRequired, Created: created}
	if msg.ID, err = s.derivedID("message", orig, created); err != nil {
		return msg, false, fmt.Errorf("created: %v", err)
	}
	recipients := func(field string, list []string) []string {
		var out []string
		for _, raw := range list {
			n, err := s.resolveAgent(strings.TrimSpace(raw))
			if err != nil {
				s.warn(path, "recipient dropped (%s): %v", field, err)
				continue
			}
			out = append(out, n)
		}
		return out
	}
	msg.To, msg.Cc, msg.Bcc = recipients("to", p.To), recipients("cc", p.Cc), recipients("bcc", p.Bcc)
	if len(msg.To)+len(msg.Cc)+len(msg.Bcc) == 0 {
		s.warn(path, "skipped: no recipient left")
		return msg, true, nil
	}

	// Python groups a reply to a message without a thread under that
	// message's id; so does the import.
	msg.Thread = strings.TrimSpace(string(p.Thread))
	if msg.Thread == "" {
		msg.Thread = orig
	}
	if utf8.RuneCountInString(msg.Thread) > maxThread || strings.IndexFunc(msg.Thread, unicode.IsControl) >= 0 {
		s.warn(path, "thread_id is longer than %d characters or not one line; filed under the message's own id", maxThread)
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
	if utf8.RuneCountInString(msg.Subject) > MaxSubject {
		s.warn(path, "subject cut to %d characters", MaxSubject)
		msg.Subject = strings.TrimSpace(string([]rune(msg.Subject)[:MaxSubject]))
	}
	msg.Importance = strings.ToLower(strings.TrimSpace(p.Importance))
	if msg.Importance != "" && !slices.Contains(Importances, msg.Importance) {
		s.warn(path, "unknown importance %q imported as normal", p.Importance)
		msg.Importance = "normal"
	}
	if len(p.Attachments) > 0 {
		s.warn(path, "%s not imported (the body keeps its links; the files stay in the source)", plural(len(p.Attachments), "attachment"))
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
func (s *agentMailSource) readReservations(isDir func(string) bool) []ImportedReservation {
	dir := filepath.Join(s.dir, "file_reservations")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.warn(dir, "cannot list reservations: %v", err)
		}
		return nil
	}
	byID := map[string]ImportedReservation{}
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
	out := make([]ImportedReservation, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ImportedReservation) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (s *agentMailSource) readReservation(path string, isDir func(string) bool) (ImportedReservation, error) {
	var r ImportedReservation
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
	if r.Pattern, err = reservations.NormalizePattern(*p.Pattern, isDir); err != nil {
		return r, err
	}
	if _, err := reservations.Compile(r.Pattern); err != nil {
		return r, err
	}
	r.Exclusive = p.Exclusive == nil || *p.Exclusive
	r.Reason = p.Reason
	if r.ID, err = s.derivedID("reservation", string(*p.ID), r.Created); err != nil {
		return r, fmt.Errorf("created_ts: %v", err)
	}
	return r, nil
}
