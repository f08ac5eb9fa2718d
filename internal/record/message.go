package record

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
	"golang.org/x/text/unicode/norm"
)

// Message is one message, as stored in its canonical file.
type Message struct {
	Project     string // slug
	ID          string // ULID
	Thread      string // as given by the sender; "" when the message starts no named thread
	From        string
	To, Cc, Bcc []string
	Subject     string
	Importance  string
	AckRequired bool
	Category    string
	ReplyTo     string
	Created     time.Time
	Hold        time.Duration // a reply asking a waiting sender to wait this much longer
	Topic       string        // the channel the message is posted to (see ValidTopic); "" for none
	Attachments []Attachment  // files stored beside it (see AttachmentFile)
	Body        string

	// file is where the canonical file was found, when that is not where
	// Path would put it: a name an older agentmail chose (see SetPath).
	file string
}

// ThreadID returns the thread the message belongs to: its own id when the
// sender named none.
func (m *Message) ThreadID() string {
	if m.Thread != "" {
		return m.Thread
	}
	return m.ID
}

// Path returns the canonical file's path: where it was found (SetPath), or
// where Files puts it.
func (m *Message) Path() string {
	if m.file != "" {
		return m.file
	}
	return ProjectDir(m.Project) + "/messages/" + m.relPath()
}

// SetPath records that the canonical file is at path, which Path then
// returns. File names once chosen stay: a message that an older agentmail
// named by another rule keeps its name.
func (m *Message) SetPath(path string) {
	m.file = ""
	if path != m.Path() {
		m.file = path
	}
}

// relPath is the dated file name shared by the canonical file and its copies.
func (m *Message) relPath() string {
	return m.Created.UTC().Format("2006/01/02") + "/" + m.ID + "-" + cmp.Or(SubjectSlug(m.Subject, 48), "message") + ".md"
}

// Files implements Record: the canonical file, the sender's outbox copy and
// one inbox copy per recipient. Recipients other than the sender never see
// the bcc list; a bcc recipient's copy lists only that recipient.
func (m *Message) Files() []File {
	full := m.Encode()
	dir := ProjectDir(m.Project) + "/agents/"
	rel := m.relPath()
	files := []File{
		{m.Path(), full},
		{dir + m.From + "/outbox/" + rel, full},
	}
	var open []byte
	for _, name := range append(append([]string{}, m.To...), m.Cc...) {
		if name == m.From {
			files = append(files, File{dir + name + "/inbox/" + rel, full})
			continue
		}
		if open == nil {
			// Without bcc the recipients' copy is the file itself.
			open = full
			if len(m.Bcc) > 0 {
				c := *m
				c.Bcc = nil
				open = c.Encode()
			}
		}
		files = append(files, File{dir + name + "/inbox/" + rel, open})
	}
	for _, name := range m.Bcc {
		c := *m
		c.Bcc = []string{name}
		files = append(files, File{dir + name + "/inbox/" + rel, c.Encode()})
	}
	return files
}

// Encode renders the message file: YAML front matter between "---" lines, a
// blank line, then the body exactly as given.
func (m *Message) Encode() []byte {
	var b bytes.Buffer
	b.Grow(256 + len(m.Body))
	b.WriteString("---\n")
	field := func(k, v string) { b.WriteString(k + ": " + v + "\n") }
	field("id", m.ID)
	if m.Thread != "" {
		field("thread", quote(m.Thread))
	}
	field("from", m.From)
	field("to", list(m.To))
	if len(m.Cc) > 0 {
		field("cc", list(m.Cc))
	}
	if len(m.Bcc) > 0 {
		field("bcc", list(m.Bcc))
	}
	field("subject", quote(m.Subject))
	field("importance", m.Importance)
	field("ack_required", strconv.FormatBool(m.AckRequired))
	if m.Category != "" {
		field("category", m.Category)
	}
	if m.Topic != "" {
		field("topic", m.Topic)
	}
	if m.ReplyTo != "" {
		field("reply_to", m.ReplyTo)
	}
	field("created", FormatTime(m.Created))
	if m.Hold > 0 {
		field("hold", m.Hold.String())
	}
	if len(m.Attachments) > 0 {
		field("attachments", encodeAttachments(m.Attachments))
	}
	b.WriteString("---\n\n")
	b.WriteString(m.Body)
	return b.Bytes()
}

