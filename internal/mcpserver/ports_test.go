package mcpserver

import (
	"strings"
	"testing"
)

// Ports through the tools: a claim, the same port again for the name, a
// name another agent holds (PORT_HELD, worded in the tools' terms), get,
// list, release; bad input in the tools' terms.
func TestPorts(t *testing.T) {
	g, b := twoAgents(t)
	claim := g.ok("claim_port", args{"name": "shop:api", "ttl_seconds": 120})
	port := claim.num("port.port")
	if port < 20000 || port > 29999 {
		t.Fatalf("claim: port %d", port)
	}
	g.want(claim, "port.holder", "GreenCastle")
	g.want(claim, "port.here", true)
	g.want(g.ok("claim_port", args{"name": "shop:api"}), "port.port", port)
	e := b.fail("claim_port", args{"name": "shop:api"}, "PORT_HELD")
	if !strings.Contains(e.Message, "GreenCastle") || !strings.Contains(e.Hint, "get_port") || strings.Contains(e.Hint, "agentmail ") {
		t.Errorf("held: %+v", e)
	}
	b.want(b.ok("get_port", args{"name": "shop:api"}), "port.port", port)
	if l := g.ok("list_ports", args{}).list("ports"); len(l) != 1 {
		t.Errorf("list: %v", l)
	}
	g.fail("list_ports", args{"format": "toon"}, "INVALID_ARGUMENT")
	b.fail("release_port", args{"name": "shop:api"}, "NOT_FOUND")
	g.want(g.ok("release_port", args{"name": "shop:api"}), "port.port", port)
	g.fail("get_port", args{"name": "shop:api"}, "NOT_FOUND")
	b.want(b.ok("claim_port", args{"name": "shop:api"}), "port.port", port)
	e = g.fail("claim_port", args{"name": "bad name"}, "INVALID_ARGUMENT")
	if strings.Contains(e.Hint, "--") || strings.Contains(e.Message, "--") {
		t.Errorf("bad name: %+v", e)
	}
	g.fail("claim_port", args{"name": "x", "ttl_seconds": 0}, "INVALID_ARGUMENT")
}
