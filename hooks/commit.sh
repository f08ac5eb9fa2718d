#!/bin/sh
# agentmail-guard: this hook was written by `agentmail guard install`; `agentmail guard uninstall` removes it.
# It stops a commit that touches paths another agent has reserved (agentmail reservations).
# Skip it once with AGENTMAIL_BYPASS=1 (or git commit --no-verify); AGENTMAIL_GUARD_MODE=warn only warns.
# A hook that was here before is kept as @HOOK@.agentmail-orig next to this one and runs first.
hook=@HOOK@
agentmail=@AGENTMAIL@
mode=${AGENTMAIL_GUARD_MODE:-${AGENT_MAIL_GUARD_MODE:-@MODE@}}
orig="${0%/*}/$hook.agentmail-orig"
if [ -x "$orig" ]; then
	"$orig" "$@" || exit $?
fi
case ${AGENTMAIL_BYPASS:-} in 1 | true | yes)
	echo "agentmail guard: AGENTMAIL_BYPASS=$AGENTMAIL_BYPASS: reservation check skipped ($hook)" >&2
	exit 0
	;;
esac
if [ ! -x "$agentmail" ]; then
	if command -v agentmail >/dev/null 2>&1; then
		agentmail=agentmail
	else
		echo "agentmail guard: cannot run agentmail: $agentmail is gone and agentmail is not on PATH (install it and run agentmail guard install again, or bypass with AGENTMAIL_BYPASS=1 or git commit --no-verify)" >&2
		if [ "$mode" = warn ]; then
			echo "agentmail guard: warn mode: going ahead unchecked" >&2
			exit 0
		fi
		exit 1
	fi
fi
exec "$agentmail" guard check --hook "$hook" --mode "$mode"
