package mcpserver

import (
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
)

// Tool profiles offer a part of the tools, as mcp_agent_mail's tool
// filter does under the same names: tool definitions cost a client's
// model context (docs/mcp-tools.md gives the bytes of tools/list of
// each). A profile is a set of clusters plus single tools, as there.

// Profiles are the profile names, the default first.
var Profiles = []string{"full", "core", "minimal", "messaging"}

// Tool clusters, mcp_agent_mail's, and where our own tools go.
const (
	clusterSetup     = "infrastructure"
	clusterIdentity  = "identity"
	clusterMessaging = "messaging"
	clusterContact   = "contact"
	clusterSearch    = "search"
	clusterLeases    = "file_reservations"
	clusterMacros    = "workflow_macros"
	clusterSlots     = "build_slots" // and our locks and ports: leases other than files
	clusterProduct   = "product_bus"
	clusterTasks     = "work" // ours: work items
)

// toolClusters is the cluster of each tool: mcp_agent_mail's for its tools
// (also those not served here yet, so that they land in the profiles
// there hold them when they are added), ours by what they do. A tool
// missing here is in the full profile only.
var toolClusters = map[string]string{
	"health_check": clusterSetup, "ensure_project": clusterSetup, "archive_project": clusterSetup, "unarchive_project": clusterSetup,
	"hard_delete_project": clusterSetup, "install_precommit_guard": clusterSetup, "uninstall_precommit_guard": clusterSetup,

	"register_agent": clusterIdentity, "whois": clusterIdentity, "list_agents": clusterIdentity, "create_agent_identity": clusterIdentity,
	"deregister_agent": clusterIdentity, "retire_agent": clusterIdentity, "unretire_agent": clusterIdentity, "hard_delete_agent": clusterIdentity,
	"list_window_identities": clusterIdentity, "rename_window": clusterIdentity, "expire_window": clusterIdentity,
	"resolve_pane_identity": clusterIdentity, "cleanup_pane_identities": clusterIdentity,

	"send_message": clusterMessaging, "reply_message": clusterMessaging, "fetch_inbox": clusterMessaging, "mark_message_read": clusterMessaging,
	"acknowledge_message": clusterMessaging, "check_mail": clusterMessaging, "wait_for_mail": clusterMessaging, "fetch_topic": clusterMessaging,
	"subscribe_topic": clusterMessaging, "unsubscribe_topic": clusterMessaging,
	"set_agent_state": clusterIdentity, "control_agent": clusterIdentity, "get_rules": clusterIdentity,
	"purge_old_messages": clusterMessaging, "get_attachment": clusterMessaging, "fetch_inbox_events": clusterMessaging, "get_message_delivery_receipt": clusterMessaging,

	"request_contact": clusterContact, "respond_contact": clusterContact, "list_contacts": clusterContact, "set_contact_policy": clusterContact,

	"search_messages": clusterSearch, "summarize_thread": clusterSearch, "get_thread": clusterSearch, "summarize_recent": clusterSearch,
	"fetch_summary": clusterSearch,

	"file_reservation_paths": clusterLeases, "release_file_reservations": clusterLeases, "renew_file_reservations": clusterLeases,
	"force_release_file_reservation": clusterLeases, "check_file_reservations": clusterLeases, "check_file_reservation_conflicts": clusterLeases,

	"macro_start_session": clusterMacros, "macro_prepare_thread": clusterMacros, "macro_file_reservation_cycle": clusterMacros,
	"macro_contact_handshake": clusterMacros,

	"acquire_build_slot": clusterSlots, "renew_build_slot": clusterSlots, "release_build_slot": clusterSlots,
	"acquire_lock": clusterSlots, "renew_lock": clusterSlots, "release_lock": clusterSlots, "list_locks": clusterSlots,
	"claim_port": clusterSlots, "get_port": clusterSlots, "release_port": clusterSlots, "list_ports": clusterSlots,

	"ensure_product": clusterProduct, "products_link": clusterProduct, "search_messages_product": clusterProduct,
	"fetch_inbox_product": clusterProduct, "summarize_thread_product": clusterProduct,

	"create_task": clusterTasks, "update_task": clusterTasks, "get_task": clusterTasks, "list_tasks": clusterTasks,
	"list_ready_work": clusterTasks, "claim_task": clusterTasks, "release_task": clusterTasks, "close_task": clusterTasks,
	"reopen_task": clusterTasks, "add_task_dependency": clusterTasks, "remove_task_dependency": clusterTasks,
}

// profiles are the profiles other than full: their clusters and tools.
var profiles = map[string]struct{ clusters, tools []string }{
	"core": {clusters: []string{clusterIdentity, clusterMessaging, clusterLeases, clusterMacros},
		tools: []string{"health_check", "ensure_project"}},
	"minimal": {tools: []string{"health_check", "ensure_project", "register_agent", "send_message", "fetch_inbox", "acknowledge_message"}},
	"messaging": {clusters: []string{clusterIdentity, clusterMessaging, clusterContact},
		tools: []string{"health_check", "ensure_project", "search_messages"}},
}

// CheckProfile returns an error unless name is a profile ("" is full).
func CheckProfile(name string) error {
	if name == "" || slices.Contains(Profiles, name) {
		return nil
	}
	return service.Usagef("pass one of "+strings.Join(Profiles, ", "), "no tool profile %q", name)
}

// inProfile reports whether profile (a name CheckProfile accepts) holds
// tool.
func inProfile(profile, tool string) bool {
	p, ok := profiles[profile]
	if !ok {
		return true // full
	}
	return slices.Contains(p.tools, tool) || slices.Contains(p.clusters, toolClusters[tool]) && toolClusters[tool] != ""
}
