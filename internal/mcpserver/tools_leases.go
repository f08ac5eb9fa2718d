package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) addLeaseTools() {
	addTool(s, tool{name: "file_reservation_paths", desc: "Reserve files before editing them: glob patterns (src/api/**, *.go; a directory covers what is below it) relative to project_key's directory. " +
		"All or nothing: when one overlaps another agent's reservation (either exclusive), nothing is granted and the call fails with RESERVATION_CONFLICT listing every conflict, unless allow_conflicts. " +
		"Reserving your own pattern again extends it. The pre-commit guard stops commits that touch files others hold."},
		textReserved, s.reservePaths)
	addTool(s, tool{name: "release_file_reservations", desc: "Release your reservations: by pattern (as reserved), by id, or all of your active ones when neither is given."},
		textReleased, s.releaseReservations)
	addTool(s, tool{name: "renew_file_reservations", desc: "Extend your active reservations (by pattern, by id, or all of them) by extend_seconds. An expired one cannot be renewed: reserve it again."},
		textRenewed, s.renewReservations)
	addTool(s, tool{name: "force_release_file_reservation", desc: "Take away another agent's reservation once it has expired or its holder has been silent for 30 minutes; the holder gets a message saying who and why."},
		textReleased, s.forceRelease)
	addTool(s, tool{name: "check_file_reservations", desc: "Who holds these paths: for each path, the active reservations covering it.", readOnly: true},
		textHolders, s.checkReservations)
	register(s, tool{name: "acquire_lock", desc: "Take a named lock (deploy/staging, leader: /-separated), exclusive, for ttl_seconds; waits up to wait_seconds while another holds it, else fails with LOCK_HELD naming the holder. Acquiring a lock you hold extends it."},
		textLock("acquired"), s.acquireLock)
	addTool(s, tool{name: "renew_lock", desc: "Extend a lock you hold to ttl_seconds from now."}, textLock("renewed"), s.renewLock)
	addTool(s, tool{name: "release_lock", desc: "Let go of a lock you hold."}, textLock("released"), s.releaseLock)
	addTool(s, tool{name: "list_locks", desc: "The locks held now, optionally only those whose key starts with prefix.", readOnly: true}, textLocks, s.listLocks)
	register(s, tool{name: "acquire_build_slot", desc: "Take a build slot: the lock build/SLOT, exclusive, for ttl_seconds (fails with LOCK_HELD while another agent holds it, unless it frees within wait_seconds)."},
		textLock("acquired"), s.acquireBuildSlot)
	addTool(s, tool{name: "renew_build_slot", desc: "Extend your build slot by extend_seconds (from its expiry, or from now once expired)."}, textLock("renewed"), s.renewBuildSlot)
	addTool(s, tool{name: "release_build_slot", desc: "Let go of your build slot."}, textLock("released"), s.releaseBuildSlot)
	addTool(s, tool{name: "install_precommit_guard", desc: "Install the git hooks (pre-commit, pre-merge-commit and pre-push, unless no_pre_push) that stop a commit touching files another agent holds exclusively. An existing hook is kept and still runs first."},
		func(r GuardInstalled) string { return textGuard(r.GuardInstallResponse) }, s.installGuardTool)
	addTool(s, tool{name: "uninstall_precommit_guard", desc: "Remove the guard's hooks, putting back exactly what was there before."},
		func(r GuardRemoved) string { return textUnguard(r.GuardUninstallResponse) }, s.uninstallGuardTool)
}

type reserveArgs struct {
	agentArgs
	Paths          []string `json:"paths" jsonschema:"glob patterns relative to project_key's directory (default: the server's): src/api/**, docs/*.md, Makefile; a directory name covers what is below it"`
	TTLSeconds     *int     `json:"ttl_seconds,omitempty" jsonschema:"how long the reservation lasts unless renewed"`
	Exclusive      *bool    `json:"exclusive,omitempty" jsonschema:"default true; false for a shared reservation, which conflicts only with exclusive ones"`
	Reason         string   `json:"reason,omitempty" jsonschema:"what you are doing, for the other agents"`
	AllowConflicts bool     `json:"allow_conflicts,omitempty" jsonschema:"grant even when others hold overlapping reservations (advisory, as mcp_agent_mail does); the conflicts are still listed"`
	offlineArgs
	idempotencyArgs
}

func (reserveArgs) argDefaults() map[string]any {
	return map[string]any{"ttl_seconds": secondsOf(service.DefaultReserveTTL)}
}

