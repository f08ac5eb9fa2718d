#!/usr/bin/env bash
# A scripted tour of agentmail in a temporary repository and store: two
# agents register, exchange messages, read, acknowledge and reply, and the
# archive is shown with git log. Usage: scripts/demo.sh [path/to/agentmail]
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/agentmail}")" && pwd)/$(basename "${1:-bin/agentmail}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export AGENTMAIL_HOME=$tmp/store
unset AGENTMAIL_AGENT AGENT_NAME AGENTMAIL_PROJECT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }
am() { say "agentmail $*"; "$bin" "$@"; }

git init -q "$tmp/shop"
cd "$tmp/shop"
am register --name GreenCastle --program claude-code --task "checkout API"
am register --name BlueLake --program codex --task "checkout UI"
am agents

# New agents take mail from any agent of the project (contact policy open).
export AGENTMAIL_AGENT=GreenCastle
am send --to BlueLake --subject "Checkout API is ready" --importance high --ack --thread checkout \
  --body $'The endpoints are in `src/api/checkout.py`:\n\n- `POST /cart`\n- `POST /pay`\n\nPlease confirm the UI can use them.'

export AGENTMAIL_AGENT=BlueLake
am inbox
id=$("$bin" inbox --json | sed -n 's/.*"id": "\([0-9A-Z]*\)".*/\1/p' | head -1)
am show "${id:0:8}"
am ack "${id:0:8}"
am reply "${id:0:8}" --body "Confirmed: wired up in the UI, tests pass."

export AGENTMAIL_AGENT=GreenCastle
am inbox --unread
am thread checkout

say 'git clone "$(agentmail archive path)" mailbox && git -C mailbox log --oneline'
git clone -q "$("$bin" archive path)" "$tmp/mailbox"
git -C "$tmp/mailbox" log --oneline
run find "$tmp/mailbox/projects" -name '*.md' -path '*messages*'
f=$(find "$tmp/mailbox/projects" -name '*.md' -path '*messages*' | sort | head -1)
run cat "$f"
