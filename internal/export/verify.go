package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
)

// Namespace is the ssh-keygen -Y namespace of an export's signature: a
// signature made for anything else (a git commit, a file) does not verify
// as an export's.
const Namespace = "agentmail-export"

// ErrModified: an export's files differ from its manifest, or its
// signature does not verify. The message names the file.
var ErrModified = errors.New("the export does not match its manifest")

// ErrNoKeygen: signing or checking a signature needs ssh-keygen, which is
// not on $PATH.
var ErrNoKeygen = errors.New("ssh-keygen (OpenSSH) is not on $PATH; it signs and verifies exports")

// Verification says what Verify checked.
type Verification struct {
	Files  int  `json:"files"`  // files checked against the manifest
	Signed bool `json:"signed"` // the manifest carries a signature
	// SignatureChecked: the signature was checked against allowed signers
	// (Signer names the principal); else only that it is a valid
	// signature of the manifest by some key (Key names it).
	SignatureChecked bool   `json:"signature_checked"`
	Signer           string `json:"signer,omitempty"`
	Key              string `json:"key,omitempty"` // ssh-keygen's words about the key that signed
}

// Verify checks the export in dir: every file the manifest lists has its
// hash, no file is missing, none is there that it does not list, and the
// signature, when there is one, is a valid signature of the manifest (by a
// principal of allowedSigners, an ssh-keygen allowed signers file, when
// given). The first difference is ErrModified naming the file.
func Verify(dir, allowedSigners, keygen string) (Verification, error) {
	var v Verification
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return v, fault.WithField(fmt.Errorf("%w: %s has no %s; it is not an export", fault.ErrInvalidArgument, dir, ManifestFile), "dir", "dir", dir)
	}
	if err != nil {
		return v, err
	}
	listed := map[string]bool{ManifestFile: true, SignatureFile: true}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 || name == "" || !fs.ValidPath(name) || path.Clean(name) != name {
			return v, modified(ManifestFile, fmt.Sprintf("malformed: line %d is no \"SHA-256  path\" entry of a file inside the export", line))
		}
		listed[name] = true
		got, err := hashFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			return v, modified(name, "missing")
		}
		if err != nil {
			return v, err
		}
		if got != sum {
			return v, modified(name, fmt.Sprintf("changed: its SHA-256 is %s, the manifest says %s", got, sum))
		}
		v.Files++
	}
	if err := sc.Err(); err != nil {
		return v, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !listed[rel] {
			return modified(rel, "not in the manifest")
		}
		return nil
	})
	if err != nil {
		return v, err
	}
	sig := filepath.Join(dir, SignatureFile)
	if _, err := os.Stat(sig); err != nil {
		if allowedSigners != "" {
			return v, modified(SignatureFile, "missing: the export is not signed")
		}
		return v, nil
	}
	v.Signed = true
	return v, checkSignature(&v, keygen, filepath.Join(dir, ManifestFile), sig, allowedSigners)
}

func modified(name, what string) error {
	return fault.WithValues(fmt.Errorf("%w: %s is %s", ErrModified, name, what), "file", name)
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// findKeygen returns the ssh-keygen to run.
func findKeygen(keygen string) (string, error) {
	if keygen == "" {
		keygen = "ssh-keygen"
	}
	p, err := exec.LookPath(keygen)
	if err != nil {
		return "", ErrNoKeygen
	}
	return p, nil
}

// sign writes manifest's signature beside it (manifest + ".sig") with
// key, as git signs a commit with an SSH key.
func sign(keygen, key, manifest string) error {
	bin, err := findKeygen(keygen)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "-Y", "sign", "-q", "-f", key, "-n", Namespace, manifest)
	cmd.Stdin = nil
	if out, err := cmd.CombinedOutput(); err != nil {
		return fault.WithField(fmt.Errorf("%w: ssh-keygen could not sign with %s: %s", fault.ErrInvalidArgument, key, oneLine(out, err)), "sign_key", "key", key)
	}
	return nil
}

// checkSignature checks the manifest's signature: against the allowed
// signers file when there is one (the principal is whoever that file names
// for the signing key), else only that it is sound.
func checkSignature(v *Verification, keygen, manifest, sig, allowedSigners string) error {
	bin, err := findKeygen(keygen)
	if err != nil {
		return err
	}
	run := func(args ...string) (string, error) {
		in, err := os.Open(manifest)
		if err != nil {
			return "", err
		}
		defer in.Close()
		cmd := exec.Command(bin, args...)
		cmd.Stdin = in
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if allowedSigners == "" {
		out, err := run("-Y", "check-novalidate", "-n", Namespace, "-s", sig)
		if err != nil {
			return modified(SignatureFile, "no valid signature of the manifest: "+firstLine(out))
		}
		v.Key = firstLine(out)
		return nil
	}
	cmd := exec.Command(bin, "-Y", "find-principals", "-s", sig, "-f", allowedSigners)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return modified(SignatureFile, "signed by a key that "+allowedSigners+" does not list: "+oneLine(out, err))
	}
	principal := firstLine(strings.TrimSpace(string(out)))
	res, err := run("-Y", "verify", "-f", allowedSigners, "-I", principal, "-n", Namespace, "-s", sig)
	if err != nil {
		return modified(SignatureFile, "no valid signature of the manifest by "+principal+": "+firstLine(res))
	}
	v.SignatureChecked, v.Signer, v.Key = true, principal, firstLine(res)
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func oneLine(out []byte, err error) string {
	if s := firstLine(string(out)); s != "" {
		return s
	}
	return err.Error()
}