// offlineArgs are the arguments of a tool that grants a lease, which a
// project that syncs decides by pushing to its remote.
type offlineArgs struct {
	Offline bool `json:"offline,omitempty" jsonschema:"when the project syncs and its remote cannot be reached (REMOTE_UNREACHABLE): grant here only, marked unconfirmed until a sync decides it: what reached the remote first wins"`
}

// reserve reserves req's patterns as agent. A conflict is an error that
// lists the conflicts (its hint names the holder: toolHints).
func (s *Server) reserve(ctx context.Context, c *call, p projectArgs, agent string, req service.ReserveRequest) (service.ReserveResponse, error) {
	sc, err := c.scope(p, agent)
	if err != nil {
		return service.ReserveResponse{}, err
	}
	resp, err := c.svc.Reserve(ctx, sc, req)
	if err != nil && len(resp.Conflicts) > 0 {
		err = withConflicts(err, resp.Conflicts)
	}
	return resp, err
}

func (a reserveArgs) request(reason string) (service.ReserveRequest, error) {
	ttl, err := lasting(a.TTLSeconds, service.DefaultReserveTTL, "ttl_seconds")
	return service.ReserveRequest{Patterns: a.Paths, TTL: ttl, Shared: !boolOr(a.Exclusive, true), Reason: reason,
		AllowConflicts: a.AllowConflicts, Offline: a.Offline, IdempotencyKey: a.IdempotencyKey}, err
}

func (s *Server) reservePaths(ctx context.Context, c *call, in reserveArgs) (Reserved, error) {
	req, err := in.request(in.Reason)
	if err != nil {
		return Reserved{}, err
	}
	r, err := s.reserve(ctx, c, in.projectArgs, in.AgentName, req)
	return reserved(r), err
}

func textReserved(r Reserved) string { return textReserve(r.resp) }

func textReserve(r service.ReserveResponse) string {
	text := reservationListing("granted "+count(len(r.Granted), "reservation", "reservations"), r.Granted)
	if len(r.Conflicts) > 0 {
		text += "\n" + listing("conflicts (granted anyway)", lines(r.Conflicts, conflictLine))
	}
	for _, w := range r.Warnings {
		text += "\nwarning: " + w
	}
	if w := r.HooksWarning; w != nil {
		text += "\nwarning: " + hooksWarning(w)
	}
	return text
}

// hooksWarning says that git does not run the guard's hooks in the
// repository, and how an agent fixes it.
func hooksWarning(w *service.HooksWarning) string {
	fix := fmt.Sprintf("call install_precommit_guard with code_repo_path %q: it installs the hooks where git runs them, keeping the ones there", w.Repo)
	if w.Global {
		fix = "ask a human to unset the global core.hooksPath (git config --global --unset core.hooksPath), then call install_precommit_guard"
	}
	return w.Problem() + " (" + fix + ")"
}

type selectArgs struct {
	agentArgs
	Paths              []string `json:"paths,omitempty" jsonschema:"patterns as you reserved them (relative to project_key's directory)"`
	FileReservationIDs []string `json:"file_reservation_ids,omitempty" jsonschema:"reservation ids as file_reservation_paths returns them (strings), or unique prefixes of 6+ characters"`
}

// selection is what a release or renewal names: paths, ids, or, with
// neither, all of the agent's reservations. An empty list given is a
// mistake, not "all".
func (a selectArgs) selection() (service.Selection, error) {
	if (a.Paths != nil && len(a.Paths) == 0) || (a.FileReservationIDs != nil && len(a.FileReservationIDs) == 0) {
		return service.Selection{}, fault.WithHint(fmt.Errorf("%w: an empty list of paths or ids", service.ErrInvalidArgument),
			"leave paths and file_reservation_ids out to mean all of your reservations, or name some")
	}
	all := len(a.Paths) == 0 && len(a.FileReservationIDs) == 0
	return service.Selection{Patterns: a.Paths, IDs: a.FileReservationIDs, All: all}, nil
}

