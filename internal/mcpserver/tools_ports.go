package mcpserver

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
)

// addPortTools adds the port claims: TCP ports of the server's machine
// leased under stable names.
func (s *Server) addPortTools() {
	addTool(s, tool{name: "claim_port", desc: "Lease a free TCP port of this machine (the server's) under a stable name such as shop:api, for ttl_seconds: " +
		"the port the name had last while it is still free, else another, checked free by binding it. Claims made at once get different ports. " +
		"Claiming a name you hold extends it on the same port; one another agent holds fails with PORT_HELD naming the claim. " +
		"Ports belong to the machine: a claim holds there only."},
		textPort("claimed"), s.claimPort)
	addTool(s, tool{name: "get_port", desc: "The port claimed now under a name on this machine: where another agent's server listens.", readOnly: true},
		textPort("found"), s.getPort)
	addTool(s, tool{name: "release_port", desc: "End your claim of a port name on this machine."}, textPort("released"), s.releasePort)
	addTool(s, tool{name: "list_ports", desc: "The ports claimed now: this machine's, and in a synced project other machines' (here: false).", readOnly: true},
		textPorts, s.listPorts)
}

type portArgs struct {
	agentArgs
	Name string `json:"name" jsonschema:"the port's stable name, such as shop:api: letters, digits, '.', '_', ':', '-' and '/'"`
}

type claimPortArgs struct {
	portArgs
	TTLSeconds *int `json:"ttl_seconds,omitempty" jsonschema:"how long the claim lasts unless claimed again"`
}

func (claimPortArgs) argDefaults() map[string]any {
	return map[string]any{"ttl_seconds": secondsOf(service.DefaultPortTTL)}
}

func (s *Server) claimPort(ctx context.Context, c *call, in claimPortArgs) (service.PortResponse, error) {
	ttl, err := lasting(in.TTLSeconds, service.DefaultPortTTL, "ttl_seconds")
	if err != nil {
		return service.PortResponse{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.PortResponse{}, err
	}
	return c.svc.ClaimPort(ctx, sc, service.PortRequest{Name: in.Name, TTL: ttl})
}

type getPortArgs struct {
	projectArgs
	Name string `json:"name" jsonschema:"the port's stable name, such as shop:api"`
}

func (s *Server) getPort(ctx context.Context, c *call, in getPortArgs) (service.PortResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.PortResponse{}, err
	}
	return c.svc.GetPort(ctx, sc, in.Name)
}

func (s *Server) releasePort(ctx context.Context, c *call, in portArgs) (service.PortResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.PortResponse{}, err
	}
	return c.svc.ReleasePort(ctx, sc, in.Name)
}

type listPortsArgs struct {
	projectArgs
}

func (s *Server) listPorts(ctx context.Context, c *call, in listPortsArgs) (service.PortsResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.PortsResponse{}, err
	}
	return c.svc.Ports(ctx, sc)
}

func portLine(p service.Port) string {
	where := p.Host
	if p.Here {
		where += " (here)"
	}
	return fmt.Sprintf("%s: port %d on %s, held by %s until %s", p.Name, p.Port, where, p.Holder, stamp(p.Expires))
}

func textPort(verb string) func(service.PortResponse) string {
	return func(r service.PortResponse) string { return verb + " " + portLine(r.Port) }
}

func textPorts(r service.PortsResponse) string {
	return listing(count(len(r.Ports), "port claimed", "ports claimed"), lines(r.Ports, portLine))
}
