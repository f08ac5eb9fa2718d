package mailbox

import "context"

// allMessages are every message of a project, with bodies, newest first,
// seen by nobody in particular (no receipt joined).
const allMessages = `SELECT ` + messageColumns + ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ''
	WHERE m.project_id = ` + joinParam + ` ORDER BY m.id DESC`

// All lists every message of the project with its body, newest first, as
// the overseer sees them (bcc lists included): what a copy of the whole
// mailbox, such as an export, reads.
func (m *Mailbox) All(ctx context.Context) ([]Message, error) {
	if m.pid == 0 {
		return []Message{}, nil
	}
	return m.list(ctx, m.st.Index(), "", allMessages, m.pid)
}
