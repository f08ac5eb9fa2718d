package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Idempotency is the idempotency key an agent gave a write, written in the
// write's own commit with the write's result, so that the same call made
// again (a retry whose answer was lost) returns that result and writes
// nothing. It lives in the archive, so a reindex and a sync keep it.
type Idempotency struct {
	Project string // slug
	Agent   string // who wrote
	Key     string // as the agent gave it
	Op      string // the write it stands for: send, reply, acknowledge, reserve
	Created time.Time
	Result  json.RawMessage // the write's result, as its package encodes it
}

type idempotencyJSON struct {
	Agent   string          `json:"agent"`
	Key     string          `json:"key"`
	Op      string          `json:"op"`
	Created string          `json:"created"`
	Result  json.RawMessage `json:"result"`
}

// IdempotencyDir is the directory of the idempotency keys in a project's
// directory: a directory per agent, a file per key.
const IdempotencyDir = "idempotency"

// KeyFile is the name of key's file: a hash, whatever characters the key
// has.
func KeyFile(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:20]) + ".json"
}

// Files implements Record.
func (k *Idempotency) Files() []File {
	result := k.Result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return []File{{ProjectDir(k.Project) + "/" + IdempotencyDir + "/" + k.Agent + "/" + KeyFile(k.Key),
		marshal(idempotencyJSON{k.Agent, k.Key, k.Op, FormatTime(k.Created), result})}}
}

func decodeIdempotency(slug, dirName, file string, data []byte) (*Idempotency, error) {
	var v idempotencyJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Agent != dirName || KeyFile(v.Key) != file {
		return nil, fmt.Errorf("key %q of %q lives under %s/%s", v.Key, v.Agent, dirName, file)
	}
	created, err := ParseTime(v.Created)
	if err != nil {
		return nil, err
	}
	return &Idempotency{Project: slug, Agent: v.Agent, Key: v.Key, Op: v.Op, Created: created, Result: v.Result}, nil
}