func (s *Server) releaseReservations(ctx context.Context, c *call, in selectArgs) (Released, error) {
	sel, err := in.selection()
	if err != nil {
		return Released{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return Released{}, err
	}
	return released(c.svc.Release(ctx, sc, sel))
}

func textReleased(r Released) string {
	return reservationListing("released "+count(r.Released, "reservation", "reservations"), reservationsOf(r.FileReservations))
}

type renewArgs struct {
	selectArgs
	ExtendSeconds *int `json:"extend_seconds,omitempty" jsonschema:"how much longer each reservation lasts"`
	offlineArgs
}

func (renewArgs) argDefaults() map[string]any {
	return map[string]any{"extend_seconds": secondsOf(service.DefaultRenewExtend)}
}

func (s *Server) renewReservations(ctx context.Context, c *call, in renewArgs) (Renewed, error) {
	sel, err := in.selection()
	if err != nil {
		return Renewed{}, err
	}
	extend, err := lasting(in.ExtendSeconds, service.DefaultRenewExtend, "extend_seconds")
	if err != nil {
		return Renewed{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return Renewed{}, err
	}
	resp, err := c.svc.Renew(ctx, sc, service.RenewRequest{Selection: sel, Extend: extend, Offline: in.Offline})
	return renewed(resp, extend), err
}

func textRenewed(r Renewed) string {
	list := make([]Lease, len(r.FileReservations))
	for i, l := range r.FileReservations {
		list[i] = l.Lease
	}
	return reservationListing("renewed "+count(r.Renewed, "reservation", "reservations"), reservationsOf(list))
}

type forceReleaseArgs struct {
	agentArgs
	FileReservationID string `json:"file_reservation_id" jsonschema:"the reservation's id (a string), or a unique prefix of 6+ characters"`
	Note              string `json:"note,omitempty" jsonschema:"why you take it, for its holder"`
	NotifyPrevious    *bool  `json:"notify_previous,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: the holder is always told"`
}

func (s *Server) forceRelease(ctx context.Context, c *call, in forceReleaseArgs) (Released, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return Released{}, err
	}
	reason := strings.TrimSpace(in.Note)
	if reason == "" {
		reason = "released with force_release_file_reservation"
	}
	out, err := released(c.svc.ForceRelease(ctx, sc, service.ForceReleaseRequest{ID: in.FileReservationID, Reason: reason}))
	if len(out.FileReservations) == 1 {
		out.Reservation = &out.FileReservations[0]
	}
	return out, err
}

type checkPathsArgs struct {
	projectArgs
	Paths []string `json:"paths" jsonschema:"file paths relative to project_key's directory (default: the server's)"`
}

func (s *Server) checkReservations(ctx context.Context, c *call, in checkPathsArgs) (service.CheckPathsResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.CheckPathsResponse{}, err
	}
	return c.svc.CheckPaths(ctx, sc, in.Paths)
}

func textHolders(r service.CheckPathsResponse) string {
	return strings.Join(lines(r.Paths, func(p service.PathHolders) string {
		if len(p.Holders) == 0 {
			return p.Path + ": free"
		}
		return p.Path + ": " + strings.Join(reservationLines(p.Holders), "; ")
	}), "\n")
}

type lockArgs struct {
	agentArgs
	Key        string `json:"key" jsonschema:"the lock's name: /-separated words such as deploy/staging or leader"`
	TTLSeconds *int   `json:"ttl_seconds,omitempty" jsonschema:"how long it lasts unless renewed"`
}

func (lockArgs) argDefaults() map[string]any {
	return map[string]any{"ttl_seconds": secondsOf(service.DefaultLockTTL)}
}

type acquireArgs struct {
	lockArgs
	WaitSeconds int `json:"wait_seconds,omitempty" jsonschema:"wait up to this many seconds while another agent holds it; default 0, fail at once"`
	offlineArgs
}

// acquire takes a lock, on a service of its own: a wait must not hold up
// other calls.
func (s *Server) acquire(ctx context.Context, req *mcp.CallToolRequest, p projectArgs, agent string, lr service.LockRequest, wait int) (service.LockResponse, error) {
	var err error
	if lr.Wait, err = seconds(wait, "wait_seconds"); err != nil {
		return service.LockResponse{}, err
	}
	var resp service.LockResponse
	err = s.unlocked(ctx, req, lr.Wait > 0, func(c *call) (service.Scope, error) { return c.scope(p, agent) },
		func(ctx context.Context, svc *service.Service, sc service.Scope) error {
			resp, err = svc.AcquireLock(ctx, sc, lr)
			if err == nil && ctx.Err() != nil {
				// Granted as the call ended: its client is gone (or closed
				// its input) and will never hear of the lock, which must
				// not stand for nobody.
				_, rerr := svc.ReleaseLock(context.WithoutCancel(ctx), sc, lr.Key)
				return errors.Join(ctx.Err(), rerr)
			}
			return withLock(err, resp)
		})
	return resp, err
}

func (a lockArgs) request() (service.LockRequest, error) {
	ttl, err := lasting(a.TTLSeconds, service.DefaultLockTTL, "ttl_seconds")
	return service.LockRequest{Key: a.Key, TTL: ttl}, err
}

