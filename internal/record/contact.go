package record

import (
	"encoding/json"
	"errors"
	"time"
)

// Contact is one agent's request to write to another under the contact
// policy, and the answer: requested, approved or denied.
type Contact struct {
	Project   string // slug
	From      string // who asked
	To        string // whom
	State     string // requested, approved, denied
	Reason    string
	Requested time.Time
	Decided   time.Time // zero while requested
	Expires   time.Time // an approval lapses then; zero otherwise
}

type contactJSON struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	State     string  `json:"state"`
	Reason    string  `json:"reason,omitempty"`
	Requested string  `json:"requested"`
	Decided   *string `json:"decided"`
	Expires   *string `json:"expires"`
}

// Files implements Record: one file per ordered pair of agents.
func (c *Contact) Files() []File {
	return []File{{ProjectDir(c.Project) + "/contacts/" + c.From + "__" + c.To + ".json", marshal(contactJSON{
		c.From, c.To, c.State, c.Reason, FormatTime(c.Requested), optTime(c.Decided), optTime(c.Expires),
	})}}
}

func decodeContact(slug string, data []byte) (*Contact, error) {
	var v contactJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.From == "" || v.To == "" || v.State == "" {
		return nil, errors.New("contact lacks from, to or state")
	}
	c := &Contact{Project: slug, From: v.From, To: v.To, State: v.State, Reason: v.Reason}
	var err error
	if c.Requested, err = ParseTime(v.Requested); err != nil {
		return nil, err
	}
	if v.Decided != nil {
		if c.Decided, err = ParseTime(*v.Decided); err != nil {
			return nil, err
		}
	}
	if v.Expires != nil {
		if c.Expires, err = ParseTime(*v.Expires); err != nil {
			return nil, err
		}
	}
	return c, nil
}
