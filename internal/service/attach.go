package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
)

// Upload is a file attached by its content (the HTTP API's
// {"name", "content_base64"}).
type Upload struct {
	Name string `json:"name"`           // its base name
	Data []byte `json:"content_base64"` // base64 in JSON
}

// Attachment is a file attached to a message, as documents list it:
// agentmail's fields (name, sha256, size, media_type, path) and
// mcp_agent_mail's (type "file", media_type, bytes, path).
type Attachment struct {
	Name      string `json:"name"`
	SHA256    string `json:"sha256"`
	Size      int64  `json:"size"`
	MediaType string `json:"media_type"`
	Path      string `json:"path"`  // the content's file in the archive
	Type      string `json:"type"`  // "file": stored beside the message, never inlined
	Bytes     int64  `json:"bytes"` // Size, under mcp_agent_mail's name
}

func attachmentDocs(slug string, list []record.Attachment) []Attachment {
	if len(list) == 0 {
		return nil
	}
	out := make([]Attachment, len(list))
	for i, a := range list {
		out[i] = Attachment{Name: a.Name, SHA256: a.SHA256, Size: a.Size, MediaType: a.MediaType,
			Path: record.AttachmentPath(slug, a.SHA256), Type: "file", Bytes: a.Size}
	}
	return out
}

// attachments reads the files req attaches, by path and by content, and
// checks that the body and they together take at most MaxBody bytes. A
// path must name a regular file inside the project's working tree (after
// symbolic links): nothing is sent otherwise.
func (s *Service) attachments(x *session, req SendRequest) ([]mailbox.AttachmentInput, error) {
	if len(req.AttachmentPaths)+len(req.Attachments) == 0 {
		return nil, nil
	}
	max := s.MaxBody()
	total := int64(len(req.Body))
	over := func(partly bool) error {
		if partly { // the last file was read up to the limit only
			return fmt.Errorf("%w: the body and attachments are more than %d bytes, the limit is %s", ErrMessageTooLarge, max, FormatSize(max))
		}
		return fmt.Errorf("%w: the body and attachments are %d bytes, the limit is %s (%d bytes)", ErrMessageTooLarge, total, FormatSize(max), max)
	}
	var out []mailbox.AttachmentInput
	for _, u := range req.Attachments {
		if total += int64(len(u.Data)); total > int64(max) {
			return nil, over(false)
		}
		out = append(out, mailbox.AttachmentInput{Name: u.Name, Data: u.Data})
	}
	if len(req.AttachmentPaths) == 0 {
		return out, nil
	}
	proj := x.project()
	if proj.Root == "" {
		return nil, fault.WithHint(fmt.Errorf("%w: attachments are read from the project's working tree, and project %s was named by its key, not by a directory in it",
			ErrInvalidArgument, proj.Slug), "name the project by the repository's directory (or run inside it)")
	}
	rels, err := proj.RepoPaths(req.AttachmentPaths)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(proj.Root)
	if err != nil {
		return nil, err
	}
	for i, rel := range rels {
		given := req.AttachmentPaths[i]
		f, err := openInside(root, filepath.Join(proj.Root, filepath.FromSlash(rel)), given)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(f, int64(max)-total+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", given, err)
		}
		if total += int64(len(data)); total > int64(max) {
			return nil, over(true)
		}
		out = append(out, mailbox.AttachmentInput{Name: filepath.Base(rel), Data: data})
	}
	return out, nil
}

// openInside opens the regular file at path, which must be inside root
// (canonical) once symbolic links are followed; given is how the caller
// named it.
func openInside(root, path, given string) (*os.File, error) {
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fault.WithHint(fmt.Errorf("%w: attachment %s: no such file", ErrInvalidArgument, given),
			"give the path of an existing file of the repository, relative to the directory you work in")
	}
	if err != nil {
		return nil, fault.WithHint(fmt.Errorf("%w: attachment %s: %v", ErrInvalidArgument, given, err), "give the path of a readable file of the repository")
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fault.WithHint(fmt.Errorf("%w: attachment %s leads outside the repository %s", ErrInvalidArgument, given, root),
			"attach files of the repository only")
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fault.WithHint(fmt.Errorf("%w: attachment %s: %v", ErrInvalidArgument, given, err), "give the path of a readable file of the repository")
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fault.WithHint(fmt.Errorf("%w: attachment %s is not a regular file", ErrInvalidArgument, given), "attach files, not directories")
	}
	return f, nil
}

// AttachmentResponse is the document of attachment get: {"message": id,
// "attachment": attachment}; Data is the content.
type AttachmentResponse struct {
	Message    string     `json:"message"`
	Attachment Attachment `json:"attachment"`
	Data       []byte     `json:"-"`
}

// Attachment returns the attachment named name of message id (or a
// unique prefix), which the acting agent sent or received (any message
// for a human, with no agent), with its content.
func (s *Service) Attachment(ctx context.Context, sc Scope, id, name string) (AttachmentResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return AttachmentResponse{}, err
	}
	m, a, data, err := x.mb.Attachment(ctx, id, name)
	if err != nil {
		return AttachmentResponse{}, err
	}
	return AttachmentResponse{Message: m.ID, Attachment: attachmentDocs(x.project().Slug, []record.Attachment{a})[0], Data: data}, nil
}

// TopicRequest names a topic and filters its messages.
type TopicRequest struct {
	Topic string
	// Since keeps messages since a date, an RFC 3339 time or a duration
	// ago, as InboxRequest's.
	Since      string
	Limit      int  // at most this many, newest first; 0 is all
	Bodies     bool // include each message's body
	Abbreviate bool // fill the response's Short, for display
}

// TopicResponse is the document of topic show: {"topic": name,
// "messages": [message + receipt (+ body)...]}.
type TopicResponse struct {
	Topic    string         `json:"topic"`
	Messages []InboxMessage `json:"messages"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// Topic lists the messages of a topic the acting agent may see (those it
// sent or received, and every post to the topic; a human sees all),
// newest first.
func (s *Service) Topic(ctx context.Context, sc Scope, req TopicRequest) (TopicResponse, error) {
	since, err := s.listWindow(req.Since, req.Limit)
	if err != nil {
		return TopicResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return TopicResponse{}, err
	}
	topic, msgs, err := x.mb.Topic(ctx, mailbox.TopicQuery{Topic: req.Topic, Since: since, Limit: req.Limit, Bodies: req.Bodies})
	if err != nil {
		return TopicResponse{}, err
	}
	resp := TopicResponse{Topic: topic, Messages: inboxMessages(msgs, req.Bodies)}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, mapSlice(msgs, messageID))
	return resp, err
}

// TopicSummary is a topic in topic list's document.
type TopicSummary struct {
	Topic    string `json:"topic"`
	Messages int    `json:"messages"` // that the viewer may see
	Last     Time   `json:"last"`     // when the last of them was sent
}

// TopicsResponse is the document of topic list: {"topics": [...]}, most
// recently active first.
type TopicsResponse struct {
	Topics []TopicSummary `json:"topics"`
}

// Topics lists the topics of the messages the acting agent may see (a
// human: every message), most recently active first.
func (s *Service) Topics(ctx context.Context, sc Scope) (TopicsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return TopicsResponse{}, err
	}
	list, err := x.mb.Topics(ctx)
	if err != nil {
		return TopicsResponse{}, err
	}
	resp := TopicsResponse{Topics: make([]TopicSummary, len(list))}
	for i, t := range list {
		resp.Topics[i] = TopicSummary{t.Name, t.Messages, Time{t.Last}}
	}
	return resp, nil
}