// quote renders s as a YAML double-quoted scalar. JSON string syntax is a
// subset of it, so a JSON decoder reads it back exactly.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// list renders names (letters only, validated on the way in) as a YAML flow
// sequence.
func list(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

// DecodeMessage parses a message file of project slug.
func DecodeMessage(slug string, data []byte) (*Message, error) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return nil, errors.New("no front matter")
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, errors.New("front matter not closed")
	}
	head, body := s[4:4+end+1], s[4+end+5:]
	if !strings.HasPrefix(body, "\n") {
		return nil, errors.New("no blank line after front matter")
	}
	m := &Message{Project: slug, Body: body[1:]}
	for _, line := range strings.Split(strings.TrimSuffix(head, "\n"), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("bad front matter line %q", line)
		}
		var err error
		switch k {
		case "id":
			m.ID = v
		case "thread":
			err = json.Unmarshal([]byte(v), &m.Thread)
		case "from":
			m.From = v
		case "to":
			m.To, err = parseList(v)
		case "cc":
			m.Cc, err = parseList(v)
		case "bcc":
			m.Bcc, err = parseList(v)
		case "subject":
			err = json.Unmarshal([]byte(v), &m.Subject)
		case "importance":
			m.Importance = v
		case "ack_required":
			m.AckRequired, err = strconv.ParseBool(v)
		case "category":
			m.Category = v
		case "reply_to":
			m.ReplyTo = v
		case "created":
			m.Created, err = ParseTime(v)
		case "hold":
			m.Hold, err = time.ParseDuration(v)
		case "topic":
			var ok bool
			if m.Topic, ok = NormalTopic(v); !ok {
				err = fmt.Errorf("%q is no topic", v)
			}
		case "attachments":
			m.Attachments, err = decodeAttachments(v)
		}
		if err != nil {
			return nil, fmt.Errorf("front matter %s: %v", k, err)
		}
	}
	if _, err := ulid.ParseStrict(m.ID); err != nil {
		return nil, fmt.Errorf("front matter id %q: %v", m.ID, err)
	}
	if m.From == "" || m.Created.IsZero() {
		return nil, errors.New("front matter lacks from or created")
	}
	return m, nil
}

func parseList(v string) ([]string, error) {
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, fmt.Errorf("not a list: %q", v)
	}
	v = v[1 : len(v)-1]
	if v == "" {
		return nil, nil
	}
	return strings.Split(v, ", "), nil
}

// Slugify turns s into a short lowercase file-name fragment of ASCII letters,
// digits and dashes; "" when s has none.
func Slugify(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				if b.Len()+2 > max {
					break
				}
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= max {
				break
			}
		} else {
			dash = true
		}
	}
	return b.String()
}

// SubjectSlug is the readable part of a message's file name: the words of
// subject, lowercase, joined by dashes, at most max bytes. Letters and
// digits of any script are kept (世界, привет); Latin letters lose their
// accents (Überprüfung gives uberprufung) and compatibility forms are
// unfolded (ﬁ, Ｆ); anything else separates words. For ASCII it is
// Slugify, so ASCII subjects keep the names they always had.
func SubjectSlug(subject string, max int) string {
	if isASCII(subject) {
		return asciiSlug(subject, max)
	}
	return unitsSlug(subject, max)
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiSlug is SubjectSlug (and Slugify) of an ASCII subject, byte by
// byte: every page listing messages names each one's file.
func asciiSlug(s string, max int) string {
	b := make([]byte, 0, min(len(s), max))
	dash := false
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			dash = true
			continue
		}
		if dash && len(b) > 0 {
			if len(b)+2 > max {
				break
			}
			b = append(b, '-')
		}
		dash = false
		b = append(b, c)
		if len(b) >= max {
			break
		}
	}
	return string(b)
}

// unitsSlug is SubjectSlug made of slugUnits, for any subject.
func unitsSlug(subject string, max int) string {
	var b strings.Builder
	dash := false
	for _, u := range slugUnits(subject) {
		if u == "" {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			if b.Len()+1+len(u) > max {
				break
			}
			b.WriteByte('-')
		}
		dash = false
		if b.Len()+len(u) > max {
			break
		}
		b.WriteString(u)
		if b.Len() >= max {
			break
		}
	}
	return b.String()
}

// latin spells out the Latin letters that have no decomposition.
var latin = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d", 'ł': "l", 'þ': "th", 'ı': "i"}

// slugUnits splits s into what a slug is made of: a lowercase letter or
// digit with the combining marks that belong to it, or "" for a character
// that separates words. A character that decomposes (NFKD) into ASCII
// letters and digits with accents becomes those letters (é, ﬁ, Ｆ, ①);
// marks on other letters are part of them (हि).
func slugUnits(s string) []string {
	var units []string
	var cur []rune // the unit being built: a letter beyond ASCII and its marks
	flush := func() {
		if cur != nil {
			units = append(units, string(cur))
			cur = nil
		}
	}
	for _, r := range norm.NFC.String(s) {
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf {
			// ASCII, most subjects: what asciiLetters and the cases
			// below make of it, without decomposing it.
			flush()
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				units = append(units, string(r))
			} else {
				units = append(units, "")
			}
			continue
		}
		if ascii, ok := asciiLetters(r); ok {
			flush()
			units = append(units, ascii...)
			continue
		}
		switch {
		case unicode.Is(unicode.M, r):
			if cur != nil {
				cur = append(cur, r)
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flush()
			cur = []rune{r}
		default:
			flush()
			units = append(units, "")
		}
	}
	flush()
	return units
}

// asciiLetters returns the ASCII letters and digits that r stands for, when
// it is one, one with accents, a compatibility form of some (ﬁ, Ｆ), or a
// Latin letter spelled out in latin.
func asciiLetters(r rune) ([]string, bool) {
	if s, ok := latin[r]; ok {
		return strings.Split(s, ""), true
	}
	var out []string
	for _, c := range norm.NFKD.String(string(r)) {
		switch {
		case unicode.Is(unicode.M, c):
		case c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			out = append(out, string(unicode.ToLower(c)))
		default:
			return nil, false
		}
	}
	return out, len(out) > 0
}

// idDay returns the YYYY/MM/DD of a ULID's timestamp.
func idDay(id string) (string, error) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return "", err
	}
	return ulid.Time(u.Time()).UTC().Format("2006/01/02"), nil
}
