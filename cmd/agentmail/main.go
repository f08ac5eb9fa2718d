// Command agentmail is mail, file reservations and commit guards for a team
// of coding agents sharing one codebase. See README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	if !buildSupported {
		fmt.Fprintln(os.Stderr, "agentmail: this binary was built without cgo or the sqlite_fts5 tag and cannot open its index; rebuild it with `make build` (CGO_ENABLED=1 go build -tags sqlite_fts5 ./cmd/agentmail)")
		os.Exit(exitError)
	}
	commandMemory.apply(os.Getenv)
	os.Exit(profiled(os.Getenv(profileEnv), os.Stderr, func() int {
		return run(os.Args, os.Stdin, os.Stdout, os.Stderr)
	}))
}
