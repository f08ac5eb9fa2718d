package record

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Subscriptions are the channels (topics) an agent follows: their posts
// reach its inbox, check and wait. One file per agent,
// agents/<Name>/subscriptions.json, rewritten whole by each change;
// merged, the latest change stands.
type Subscriptions struct {
	Project string // slug
	Agent   string
	Topics  []Subscription // sorted by topic
	Updated time.Time
}

// Subscription is one channel an agent follows, since when: posts made
// before are not new to it.
type Subscription struct {
	Topic string
	Since time.Time
}

type subscriptionJSON struct {
	Topic string `json:"topic"`
	Since string `json:"since"`
}

type subscriptionsJSON struct {
	Agent   string             `json:"agent"`
	Topics  []subscriptionJSON `json:"topics"`
	Updated string             `json:"updated"`
}

// Files implements Record.
func (s *Subscriptions) Files() []File {
	v := subscriptionsJSON{Agent: s.Agent, Topics: []subscriptionJSON{}, Updated: FormatTime(s.Updated)}
	for _, t := range s.Topics {
		v.Topics = append(v.Topics, subscriptionJSON{t.Topic, FormatTime(t.Since)})
	}
	return []File{{ProjectDir(s.Project) + "/agents/" + s.Agent + "/subscriptions.json", marshal(v)}}
}

func decodeSubscriptions(slug, dirName string, data []byte) (*Subscriptions, error) {
	var v subscriptionsJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Agent != dirName {
		return nil, fmt.Errorf("subscriptions name %q but live under %q", v.Agent, dirName)
	}
	s := &Subscriptions{Project: slug, Agent: v.Agent}
	var err error
	if s.Updated, err = ParseTime(v.Updated); err != nil {
		return nil, err
	}
	for _, t := range v.Topics {
		topic, ok := NormalTopic(t.Topic)
		if !ok {
			return nil, fmt.Errorf("invalid topic %q", t.Topic)
		}
		since, err := ParseTime(t.Since)
		if err != nil {
			return nil, err
		}
		s.Topics = append(s.Topics, Subscription{topic, since})
	}
	slices.SortFunc(s.Topics, func(a, b Subscription) int { return strings.Compare(a.Topic, b.Topic) })
	return s, nil
}

// The states an agent says it is in (AgentState).
var AgentStates = []string{"running", "idle", "stuck", "done"}

// AgentState is what an agent says of its work: running, idle, stuck or
// done, with a note. One file per agent, agents/<Name>/state.json;
// merged, the latest stands.
type AgentState struct {
	Project string // slug
	Agent   string
	State   string
	Note    string
	Updated time.Time
}

type agentStateJSON struct {
	Agent   string `json:"agent"`
	State   string `json:"state"`
	Note    string `json:"note,omitempty"`
	Updated string `json:"updated"`
}

// Files implements Record.
func (s *AgentState) Files() []File {
	return []File{{ProjectDir(s.Project) + "/agents/" + s.Agent + "/state.json",
		marshal(agentStateJSON{s.Agent, s.State, s.Note, FormatTime(s.Updated)})}}
}

func decodeAgentState(slug, dirName string, data []byte) (*AgentState, error) {
	var v agentStateJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Agent != dirName || !slices.Contains(AgentStates, v.State) {
		return nil, fmt.Errorf("state %q of %q under %q", v.State, v.Agent, dirName)
	}
	upd, err := ParseTime(v.Updated)
	if err != nil {
		return nil, err
	}
	return &AgentState{Project: slug, Agent: v.Agent, State: v.State, Note: v.Note, Updated: upd}, nil
}

// Control is how another identity (an agent, the human overseer) steers
// an agent: paused or not, and the last interrupt. One file per agent,
// agents/<Name>/control.json. Its two parts merge apart: the pause of the
// latest pause or resume, the latest interrupt.
type Control struct {
	Project string // slug
	Agent   string // the agent steered
	// Paused, by whom, why and when it was paused or resumed last.
	Paused      bool
	PauseBy     string
	PauseReason string
	PauseAt     time.Time
	// The last interrupt: by whom, why, when (zero: none).
	InterruptBy     string
	InterruptReason string
	InterruptAt     time.Time
}

type controlJSON struct {
	Agent           string  `json:"agent"`
	Paused          bool    `json:"paused"`
	PauseBy         string  `json:"pause_by,omitempty"`
	PauseReason     string  `json:"pause_reason,omitempty"`
	PauseAt         *string `json:"pause_at"`
	InterruptBy     string  `json:"interrupt_by,omitempty"`
	InterruptReason string  `json:"interrupt_reason,omitempty"`
	InterruptAt     *string `json:"interrupt_at"`
}

// Files implements Record.
func (c *Control) Files() []File {
	return []File{{ProjectDir(c.Project) + "/agents/" + c.Agent + "/control.json", marshal(controlJSON{
		c.Agent, c.Paused, c.PauseBy, c.PauseReason, optTime(c.PauseAt), c.InterruptBy, c.InterruptReason, optTime(c.InterruptAt)})}}
}

func decodeControl(slug, dirName string, data []byte) (*Control, error) {
	var v controlJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Agent != dirName {
		return nil, fmt.Errorf("control names %q but lives under %q", v.Agent, dirName)
	}
	c := &Control{Project: slug, Agent: v.Agent, Paused: v.Paused, PauseBy: v.PauseBy, PauseReason: v.PauseReason,
		InterruptBy: v.InterruptBy, InterruptReason: v.InterruptReason}
	var err error
	if v.PauseAt != nil {
		if c.PauseAt, err = ParseTime(*v.PauseAt); err != nil {
			return nil, err
		}
	}
	if v.InterruptAt != nil {
		if c.InterruptAt, err = ParseTime(*v.InterruptAt); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// mergeControl merges two versions of an agent's control part by part:
// the later pause or resume, the later interrupt; ties by the values.
func mergeControl(x, y *Control) *Control {
	c := *x
	if y.PauseAt.After(x.PauseAt) || y.PauseAt.Equal(x.PauseAt) && fmt.Sprint(y.Paused, y.PauseBy, y.PauseReason) > fmt.Sprint(x.Paused, x.PauseBy, x.PauseReason) {
		c.Paused, c.PauseBy, c.PauseReason, c.PauseAt = y.Paused, y.PauseBy, y.PauseReason, y.PauseAt
	}
	if y.InterruptAt.After(x.InterruptAt) || y.InterruptAt.Equal(x.InterruptAt) && y.InterruptBy+"\x00"+y.InterruptReason > x.InterruptBy+"\x00"+x.InterruptReason {
		c.InterruptBy, c.InterruptReason, c.InterruptAt = y.InterruptBy, y.InterruptReason, y.InterruptAt
	}
	return &c
}
