package service

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/names"
)

// tokenKeyFile is the file in the store directory holding the secret the
// registration tokens are made with. It stays on this machine: the
// archive, which sync carries to every clone, never holds it.
const tokenKeyFile = "registration-token.key"

// tokenPrefix begins every registration token, so that one is known on
// sight.
const tokenPrefix = "amrt_"

// RegistrationToken returns the registration token of agent name in sc's
// project: the proof, for an MCP session that did not register the agent,
// that its caller may act as it (mcp_agent_mail's registration_token). It
// is derived from a secret kept in the store directory, the project and
// the agent's name, so the same agent always gets the same token from
// this store, and no token is stored per agent.
func (s *Service) RegistrationToken(sc Scope, name string) (string, error) {
	proj, err := ResolveProject(sc.Project)
	if err != nil {
		return "", err
	}
	key, err := s.tokenKey()
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s\n%s", proj.Slug, names.Fold(strings.TrimSpace(name)))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:24]), nil
}

// CheckRegistrationToken reports whether token is agent name's
// registration token in sc's project.
func (s *Service) CheckRegistrationToken(sc Scope, name, token string) (bool, error) {
	want, err := s.RegistrationToken(sc, name)
	if err != nil {
		return false, err
	}
	return hmac.Equal([]byte(want), []byte(strings.TrimSpace(token))), nil
}

// tokenKey returns the secret of the registration tokens, made the first
// time it is needed.
func (s *Service) tokenKey() ([]byte, error) {
	s.tokenMu.Lock()
	defer s.tokenMu.Unlock()
	if s.tokenSecret != nil {
		return s.tokenSecret, nil
	}
	path := filepath.Join(s.cfg.Dir, tokenKeyFile)
	key, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(s.cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("registration tokens: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return s.readTokenKey(path) // another process made it first
		}
		if err != nil {
			return nil, fmt.Errorf("registration tokens: %w", err)
		}
		if _, err := f.Write(key); err != nil {
			f.Close()
			return nil, fmt.Errorf("registration tokens: %w", err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("registration tokens: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("registration tokens: %w", err)
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("registration tokens: %s is %d bytes, not 32: remove it to make a new secret (every token changes)", path, len(key))
	}
	s.tokenSecret = key
	return key, nil
}

// readTokenKey reads the secret another process wrote, once it is whole.
func (s *Service) readTokenKey(path string) ([]byte, error) {
	for range 50 {
		key, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("registration tokens: %w", err)
		}
		if len(key) >= 32 {
			s.tokenSecret = key
			return key, nil
		}
		sleep()
	}
	return nil, fmt.Errorf("registration tokens: %s stays incomplete", path)
}

// sleep waits a little for another process's write.
func sleep() { time.Sleep(10 * time.Millisecond) }
