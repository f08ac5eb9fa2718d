#!/bin/sh
# agentmail-guard: this hook was written by `agentmail guard install`; `agentmail guard uninstall` removes it.
# It stops a commit that touches paths another agent has reserved (agentmail reservations).
# Skip it once with AGENTMAIL_BYPASS=1 (or git commit --no-verify); AGENTMAIL_GUARD_MODE=warn only warns.
# A hook that was here before is kept as @HOOK@.agentmail-orig next to this one and runs first.
hook=@HOOK@
agentmail=@AGENTMAIL@
store=@STORE@
project=@PROJECT@
mode=${AGENTMAIL_GUARD_MODE:-${AGENT_MAIL_GUARD_MODE:-@MODE@}}
orig="${0%/*}/$hook.agentmail-orig"
if [ -x "$orig" ]; then
	"$orig" "$@" || exit $?
fi
set --
