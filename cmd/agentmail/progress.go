package main

import (
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
)

// progress returns a callback that draws a progress bar for what
// ("reindexing") on stderr, counting unit ("messages"), and the function
// that ends the bar. Only a person at a terminal sees a bar: when stderr is
// not a terminal, or the output is JSON, the callback is nil and end does
// nothing, so the output is the same as without one.
func (e *env) progress(c *cli.Context, what, unit string) (report func(done, total int), end func()) {
	if jsonOutput(c) || !isTerminal(e.stderr) {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	var last time.Time
	report = func(done, total int) {
		if bar == nil {
			max := total
			if max <= 0 {
				max = -1 // a spinner: how much is left is not known
			}
			bar = progressbar.NewOptions(max,
				progressbar.OptionSetWriter(e.stderr),
				progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString(unit),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		if total > bar.GetMax() && bar.GetMax() > 0 {
			bar.ChangeMax(total)
		}
		// Callers report every item: most reports only move a number.
		if now := time.Now(); done == 0 || total > 0 && done >= total || now.Sub(last) >= 50*time.Millisecond {
			last = now
			bar.Set(done)
		}
	}
	end = func() {
		if bar != nil {
			bar.Finish()
		}
	}
	return report, end
}