func (s *Server) acquireLock(ctx context.Context, req *mcp.CallToolRequest, in acquireArgs) (service.LockResponse, error) {
	lr, err := in.request()
	if err != nil {
		return service.LockResponse{}, err
	}
	lr.Offline = in.Offline
	return s.acquire(ctx, req, in.projectArgs, in.AgentName, lr, in.WaitSeconds)
}

func (s *Server) renewLock(ctx context.Context, c *call, in lockArgs) (service.LockResponse, error) {
	lr, err := in.request()
	if err != nil {
		return service.LockResponse{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.LockResponse{}, err
	}
	resp, err := c.svc.RenewLock(ctx, sc, lr)
	return resp, withLock(err, resp)
}

type releaseLockArgs struct {
	agentArgs
	Key string `json:"key" jsonschema:"the lock's name, such as deploy/staging"`
}

func (s *Server) releaseLock(ctx context.Context, c *call, in releaseLockArgs) (service.LockResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.LockResponse{}, err
	}
	resp, err := c.svc.ReleaseLock(ctx, sc, in.Key)
	return resp, withLock(err, resp)
}

func textLock(verb string) func(service.LockResponse) string {
	return func(r service.LockResponse) string { return verb + " " + lockLine(r.Lock) }
}

type listLocksArgs struct {
	projectArgs
	Prefix string `json:"prefix,omitempty" jsonschema:"only locks whose key starts with this, such as build/"`
}

func (s *Server) listLocks(ctx context.Context, c *call, in listLocksArgs) (service.LocksResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.LocksResponse{}, err
	}
	return c.svc.Locks(ctx, sc, in.Prefix)
}

func textLocks(r service.LocksResponse) string {
	return listing(count(len(r.Locks), "lock held", "locks held"), lines(r.Locks, lockLine))
}

// Build slots are locks named build/SLOT.
const slotPrefix = "build/"

type slotArgs struct {
	agentArgs
	Slot   string `json:"slot" jsonschema:"the slot's name, such as frontend: the lock build/SLOT"`
	Branch string `json:"branch,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: a slot is held by an agent"`
}

// key is the slot's lock.
func (a slotArgs) key() (string, error) {
	slot := strings.TrimSpace(a.Slot)
	if slot == "" {
		return "", service.Usagef("name the slot, such as slot: frontend", "no slot named")
	}
	return slotPrefix + slot, nil
}

type acquireSlotArgs struct {
	slotArgs
	TTLSeconds  *int  `json:"ttl_seconds,omitempty" jsonschema:"how long it lasts unless renewed"`
	Exclusive   *bool `json:"exclusive,omitempty" jsonschema:"must be true (the default): build slots are exclusive"`
	WaitSeconds int   `json:"wait_seconds,omitempty" jsonschema:"wait up to this many seconds while another agent holds it; default 0, fail at once"`
	offlineArgs
}

func (acquireSlotArgs) argDefaults() map[string]any {
	return map[string]any{"ttl_seconds": secondsOf(buildSlotTTL)}
}

func (s *Server) acquireBuildSlot(ctx context.Context, req *mcp.CallToolRequest, in acquireSlotArgs) (service.LockResponse, error) {
	if !boolOr(in.Exclusive, true) {
		return service.LockResponse{}, fault.WithHint(fmt.Errorf("%w: build slots are always exclusive", service.ErrInvalidArgument),
			"leave exclusive out; to share a build, agree on it by message")
	}
	key, err := in.key()
	if err != nil {
		return service.LockResponse{}, err
	}
	ttl, err := seconds(intOr(in.TTLSeconds, secondsOf(buildSlotTTL)), "ttl_seconds")
	if err != nil {
		return service.LockResponse{}, err
	}
	return s.acquire(ctx, req, in.projectArgs, in.AgentName, service.LockRequest{Key: key, TTL: ttl, Offline: in.Offline}, in.WaitSeconds)
}

type renewSlotArgs struct {
	slotArgs
	ExtendSeconds *int `json:"extend_seconds,omitempty" jsonschema:"how much longer it lasts"`
}

func (renewSlotArgs) argDefaults() map[string]any {
	return map[string]any{"extend_seconds": secondsOf(buildSlotExtend)}
}

// Build slots are MCP's alone (mcp_agent_mail's tools): their defaults
// are mcp_agent_mail's.
const (
	buildSlotTTL    = time.Hour
	buildSlotExtend = 30 * time.Minute
)

