# The part every agentmail hook shares, appended to each by Render.
case ${AGENTMAIL_BYPASS:-} in 1 | true | yes)
	echo "agentmail guard: AGENTMAIL_BYPASS=$AGENTMAIL_BYPASS: reservation check skipped ($hook)" >&2
	exit 0
	;;
esac
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
# The store recorded at install serves when AGENTMAIL_HOME names none.
exec "$agentmail" guard check --hook "$hook" --mode "$mode" --default-store "$store"
