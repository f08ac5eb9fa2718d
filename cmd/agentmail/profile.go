package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// profileEnv names the file a CPU profile of the whole run is written to.
// make pgo has the agentmail mcp of cmd/agentmail-bench write one, which
// becomes default.pgo, the profile the go command optimizes the binary by.
const profileEnv = "AGENTMAIL_CPUPROFILE"

// profiled runs fn, writing a CPU profile of it to the file path names
// when path is not "", and returns fn's exit code. A profile that cannot
// be written is an error, said on stderr, and fn does not run.
func profiled(path string, stderr io.Writer, fn func() int) int {
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentmail: %s: %v (unset %s, or name a file that can be written)\n", profileEnv, err, profileEnv)
		return exitError
	}
	code := fn()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "agentmail: %s: %v\n", profileEnv, err)
		if code == 0 {
			code = exitError
		}
	}
	return code
}
