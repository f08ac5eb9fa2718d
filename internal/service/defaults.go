package service

import (
	"time"

	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/tasks"
)

// The defaults of the requests' durations and sizes, defined once: the command
// line's flag values, the MCP tools' schema defaults and the HTTP API's
// fields left out all read them.
const (
	// DefaultReserveTTL is how long a ReserveRequest's leases last unless
	// it says.
	DefaultReserveTTL = time.Hour
	// DefaultRenewExtend is how much longer a RenewRequest makes its
	// leases last unless it says.
	DefaultRenewExtend = 30 * time.Minute
	// DefaultLockTTL is how long a LockRequest's lock lasts unless it says.
	DefaultLockTTL = 5 * time.Minute
	// DefaultClaimTTL is how long the leases a ClaimTaskRequest takes on
	// the task's paths last unless it says.
	DefaultClaimTTL = time.Hour
	// DefaultPortTTL is how long a PortRequest's claim lasts unless it says.
	DefaultPortTTL = time.Hour
	// DefaultListLimit is how many messages or results a list of mail
	// (inbox, outbox, search, a topic) has unless the request says; 0 is
	// all.
	DefaultListLimit = 20
	// DefaultTaskLimit is how many tasks a TasksRequest lists unless it
	// says; 0 is all.
	DefaultTaskLimit = 50
	// DefaultReadyLimit is how many ready tasks Work lists unless asked.
	DefaultReadyLimit = 5
	// DefaultCheckNewest is how many of the newest unread messages Check
	// lists unless asked.
	DefaultCheckNewest = 3
	// DefaultSummaryWindow is how far back a digest of the recent mail
	// (RecentRequest) reads unless asked.
	DefaultSummaryWindow = 24 * time.Hour
	// DefaultPriority is a new task's priority unless it says: 0 is
	// critical, 4 backlog.
	DefaultPriority = tasks.DefaultPriority
	// AutoReserveTTL is how long a lease taken on edit (guard edit
	// --auto-reserve) lasts before a further edit renews it.
	AutoReserveTTL = reservations.AutoTTL
	// MaxTTL is the longest a lease or lock may last.
	MaxTTL = reservations.MaxTTL
)