// renewBuildSlot extends the slot from the later of now and its expiry,
// as mcp_agent_mail does: the lock is renewed to what remains of it plus
// the extension.
func (s *Server) renewBuildSlot(ctx context.Context, c *call, in renewSlotArgs) (service.LockResponse, error) {
	key, err := in.key()
	if err != nil {
		return service.LockResponse{}, err
	}
	extend, err := seconds(intOr(in.ExtendSeconds, secondsOf(buildSlotExtend)), "extend_seconds")
	if err != nil {
		return service.LockResponse{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.LockResponse{}, err
	}
	held, err := c.svc.Locks(ctx, sc, key)
	if err != nil {
		return service.LockResponse{}, err
	}
	var left time.Duration
	for _, l := range held.Locks {
		if l.Key == key {
			left = max(l.Expires.Sub(c.svc.Now()), 0)
		}
	}
	resp, err := c.svc.RenewLock(ctx, sc, service.LockRequest{Key: key, TTL: left + extend})
	return resp, withLock(err, resp)
}

func (s *Server) releaseBuildSlot(ctx context.Context, c *call, in slotArgs) (service.LockResponse, error) {
	key, err := in.key()
	if err != nil {
		return service.LockResponse{}, err
	}
	return s.releaseLock(ctx, c, releaseLockArgs{agentArgs: in.agentArgs, Key: key})
}

type guardArgs struct {
	projectArgs
	CodeRepoPath string `json:"code_repo_path" jsonschema:"the absolute path of the repository (or of any directory in it) to guard"`
}

type installGuardArgs struct {
	guardArgs
	Mode      string `json:"mode,omitempty" jsonschema:"block (the default: a commit touching others' files fails) or warn (it says so and goes ahead)"`
	NoPrePush bool   `json:"no_pre_push,omitempty" jsonschema:"leave out the pre-push hook, which checks what no commit hook sees (rebases, cherry-picks, amends, fast-forward merges)"`
}

// repo checks code_repo_path.
func (a guardArgs) repo() (string, error) {
	dir := strings.TrimSpace(a.CodeRepoPath)
	if !filepath.IsAbs(dir) {
		return "", fault.WithHint(fmt.Errorf("%w: code_repo_path %q is not an absolute path", service.ErrInvalidArgument, dir),
			"pass the absolute path of your repository")
	}
	return filepath.Clean(dir), nil
}

func (s *Server) installGuard(ctx context.Context, c *call, in installGuardArgs) (service.GuardInstallResponse, error) {
	repo, err := in.repo()
	if err != nil {
		return service.GuardInstallResponse{}, err
	}
	p := in.projectArgs
	if p.ProjectKey == "" {
		p.ProjectKey = repo // the guarded repository's project
	}
	sc, err := c.project(p, "")
	if err != nil {
		return service.GuardInstallResponse{}, err
	}
	return c.svc.GuardInstall(ctx, sc, service.GuardInstallRequest{Repo: repo, Mode: in.Mode, NoPrePush: in.NoPrePush})
}

// installGuardTool is install_precommit_guard, with mcp_agent_mail's hook.
func (s *Server) installGuardTool(ctx context.Context, c *call, in installGuardArgs) (GuardInstalled, error) {
	r, err := s.installGuard(ctx, c, in)
	return guardInstalled(r), err
}

// uninstallGuardTool is uninstall_precommit_guard, with mcp_agent_mail's
// removed.
func (s *Server) uninstallGuardTool(ctx context.Context, c *call, in guardArgs) (GuardRemoved, error) {
	r, err := s.uninstallGuard(ctx, c, in)
	return guardRemoved(r), err
}

func hookLines(hooks []service.HookChange) []string {
	return lines(hooks, func(h service.HookChange) string { return fmt.Sprintf("%s %s (%s)", h.Hook, h.Action, h.Path) })
}

func textGuard(r service.GuardInstallResponse) string {
	return listing(fmt.Sprintf("guard in %s mode, store %s", r.Mode, r.Store), hookLines(r.Hooks))
}

func (s *Server) uninstallGuard(ctx context.Context, c *call, in guardArgs) (service.GuardUninstallResponse, error) {
	if err := in.check(); err != nil {
		return service.GuardUninstallResponse{}, err
	}
	repo, err := in.repo()
	if err != nil {
		return service.GuardUninstallResponse{}, err
	}
	return service.GuardUninstall(ctx, repo)
}

func textUnguard(r service.GuardUninstallResponse) string {
	return listing("guard removed from "+r.Dir, hookLines(r.Hooks))
}
