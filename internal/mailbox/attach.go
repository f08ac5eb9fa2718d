package mailbox

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// AttachmentInput is a file to attach to a message.
type AttachmentInput struct {
	Name      string // its base name, unique within the message (record.ValidAttachmentName)
	Data      []byte
	MediaType string // "" is worked out from the name and content (MediaType)
}

// MediaType returns the media type of a file named name holding data: by
// its extension when Go knows it, else sniffed from the content
// (http.DetectContentType), application/octet-stream at worst.
func MediaType(name string, data []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(path.Ext(name))); t != "" {
		return t
	}
	return http.DetectContentType(data)
}

func validateAttachments(list []AttachmentInput) error {
	seen := map[string]bool{}
	for _, a := range list {
		if why := record.ValidAttachmentName(a.Name); why != "" {
			return invalid(fmt.Sprintf("the attachment name %q %s", a.Name, why), "attach a file by its path; its base name names it")
		}
		if seen[a.Name] {
			return invalid(fmt.Sprintf("two attachments are named %q", a.Name), "attach each file once, or rename one of them")
		}
		seen[a.Name] = true
	}
	return nil
}

// attachmentRecords returns a message's front-matter entries for its
// attachments and the records of their content.
func attachmentRecords(slug string, list []AttachmentInput) ([]record.Attachment, []*record.AttachmentFile) {
	if len(list) == 0 {
		return nil, nil
	}
	atts := make([]record.Attachment, len(list))
	files := make([]*record.AttachmentFile, len(list))
	for i, a := range list {
		mt := a.MediaType
		if mt == "" {
			mt = MediaType(a.Name, a.Data)
		}
		files[i], atts[i] = record.NewAttachment(slug, a.Name, mt, a.Data)
	}
	return atts, files
}

// putAttachments queues the content of files not stored in this commit
// yet (stored, by hash): a file attached twice is written once, and git
// stores a content it holds already once whatever the commit.
func putAttachments(tx *store.Tx, files []*record.AttachmentFile, stored map[string]bool) {
	for _, f := range files {
		if !stored[f.SHA256] {
			stored[f.SHA256] = true
			tx.Put(f)
		}
	}
}

// Attachment returns message id (or a unique prefix), as the viewer (see
// Viewer) may see it, its attachment named name, and the attachment's
// content, read from the archive and checked against its hash.
func (m *Mailbox) Attachment(ctx context.Context, id, name string) (Message, record.Attachment, []byte, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return Message{}, record.Attachment{}, nil, err
	}
	v, err := m.visibleMessage(ctx, m.st.Index(), id, viewer)
	if err != nil {
		return Message{}, record.Attachment{}, nil, err
	}
	var att record.Attachment
	found := false
	for _, a := range v.Attachments {
		if a.Name == name {
			att, found = a, true
			break
		}
	}
	if !found {
		names := make([]string, len(v.Attachments))
		for i, a := range v.Attachments {
			names[i] = a.Name
		}
		hint := "message " + v.ID + " has no attachments"
		if len(names) > 0 {
			hint = "its attachments: " + strings.Join(names, ", ")
		}
		return Message{}, record.Attachment{}, nil, fault.WithHint(fmt.Errorf("%w: message %s has no attachment %q", ErrNotFound, v.ID, name), hint)
	}
	head, err := m.st.ProjectHead(m.proj.Slug)
	if err != nil {
		return Message{}, record.Attachment{}, nil, err
	}
	data, err := m.st.Archive().ReadFile(head, record.AttachmentRel(att.SHA256))
	if errors.Is(err, os.ErrNotExist) {
		return Message{}, record.Attachment{}, nil, fault.WithHint(fmt.Errorf("%w: the archive lacks the content of attachment %q of message %s", ErrNotFound, name, v.ID),
			"sync with the store that sent it")
	}
	if err != nil {
		return Message{}, record.Attachment{}, nil, err
	}
	if record.SHA256(data) != att.SHA256 {
		return Message{}, record.Attachment{}, nil, fmt.Errorf("attachment %q of message %s: the archive's content does not match its sha256 %s", name, v.ID, att.SHA256)
	}
	return v.Message, att, data, nil
}
