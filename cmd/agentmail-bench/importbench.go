package main

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The import benchmark: `agentmail import agent-mail` of an archive in the
// layout the Python mcp_agent_mail server writes, into a fresh store,
// timed as a whole process (make bench-import).

// corpusVersion changes whenever writeAgentMailCorpus writes something
// else, so that a corpus kept in -dir by an older run is written again.
const corpusVersion = 1

// corpusSlug is the corpus's project, as the Python server names the
// project of /data/projects/bench.
const (
	corpusSlug    = "data-projects-bench"
	corpusProject = "/data/projects/bench"
)

// corpusStats is what writeAgentMailCorpus wrote.
type corpusStats struct {
	Version      int   `json:"version"`
	Messages     int   `json:"messages"`
	Reservations int   `json:"reservations"` // distinct reservations (each written twice)
	Agents       int   `json:"agents"`
	Bytes        int64 `json:"bytes"` // of the canonical message files
}

// corpusFile, in a corpus's directory, records what was written there.
const corpusFile = "agentmail-bench-corpus.json"

// loadOrWriteCorpus returns the corpus of n messages kept in dir by an
// earlier run, or writes one there.
func loadOrWriteCorpus(dir string, n int) (corpusStats, error) {
	var s corpusStats
	if b, err := os.ReadFile(filepath.Join(dir, corpusFile)); err == nil {
		if json.Unmarshal(b, &s) == nil && s.Version == corpusVersion && s.Messages == n {
			fmt.Printf("using the mcp_agent_mail corpus of %d messages written in %s before\n", n, dir)
			return s, nil
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return s, err
	}
	fmt.Printf("writing an mcp_agent_mail corpus of %d messages into %s ...\n", n, dir)
	start := time.Now()
	s, err := writeAgentMailCorpus(dir, n)
	if err != nil {
		return s, fmt.Errorf("write the corpus: %w", err)
	}
	fmt.Printf("written in %s (%d MB of message files)\n", time.Since(start).Round(time.Millisecond), s.Bytes>>20)
	b, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	return s, os.WriteFile(filepath.Join(dir, corpusFile), b, 0o644)
}

// subjectSlugRE is what the Python server replaces with "-" in a subject
// to name a message's file.
var subjectSlugRE = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// pyJSON encodes v as Python's json.dumps(v, indent=2, sort_keys=True)
// does (encoding/json sorts map keys; Python escapes non-ASCII, which the
// generated text has none of).
func pyJSON(v map[string]any) ([]byte, error) {
	return json.MarshalIndent(v, "", "  ")
}

// writeAgentMailCorpus writes, under dir, the storage root of a Python
// mcp_agent_mail server holding one project with n messages among 20
// agents, deterministically: the same n gives the same files. The layout
// is the server's (see its storage.py):
//
//	projects/<slug>/agents/<Name>/profile.json
//	projects/<slug>/messages/YYYY/MM/<ISO>__<subject-slug>__<id>.md
//	projects/<slug>/agents/<Name>/{inbox,outbox}/YYYY/MM/<same name>   copies
//	projects/<slug>/messages/threads/<thread>.md                       digests
//	projects/<slug>/file_reservations/{id-<N>,<sha1 of pattern>}.json
//
// The copies in the inboxes and outboxes are hard links to the canonical
// file (the server writes them byte for byte the same; links save the
// disk). Messages are dated from 2025-06-01 on, one every 86 seconds, in
// threads: a third start one (a few under a named thread id, the others
// with none, so replies are filed under their id), the rest reply in a
// recent thread. Bodies are markdown as agents write it: paragraphs of the
// benchmark's Zipf-distributed words, with lists, code spans and blocks,
// emphasis and headings in some.
func writeAgentMailCorpus(dir string, n int) (corpusStats, error) {
	s := corpusStats{Version: corpusVersion, Messages: n, Agents: len(benchAgents)}
	proj := filepath.Join(dir, "projects", corpusSlug)
	rng := rand.New(rand.NewPCG(25, 2026))
	gen := newTextGen(rng)
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	pyTime := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000000-07:00") }

	for i, name := range benchAgents {
		p := map[string]any{
			"attachments_policy": "auto", "contact_policy": "auto", "id": i + 1,
			"inception_ts":   pyTime(start.Add(-time.Duration(len(benchAgents)-i) * time.Hour)),
			"last_active_ts": pyTime(start.Add(time.Duration(n) * 86 * time.Second)),
			"model":          []string{"opus-4.1", "gpt-5-codex", "gemini-2.5-pro", "sonnet-4.5"}[i%4],
			"name":           name, "program": []string{"claude-code", "codex-cli", "gemini-cli"}[i%3],
			"project_id": 1, "task_description": gen.sentence(4),
		}
		b, err := pyJSON(p)
		if err != nil {
			return s, err
		}
		if err := writeCorpusFile(filepath.Join(proj, "agents", name, "profile.json"), b); err != nil {
			return s, err
		}
	}

	type thread struct {
		key     string // the thread_id replies carry
		named   bool   // started with a thread_id of its own
		subject string
		people  []int // who wrote in it
	}
	var threads []*thread
	digests := map[string]*os.File{}
	defer func() {
		for _, f := range digests {
			f.Close()
		}
	}()
	madeDirs := map[string]bool{}
	mkdir := func(d string) error {
		if madeDirs[d] {
			return nil
		}
		madeDirs[d] = true
		return os.MkdirAll(d, 0o755)
	}
	for i := 0; i < n; i++ {
		id := i + 1
		created := start.Add(time.Duration(i)*86*time.Second + time.Duration(rng.IntN(1_000_000))*time.Microsecond)
		var (
			from, to int
			th       *thread
			subject  string
			threadID any
		)
		if len(threads) == 0 || rng.IntN(3) == 0 {
			from = rng.IntN(len(benchAgents))
			to = (from + 1 + rng.IntN(len(benchAgents)-1)) % len(benchAgents)
			subject = gen.sentence(3 + rng.IntN(6))
			subject = strings.ToUpper(subject[:1]) + subject[1:]
			th = &thread{key: fmt.Sprint(id), subject: subject, people: []int{from, to}}
			if rng.IntN(5) == 0 {
				th.key, th.named = fmt.Sprintf("FEAT-%d", 100+len(threads)), true
				threadID = th.key
			}
			threads = append(threads, th)
		} else {
			// A reply in one of the 200 most recent threads, by one of its
			// people or another agent, to someone who wrote in it.
			th = threads[len(threads)-1-rng.IntN(min(200, len(threads)))]
			to = th.people[rng.IntN(len(th.people))]
			from = (to + 1 + rng.IntN(len(benchAgents)-1)) % len(benchAgents)
			if !slices.Contains(th.people, from) {
				th.people = append(th.people, from)
			}
			subject, threadID = "Re: "+th.subject, th.key
		}
		toList, ccList, bccList := []string{benchAgents[to]}, []string{}, []string{}
		recipients := []int{to}
		if rng.IntN(5) == 0 {
			cc := (to + 1 + rng.IntN(len(benchAgents)-1)) % len(benchAgents)
			if cc != from {
				ccList = append(ccList, benchAgents[cc])
				recipients = append(recipients, cc)
			}
		}
		if rng.IntN(30) == 0 {
			bcc := (from + 1 + rng.IntN(len(benchAgents)-1)) % len(benchAgents)
			if !slices.Contains(recipients, bcc) {
				bccList = append(bccList, benchAgents[bcc])
				recipients = append(recipients, bcc)
			}
		}
		importance := "normal"
		switch r := rng.IntN(100); {
		case r < 12:
			importance = "high"
		case r < 14:
			importance = "urgent"
		case r < 18:
			importance = "low"
		}
		front := map[string]any{
			"ack_required": rng.IntN(10) == 0, "attachments": []any{}, "bcc": bccList, "cc": ccList,
			"created": pyTime(created), "from": benchAgents[from], "id": id, "importance": importance,
			"project": corpusProject, "project_slug": corpusSlug, "subject": subject, "thread_id": threadID, "to": toList,
		}
		head, err := pyJSON(front)
		if err != nil {
			return s, err
		}
		body := markdownBody(rng, gen)
		content := "---json\n" + string(head) + "\n---\n\n" + body + "\n"

		slug := strings.ToLower(strings.Trim(subjectSlugRE.ReplaceAllString(subject, "-"), "-_"))
		if len(slug) > 80 {
			slug = slug[:80]
		}
		file := fmt.Sprintf("%s__%s__%d.md", created.Format("2006-01-02T15-04-05Z"), slug, id)
		ym := filepath.Join(created.Format("2006"), created.Format("01"))
		canonical := filepath.Join(proj, "messages", ym, file)
		if err := mkdir(filepath.Dir(canonical)); err != nil {
			return s, err
		}
		if err := os.WriteFile(canonical, []byte(content), 0o644); err != nil {
			return s, err
		}
		s.Bytes += int64(len(content))
		copies := []string{filepath.Join(proj, "agents", benchAgents[from], "outbox", ym)}
		for _, r := range recipients {
			copies = append(copies, filepath.Join(proj, "agents", benchAgents[r], "inbox", ym))
		}
		for _, d := range copies {
			if err := mkdir(d); err != nil {
				return s, err
			}
			if err := os.Link(canonical, filepath.Join(d, file)); err != nil {
				return s, err
			}
		}

		// The thread's digest, as the server appends to it for a message
		// with a thread_id.
		if threadID != nil {
			f := digests[th.key]
			if f == nil {
				d := filepath.Join(proj, "messages", "threads")
				if err := mkdir(d); err != nil {
					return s, err
				}
				if f, err = os.Create(filepath.Join(d, th.key+".md")); err != nil {
					return s, err
				}
				digests[th.key] = f
				fmt.Fprintf(f, "# Thread %s\n\n", th.key)
			}
			preview := body
			if len(preview) > 1200 {
				preview = strings.TrimRight(preview[:1200], " \n") + "\n..."
			}
			rel := filepath.ToSlash(filepath.Join("projects", corpusSlug, "messages", ym, file))
			fmt.Fprintf(f, "### %s\n\n## %s — %s → %s\n\n[View canonical](%s)\n\n%s\n\n---\n\n",
				subject, pyTime(created), benchAgents[from], strings.Join(toList, ", "), rel, preview)
			if len(digests) > 64 { // keep few files open
				for k, g := range digests {
					g.Close()
					delete(digests, k)
				}
			}
		}
		if id%10000 == 0 || id == n {
			fmt.Printf("\r  %d/%d", id, n)
		}
	}
	fmt.Println()
	for k, f := range digests {
		if err := f.Close(); err != nil {
			return s, err
		}
		delete(digests, k)
	}

	// File reservations, each written under its id and under the SHA-1 of
	// its pattern as the server does: ten per agent on disjoint
	// directories, most released long ago, a few still held.
	end := start.Add(time.Duration(n) * 86 * time.Second)
	for a := range benchAgents {
		for j := 0; j < 10; j++ {
			s.Reservations++
			rid := s.Reservations
			pattern := fmt.Sprintf("src/area-%d/mod-%d/**", a, j)
			created := start.Add(time.Duration(rng.Int64N(int64(end.Sub(start)))))
			var released any
			if j < 8 {
				released = pyTime(created.Add(time.Duration(1+rng.IntN(120)) * time.Minute))
			}
			r := map[string]any{
				"agent": benchAgents[a], "created_ts": pyTime(created), "exclusive": j%3 != 0,
				"expires_ts": pyTime(created.Add(4 * time.Hour)), "id": rid, "path_pattern": pattern,
				"project": corpusProject, "reason": gen.sentence(3), "released_ts": released,
			}
			if j >= 8 {
				r["expires_ts"] = pyTime(end.Add(24 * 365 * time.Hour))
			}
			b, err := pyJSON(r)
			if err != nil {
				return s, err
			}
			sum := sha1.Sum([]byte(pattern))
			for _, name := range []string{fmt.Sprintf("id-%d.json", rid), hex.EncodeToString(sum[:]) + ".json"} {
				if err := writeCorpusFile(filepath.Join(proj, "file_reservations", name), b); err != nil {
					return s, err
				}
			}
		}
	}
	return s, nil
}

// markdownBody is a message body as agents write them: a few paragraphs,
// and in some of them a heading, a list, inline code, emphasis, a link or
// a fenced code block.
func markdownBody(rng *rand.Rand, gen *textGen) string {
	var b strings.Builder
	if rng.IntN(10) == 0 {
		b.WriteString("## " + gen.sentence(2+rng.IntN(4)) + "\n\n")
	}
	paras := 1 + rng.IntN(4)
	for p := 0; p < paras; p++ {
		words := strings.Fields(gen.paragraph())
		switch rng.IntN(6) {
		case 0:
			k := rng.IntN(len(words))
			words[k] = "`" + words[k] + "()`"
		case 1:
			k := rng.IntN(len(words))
			words[k] = "**" + words[k] + "**"
		case 2:
			k := rng.IntN(len(words))
			words[k] = fmt.Sprintf("[%s](src/%s/%s.go)", words[k], words[rng.IntN(len(words))], words[k])
		}
		b.WriteString(strings.Join(words, " "))
		b.WriteString("\n\n")
	}
	if rng.IntN(4) == 0 {
		for i := 0; i < 2+rng.IntN(4); i++ {
			b.WriteString("- " + gen.sentence(3+rng.IntN(8)) + "\n")
		}
		b.WriteString("\n")
	}
	if rng.IntN(8) == 0 {
		b.WriteString("```go\n")
		for i := 0; i < 2+rng.IntN(6); i++ {
			w := strings.Fields(gen.sentence(3))
			fmt.Fprintf(&b, "%s := %s(%s)\n", w[0], w[1], w[2])
		}
		b.WriteString("```\n")
	}
	return strings.TrimSpace(b.String())
}

func writeCorpusFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// measureImport times `agentmail import agent-mail` of a corpus of n
// messages (written in dir, or kept there from an earlier run) into a
// fresh store, runs times, with base as well when given, in turns; it
// prints each run's rate and the medians against the goal.
func measureImport(bin, base, dir string, n, runs int) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agentmail-bench-import-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	corpus := filepath.Join(dir, "agent-mail-corpus")
	stats, err := loadOrWriteCorpus(corpus, n)
	if err != nil {
		return err
	}
	bins := []string{bin}
	if base != "" {
		bins = append(bins, base)
	}
	for j, b := range bins {
		if bins[j], err = filepath.Abs(b); err != nil {
			return err
		}
	}
	rates := make([][]float64, len(bins))
	cpus := make([][]time.Duration, len(bins))
	for i := 0; i < runs; i++ {
		for k := range bins {
			j := (i + k) % len(bins)
			d, cpu, err := timeImport(bins[j], dir, corpus, stats)
			if err != nil {
				return err
			}
			rate := float64(stats.Messages) / d.Seconds()
			rates[j] = append(rates[j], rate)
			cpus[j] = append(cpus[j], cpu)
			fmt.Printf("import agent-mail %-12s run %d: %8s %8.0f msg/s %8s cpu\n", filepath.Base(bins[j]), i+1, d.Round(time.Millisecond), rate, cpu.Round(time.Millisecond))
		}
	}
	for j, r := range rates {
		slices.Sort(r)
		m := r[len(r)/2]
		label := filepath.Base(bins[j])
		if j > 0 {
			label = "base " + label
		}
		fmt.Printf("%-28s %8.0f msg/s median of %d, %s cpu (%d messages)   target >= 20000 msg/s %s\n",
			"import agent-mail "+label, m, len(r), median(cpus[j]).Round(time.Millisecond), stats.Messages, verdict(m >= 20000))
	}
	return nil
}

// timeImport imports the corpus into a fresh store with bin and returns
// how long the process took, and its cpu time (user and system), after
// checking it imported every record.
func timeImport(bin, dir, corpus string, stats corpusStats) (wall, cpu time.Duration, err error) {
	home, err := os.MkdirTemp(dir, "import-store-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(bin, "import", "agent-mail", corpus, "--json")
	cmd.Env = append(os.Environ(), "AGENTMAIL_HOME="+home, "AGENTMAIL_PROJECT="+projectKey)
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return 0, 0, fmt.Errorf("%s import agent-mail: %v: %s", bin, err, ee.Stderr)
		}
		return 0, 0, err
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var doc struct {
		Imported struct{ Agents, Messages, Reservations int } `json:"imported"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return 0, 0, fmt.Errorf("%s import agent-mail --json: %v", bin, err)
	}
	if got := doc.Imported; got.Messages != stats.Messages || got.Agents != stats.Agents || got.Reservations != stats.Reservations {
		return 0, 0, fmt.Errorf("%s imported %d agents, %d messages, %d reservations, not %d, %d, %d", bin,
			got.Agents, got.Messages, got.Reservations, stats.Agents, stats.Messages, stats.Reservations)
	}
	return wall, cpu, nil
}
