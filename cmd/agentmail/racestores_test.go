package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// raceStoreNames are the agents of the second store in racestores, apart
// from raceNames, the first's.
var raceStoreNames = []string{"AmberLake", "BlueCastle", "GreenFox", "RedOtter", "SilverRiver",
	"AmberOtter", "BlueHarbor", "GreenFalcon", "RedLake", "SilverCastle"}

// racestores TRIALS N ARGS...: for each of TRIALS trials, runs N
// `agentmail ARGS...` processes on the store $WORK/storeA in $WORK/a and N
// on $WORK/storeB in $WORK/b, all at once; "%t" in the arguments becomes
// the trial's number and "%n" an agent name of the process's own (raceNames
// on A, raceStoreNames on B). It fails unless every trial has exactly one
// winner (exit 0) and every other process exited 3 (conflict), and prints
// "trials=T winners=W conflicts=C", and how many wins each store had.
// "%r" becomes the path of a file that does not exist until all processes
// but one have exited (or a minute has passed): a command that waits for
// it holds what it won (lock run) until every rival has been decided.
func cmdRaceStores(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: racestores TRIALS N ARGS...")
	}
	trials, _ := strconv.Atoi(args[0])
	n, _ := strconv.Atoi(args[1])
	if n > len(raceNames) {
		ts.Fatalf("racestores: at most %d processes a store", len(raceNames))
	}
	bin, work := agentmailPath(ts), ts.Getenv("WORK")
	stores := []struct {
		name  string
		names []string
	}{{"A", raceNames}, {"B", raceStoreNames}}
	total := map[string]int{}
	for t := 0; t < trials; t++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		counts := map[string]int{}
		release := filepath.Join(work, fmt.Sprintf("race-release-%d", t))
		os.Remove(release) // an earlier racestores's
		exited := make(chan struct{}, 2*n)
		go func() {
			timeout := time.After(time.Minute)
			for i := 0; i < 2*n-1; i++ {
				select {
				case <-exited:
				case <-timeout:
					i = 2 * n
				}
			}
			os.WriteFile(release, nil, 0o644)
		}()
		for _, st := range stores {
			env := append(scriptEnv(ts), "AGENTMAIL_HOME="+filepath.Join(work, "store"+st.name))
			dir := filepath.Join(work, strings.ToLower(st.name))
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := runRacer(ts, bin, env, dir, args[2:],
						strings.NewReplacer("%t", strconv.Itoa(t), "%n", st.names[i], "%r", release))
					exited <- struct{}{}
					if key == "ok" {
						key = "win" + st.name
					}
					mu.Lock()
					counts[key]++
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		if counts["winA"]+counts["winB"] != 1 || counts["other"] != 0 {
			ts.Fatalf("trial %d: %v, want exactly one winner and the rest conflicts", t, counts)
		}
		for k, v := range counts {
			total[k] += v
		}
	}
	fmt.Fprintf(ts.Stdout(), "trials=%d winners=%d conflicts=%d winsA=%d winsB=%d\n",
		trials, total["winA"]+total["winB"], total["conflict"], total["winA"], total["winB"])
}
