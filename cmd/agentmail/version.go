package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is set at link time by make build (-X main.version=...); without
// it the module version the go command recorded is shown.
var version string

// buildInfo is what agentmail version reports.
type buildInfo struct {
	Version  string   `json:"version"`
	Module   string   `json:"module"`
	Revision *string  `json:"revision"`
	Time     *string  `json:"time"`
	Modified bool     `json:"modified"`
	Go       string   `json:"go"`
	OS       string   `json:"os"`
	Arch     string   `json:"arch"`
	Cgo      bool     `json:"cgo"`
	Tags     []string `json:"tags"`
}

// readBuildInfo gathers the version and the build settings the go command
// recorded in the binary.
func readBuildInfo() buildInfo {
	info := buildInfo{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Tags: []string{}}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return withDefaultVersion(info)
	}
	info.Module = bi.Main.Path
	if info.Version == "" {
		info.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = &s.Value
		case "vcs.time":
			info.Time = &s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		case "CGO_ENABLED":
			info.Cgo = s.Value == "1"
		case "-tags":
			info.Tags = strings.Split(s.Value, ",")
		}
	}
	return withDefaultVersion(info)
}

func withDefaultVersion(info buildInfo) buildInfo {
	if info.Version == "" || info.Version == "(devel)" {
		info.Version = "devel"
	}
	return info
}

func versionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version and how this binary was built",
		ArgsUsage: " ",
		Description: "The version (set by make build, else the module version), the git revision and commit time it\n" +
			"was built from (when the go command recorded them), the Go version, cgo and the build tags.\n" +
			"agentmail --version prints the same.",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return e.printVersion(c)
		},
	}
}

func (e *env) printVersion(c *cli.Context) error {
	info := readBuildInfo()
	if jsonOutput(c) {
		return e.output(c).printJSON(info)
	}
	rev, when := "unknown", "unknown"
	if info.Revision != nil {
		rev = *info.Revision
		if info.Modified {
			rev += " (modified)"
		}
	}
	if info.Time != nil {
		when = *info.Time
	}
	cgo := "off"
	if info.Cgo {
		cgo = "on"
	}
	fmt.Fprintf(e.stdout, "agentmail %s\n", info.Version)
	table(e.stdout, "revision\t"+rev, [][]string{
		{"committed", when},
		{"go", info.Go + " " + info.OS + "/" + info.Arch},
		{"cgo", cgo},
		{"tags", strings.Join(info.Tags, ",")},
	})
	return nil
}
