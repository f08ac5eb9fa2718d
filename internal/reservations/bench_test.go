package reservations

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/store"
)

// benchWorld is a project where 20 agents hold 50 reservations each on
// disjoint directories, as cmd/agentmail-bench seeds it.
func benchWorld(b *testing.B) *world { return benchWorldOpts(b, store.Options{}) }

// benchWorldOpts is benchWorld with a store opened with opts.
func benchWorldOpts(b *testing.B, opts store.Options) *world {
	w := newWorldOpts(b, opts)
	for a := 0; a < 20; a++ {
		pats := make([]string, 50)
		for j := range pats {
			pats[j] = fmt.Sprintf("area-%d/pkg-%d/**", a, j*20+a)
		}
		if _, err := w.as(fmt.Sprintf("Agent%d", a)).Reserve(context.Background(), pats, Options{TTL: 1000 * time.Hour}); err != nil {
			b.Fatal(err)
		}
	}
	return w
}

// BenchmarkReserve50 reserves 50 patterns against 1,000 active
// reservations: one op is a whole Reserve, archive commit included. The
// same patterns each time, so that the archive does not grow.
func BenchmarkReserve50(b *testing.B) {
	w := benchWorld(b)
	pats := make([]string, 50)
	for j := range pats {
		pats[j] = fmt.Sprintf("run-x/part-%d/*.go", j)
	}
	svc := w.as("GreenCastle")
	for b.Loop() {
		if _, err := svc.Reserve(context.Background(), pats, Options{TTL: time.Hour}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReserveRelease50 is what cmd/agentmail-bench's MCP reservation
// runs make a long-lived server do: reserve 50 new patterns against 1,000
// active reservations, then release them. One op is both writes, each a
// millisecond apart, so that their leases land in directories of their own
// as in real use. Besides the time, it reports the processor time of the
// process and its children an op takes (cpu-ns/op), background work and
// roll-ups included, which is what competes with the other processes of a
// busy machine.
func BenchmarkReserveRelease50(b *testing.B) {
	w := benchWorldOpts(b, store.Options{RollUpInBackground: true})
	svc := w.as("GreenCastle")
	i := 0
	start := cpuTime(b)
	for b.Loop() {
		pats := make([]string, 50)
		for j := range pats {
			pats[j] = fmt.Sprintf("run-%d/part-%d/*.go", i, j)
		}
		i++
		w.advance(time.Millisecond)
		if _, err := svc.Reserve(context.Background(), pats, Options{TTL: time.Hour}); err != nil {
			b.Fatal(err)
		}
		w.advance(time.Millisecond)
		if _, err := svc.Release(context.Background(), Selector{Patterns: pats}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the processor time the process and its children (the
// git of roll-ups) have used, user and system, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var t int64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		t += ru.Utime.Nano() + ru.Stime.Nano()
	}
	return t
}

// BenchmarkNormalize50 validates, normalizes and compiles the 50 patterns of
// a reservation.
func BenchmarkNormalize50(b *testing.B) {
	pats := make([]string, 50)
	for j := range pats {
		pats[j] = fmt.Sprintf("run-x/part-%d/*.go", j)
	}
	svc := &Service{}
	for b.Loop() {
		if _, _, _, err := svc.normalize(pats); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck1000 says who holds each of 1,000 paths, each held by one
// of 1,000 reservations, with and without 2,000 more reservations elsewhere
// (what cmd/agentmail-bench's reserve runs leave behind).
func BenchmarkCheck1000(b *testing.B) {
	paths := make([]string, 1000)
	for j := range paths {
		paths[j] = fmt.Sprintf("area-%d/pkg-%d/file.go", j%20, j)
	}
	for _, elsewhere := range []int{0, 2000} {
		b.Run(fmt.Sprintf("elsewhere=%d", elsewhere), func(b *testing.B) {
			w := benchWorld(b)
			for i := 0; i < elsewhere; i += 50 {
				pats := make([]string, 50)
				for j := range pats {
					pats[j] = fmt.Sprintf("run-%d/part-%d/*.go", i, j)
				}
				if _, err := w.as("RedFox").Reserve(context.Background(), pats, Options{TTL: time.Hour}); err != nil {
					b.Fatal(err)
				}
			}
			svc := w.as("")
			for b.Loop() {
				if _, err := svc.Check(context.Background(), paths); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
