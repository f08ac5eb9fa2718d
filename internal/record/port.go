package record

import (
	"encoding/json"
	"fmt"
	"net/url"
	"time"
)

// PortsDir is the directory of a project's port claims: one file per host
// and name, ports/HOST/NAME.json.
const PortsDir = "ports"

// Port is the current or last claim of a TCP port under a name on one
// host. Ports belong to a machine: a claim holds on the host it was made
// on, and is only listed elsewhere (a synced project carries it).
type Port struct {
	Project  string // slug
	Host     string // the machine's host name
	Name     string // the stable name the port is claimed under ("shop:api")
	Port     int
	Holder   string
	Created  time.Time
	Expires  time.Time
	Released time.Time // zero while held
}

// Held reports whether the claim holds at now.
func (p *Port) Held(now time.Time) bool { return p.Released.IsZero() && now.Before(p.Expires) }

type portJSON struct {
	Host     string  `json:"host"`
	Name     string  `json:"name"`
	Port     int     `json:"port"`
	Holder   string  `json:"holder"`
	Created  string  `json:"created"`
	Expires  string  `json:"expires"`
	Released *string `json:"released"`
}

// Files implements Record.
func (p *Port) Files() []File {
	return []File{{ProjectDir(p.Project) + "/" + PortsDir + "/" + url.PathEscape(p.Host) + "/" + url.PathEscape(p.Name) + ".json", marshal(portJSON{
		p.Host, p.Name, p.Port, p.Holder, FormatTime(p.Created), FormatTime(p.Expires), optTime(p.Released),
	})}}
}

func decodePort(slug string, data []byte) (*Port, error) {
	var v portJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Port < 1 || v.Port > 65535 || v.Host == "" || v.Name == "" {
		return nil, fmt.Errorf("port claim %q on %q: port %d out of range, or no name or host", v.Name, v.Host, v.Port)
	}
	p := &Port{Project: slug, Host: v.Host, Name: v.Name, Port: v.Port, Holder: v.Holder}
	var err error
	if p.Created, err = ParseTime(v.Created); err != nil {
		return nil, err
	}
	if p.Expires, err = ParseTime(v.Expires); err != nil {
		return nil, err
	}
	if v.Released != nil {
		if p.Released, err = ParseTime(*v.Released); err != nil {
			return nil, err
		}
	}
	return p, nil
}
