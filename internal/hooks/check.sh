# The part every agentmail hook shares, appended to each by Render.
case ${AGENTMAIL_BYPASS:-} in 1 | true | yes)
	echo "agentmail guard: AGENTMAIL_BYPASS=$AGENTMAIL_BYPASS: reservation check skipped ($hook)" >&2
	exit 0
	;;
esac
if [ -n "${AGENTMAIL_NOW:-}" ]; then
	echo "agentmail guard: AGENTMAIL_NOW=$AGENTMAIL_NOW: reservations are judged at that time, not the real one ($hook; unset it unless you mean it)" >&2
fi
if [ ! -x "$agentmail" ]; then
	if command -v agentmail >/dev/null 2>&1; then
		agentmail=agentmail
	else
		echo "agentmail guard: cannot run agentmail: $agentmail is gone and agentmail is not on PATH (install it and run agentmail guard install again, or bypass with AGENTMAIL_BYPASS=1 or git @GITCMD@ --no-verify)" >&2
		if [ "$mode" = warn ]; then
			echo "agentmail guard: warn mode: going ahead unchecked" >&2
			exit 0
		fi
		exit 1
	fi
fi
# The store and project recorded at install are always checked; a store or
# project the committer's environment names is checked as well.
exec "$agentmail" guard check --hook "$hook" --mode "$mode" --default-store "$store" --default-project "$project" "$@"
