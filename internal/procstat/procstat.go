// Package procstat reads what Linux's /proc says of a process, for the
// benchmarks and load tests that watch a live agentmail server.
package procstat

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// RSS returns a process's peak and current resident set size in bytes
// (VmHWM and VmRSS of /proc/PID/status).
func RSS(pid int) (peak, now int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("resident memory of process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		var kb int64
		switch k {
		case "VmHWM":
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				peak = kb << 10
			}
		case "VmRSS":
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				now = kb << 10
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("resident memory of process %d: %w", pid, err)
	}
	if peak == 0 || now == 0 {
		return 0, 0, fmt.Errorf("resident memory of process %d: no VmHWM or VmRSS in /proc/%d/status", pid, pid)
	}
	return peak, now, nil
}
