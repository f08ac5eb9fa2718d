package server

import (
	"fmt"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// notFound is the error of a thing named in an address that does not
// exist.
func notFound(what, name string) error {
	return fault.WithHint(fmt.Errorf("%w: no %s %q", service.ErrNotFound, what, name),
		"follow the links from the project's pages, or list with the API (see README, agentmail serve)")
}
