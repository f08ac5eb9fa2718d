package setup

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

// mcpAgentMailName matches the names mcp_agent_mail's installers give its
// server (mcp_agent_mail, mcp-agent-mail, agent-mail, agent_mail), not
// ours (agentmail).
// It is compiled on first use: most commands never look.
var mcpAgentMailName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(mcp[-_ ]?agent[-_ ]mail|agent[-_ ]mail)$`)
})

// oldServers returns a note for each of mcp_agent_mail's servers in a
// client's configuration src (at path): a server of its names, or one
// whose URL is its HTTP endpoint (a path ending in /api/). Agents would
// otherwise use both, or the old one: the note says what to change.
func oldServers(path string, src []byte) []string {
	if len(src) == 0 {
		return nil
	}
	var doc map[string]any
	if strings.HasSuffix(path, ".toml") {
		if toml.Unmarshal(src, &doc) != nil {
			return nil
		}
	} else {
		std, err := hujson.Standardize(slices.Clone(src))
		if err != nil || json.Unmarshal(std, &doc) != nil {
			return nil
		}
	}
	var notes []string
	for _, key := range []string{"mcpServers", "mcp_servers", "mcp", "servers"} {
		servers, _ := doc[key].(map[string]any)
		for _, name := range sortedKeys(servers) {
			entry, _ := servers[name].(map[string]any)
			url := ""
			for _, k := range []string{"url", "httpUrl", "serverUrl"} {
				if u, ok := entry[k].(string); ok {
					url = u
				}
			}
			if name == serverName || !mcpAgentMailName().MatchString(name) && !strings.HasSuffix(strings.TrimRight(url, "/"), "/api") {
				continue
			}
			what := fmt.Sprintf("%q", name)
			if url != "" {
				what += " (" + url + ")"
			}
			notes = append(notes, fmt.Sprintf("%s also has mcp_agent_mail's server %s: agentmail's entry %q takes its place with the same tools; "+
				"remove %q so that agents do not use both (or, for a server reached over HTTP, point its url at http://127.0.0.1:8765/mcp, not /api/)",
				path, what, serverName, name))
		}
	}
	return notes
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
