package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AttachmentsDir is the directory of a project's attachments, under its
// ProjectDir: each file stored once, at AttachmentsDir/<sha[:2]>/<sha>,
// named by the SHA-256 of its content.
const AttachmentsDir = "attachments"

// MaxTopic is the longest topic, in characters.
const MaxTopic = 64

// isTopic reports whether t is what a topic is once folded to lowercase:
// a letter, digit or underscore, then at most 63 of those, dots and
// dashes (^[a-z0-9_][a-z0-9._-]{0,63}$, without a regular expression to
// compile at every start).
func isTopic(t string) bool {
	return asciiWord(t, MaxTopic, func(c byte) bool { return lowerDigit(c) || c == '_' },
		func(c byte) bool { return lowerDigit(c) || c == '_' || c == '.' || c == '-' })
}

// asciiWord reports whether s is 1 to max bytes long, its first byte one
// first accepts and the others ones rest accepts.
func asciiWord(s string, max int, first, rest func(byte) bool) bool {
	if len(s) == 0 || len(s) > max || !first(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !rest(s[i]) {
			return false
		}
	}
	return true
}

// lowerDigit reports whether c is a lowercase ASCII letter or a digit.
func lowerDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// NormalTopic returns topic as messages carry it (trimmed, lowercase), and
// whether that is a valid topic: 1 to 64 ASCII letters, digits, '_', '.'
// and '-', not starting with '.' or '-' (builds, team-api, release_2.1).
// mcp_agent_mail's topics ([A-Za-z0-9_-]{1,64}, compared ignoring case)
// are all valid, but those starting with '-'.
func NormalTopic(topic string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(topic))
	return t, isTopic(t)
}

// Attachment is a file attached to a message, as its front matter lists
// it. The content is stored once per project, at AttachmentPath.
type Attachment struct {
	Name      string `json:"name"`       // the file's base name, unique within the message
	SHA256    string `json:"sha256"`     // of the content, lowercase hex
	Size      int64  `json:"size"`       // in bytes
	MediaType string `json:"media_type"` // such as image/png, as sniffed when it was attached
}

// MaxAttachmentName is the longest attachment name, in bytes.
const MaxAttachmentName = 255

// ValidAttachmentName reports why name cannot name an attachment, or ""
// when it can: a base name (no '/' or '\'), not "." or "..", of valid
// UTF-8 without control characters, at most MaxAttachmentName bytes.
func ValidAttachmentName(name string) string {
	switch {
	case name == "" || name == "." || name == "..":
		return "is no file name"
	case len(name) > MaxAttachmentName:
		return fmt.Sprintf("is %d bytes long, the limit is %d", len(name), MaxAttachmentName)
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case strings.ContainsAny(name, `/\`):
		return "contains a path separator"
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "contains a control character"
	}
	return ""
}

// isSHA256 reports whether s is a SHA-256 sum in lowercase hex
// (^[0-9a-f]{64}$).
func isSHA256(s string) bool {
	hex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	return len(s) == 64 && asciiWord(s, 64, hex, hex)
}

// AttachmentPath returns where the content with SHA-256 sum (lowercase
// hex) is stored in the archive under the project with slug.
func AttachmentPath(slug, sum string) string {
	return ProjectDir(slug) + "/" + AttachmentRel(sum)
}

// AttachmentRel is AttachmentPath relative to the project's directory (the
// root of its branch).
func AttachmentRel(sum string) string {
	return AttachmentsDir + "/" + sum[:2] + "/" + sum
}

// AttachmentFile is the content of an attachment: a record of one file,
// named by the content's hash, so that the same file attached to many
// messages is stored once. The index keeps nothing of it (Decode skips
// it): the message's front matter lists it.
type AttachmentFile struct {
	Project string // slug
	SHA256  string // of Data, lowercase hex
	Data    []byte
}

// NewAttachment returns the record of data and its entry in a message's
// front matter.
func NewAttachment(slug, name, mediaType string, data []byte) (*AttachmentFile, Attachment) {
	sum := SHA256(data)
	return &AttachmentFile{Project: slug, SHA256: sum, Data: data},
		Attachment{Name: name, SHA256: sum, Size: int64(len(data)), MediaType: mediaType}
}

// SHA256 returns the SHA-256 sum of data in lowercase hex.
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Files implements Record.
func (f *AttachmentFile) Files() []File {
	return []File{{AttachmentPath(f.Project, f.SHA256), f.Data}}
}

// encodeAttachments renders the list as a one-line JSON array: a YAML
// flow sequence, which earlier versions skip as a key they do not know.
func encodeAttachments(list []Attachment) string {
	b, err := json.Marshal(list)
	if err != nil {
		panic(err) // strings and numbers only
	}
	return string(b)
}

func decodeAttachments(v string) ([]Attachment, error) {
	var list []Attachment
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, a := range list {
		if why := ValidAttachmentName(a.Name); why != "" {
			return nil, fmt.Errorf("attachment name %q %s", a.Name, why)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("attachment %q listed twice", a.Name)
		}
		seen[a.Name] = true
		if !isSHA256(a.SHA256) {
			return nil, fmt.Errorf("attachment %q: sha256 %q is not 64 lowercase hex digits", a.Name, a.SHA256)
		}
		if a.Size < 0 {
			return nil, fmt.Errorf("attachment %q: negative size", a.Name)
		}
	}
	return list, nil
}
