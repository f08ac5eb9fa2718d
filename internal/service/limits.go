package service

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultMaxBody is the largest message body accepted unless
// AGENTMAIL_MAX_BODY says otherwise: 1 MiB.
const DefaultMaxBody = 1 << 20

// MaxBodyEnv is the environment variable that sets the largest message
// body, in bytes (1048576) or with a unit (512KiB, 4MiB), on every face.
const MaxBodyEnv = "AGENTMAIL_MAX_BODY"

// maxMaxBody is the most AGENTMAIL_MAX_BODY may say: a message is read
// whole into memory by every face, and into the index.
const maxMaxBody = 64 << 20

// ErrMessageTooLarge: a message body over the limit (MESSAGE_TOO_LARGE).
var ErrMessageTooLarge = errors.New("message too large")

// tooLargeHint says how to pass on what does not fit in a message, in
// every face's terms.
const tooLargeHint = "commit a large file to the repository and name its path in the message; the limit is set by " + MaxBodyEnv

// ParseMaxBody reads the largest message body from the environment getenv
// looks in (AGENTMAIL_MAX_BODY), or DefaultMaxBody.
func ParseMaxBody(getenv func(string) string) (int, error) {
	s := strings.TrimSpace(getenv(MaxBodyEnv))
	if s == "" {
		return DefaultMaxBody, nil
	}
	n, unit := s, 1
	for _, u := range []struct {
		suffix string
		size   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			n, unit = strings.TrimSpace(v), u.size
			break
		}
	}
	v, err := strconv.Atoi(n)
	if err != nil || v <= 0 || v > maxMaxBody/unit {
		return 0, Usagef(fmt.Sprintf("set it to a size from 1 to %d bytes, such as 1048576, 512KiB or 4MiB", maxMaxBody),
			"%s=%q is not a size up to %s", MaxBodyEnv, s, FormatSize(maxMaxBody))
	}
	return v * unit, nil
}

// FormatSize writes n bytes as people read them: 1 MiB, 512 KiB, 1000
// bytes.
func FormatSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// TooLarge returns the error of a body of size bytes (or more: at least,
// when the reader stopped there) over the limit max.
func TooLarge(size, max int, atLeast bool) error {
	more := ""
	if atLeast {
		more = "more than "
	}
	return fmt.Errorf("%w: the body is %s%d bytes, the limit is %s (%d bytes)", ErrMessageTooLarge, more, size, FormatSize(max), max)
}

// RequestTooLarge returns the error of a request of size bytes (or more,
// when atLeast) that a message body of at most max bytes cannot make.
func RequestTooLarge(size int64, max int, atLeast bool) error {
	more := ""
	if atLeast {
		more = "more than "
	}
	return fmt.Errorf("%w: the request is %s%d bytes, more than a message body of at most %s takes", ErrMessageTooLarge, more, size, FormatSize(max))
}

// RequestLimit is the most bytes a request carrying a message body of up
// to maxBody bytes may take as JSON (each byte escaped at worst as
// \u00XX, and the other fields): a server refuses a longer one before
// reading it.
func RequestLimit(maxBody int) int64 { return 6*int64(maxBody) + 64<<10 }

// MaxBody returns the largest message body the service accepts.
func (s *Service) MaxBody() int {
	if s.cfg.MaxBody > 0 {
		return s.cfg.MaxBody
	}
	return DefaultMaxBody
}

// checkBody refuses a body over MaxBody.
func (s *Service) checkBody(body string) error {
	if max := s.MaxBody(); len(body) > max {
		return TooLarge(len(body), max, false)
	}
	return nil
}
