#!/bin/sh
# agentmail-guard: this hook was written by `agentmail guard install`; `agentmail guard uninstall` removes it.
# It stops a push whose commits touch paths another agent has reserved (agentmail reservations).
# Skip it once with AGENTMAIL_BYPASS=1 (or git push --no-verify); AGENTMAIL_GUARD_MODE=warn only warns.
# A hook that was here before is kept as @HOOK@.agentmail-orig next to this one and runs first,
# with the same standard input (the refs being pushed).
hook=@HOOK@
agentmail=@AGENTMAIL@
store=@STORE@
project=@PROJECT@
mode=${AGENTMAIL_GUARD_MODE:-${AGENT_MAIL_GUARD_MODE:-@MODE@}}
orig="${0%/*}/$hook.agentmail-orig"
if [ -x "$orig" ]; then
	# Both hooks read the refs on standard input: keep a copy, open it twice
	# (each descriptor reads it from the start), and remove the file at once.
	tmp=$(mktemp "${TMPDIR:-/tmp}/agentmail-pre-push.XXXXXX") || exit 1
	if ! cat >"$tmp"; then
		rm -f "$tmp"
		exit 1
	fi
	exec 3<"$tmp" 4<"$tmp"
	rm -f "$tmp"
	"$orig" "$@" <&3 3<&- 4<&- || exit $?
	exec 0<&4 3<&- 4<&-
fi
# Only the commits the remote being pushed to ($1) lacks count as new.
set -- --remote "$1"
