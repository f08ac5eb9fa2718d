#!/usr/bin/env bash
# A scripted tour of agentmail in a temporary repository and store: two
# agents register, exchange messages, read, acknowledge and reply; one
# reserves files and the guard stops the other's commit; work is planned as
# tasks and claimed; a channel carries a post; an overseer pauses an agent;
# and the project's branch of the archive is cloned and read as files. Usage:
# scripts/demo.sh [path/to/agentmail, or a command on PATH]
set -euo pipefail
bin=${1:-bin/agentmail}
case $bin in
*/*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;;
*) bin=$(command -v "$bin") ;;
esac
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

# Leases: GreenCastle reserves the API; the guard stops BlueLake's commit.
am reserve 'src/api/**' --ttl 1h --reason "checkout API"
am guard install
mkdir -p src/api && echo 'def pay(): ...' > src/api/checkout.py && git add src/api/checkout.py
export AGENTMAIL_AGENT=BlueLake
say "git commit -m 'tweak checkout'   # as BlueLake"
if git -c user.name=demo -c user.email=demo@example.com commit -q -m 'tweak checkout'; then
  echo "the commit went through: the guard did not stop it" >&2
  exit 1
fi
git reset -q

# Work: an epic with two tasks, the second after the first.
export AGENTMAIL_AGENT=GreenCastle
taskid() { sed -n 's/^ *"id": "\([0-9A-Z]*\)".*/\1/p' | head -1; }
epic=$("$bin" task create "Checkout" --type epic --json | taskid)
first=$("$bin" task create "Payment API" --parent "$epic" --priority 1 --path 'src/api/**' --json | taskid)
am task create "Payment form" --parent "$epic" --dep "$first"
am task list
export AGENTMAIL_AGENT=BlueLake
am work
export AGENTMAIL_AGENT=GreenCastle
am release --all
am task claim "$first"
am task close "$first" --reason "done in 4f2c1e0"
export AGENTMAIL_AGENT=BlueLake
am work

# Channels: BlueLake follows builds; GreenCastle posts to it.
export AGENTMAIL_AGENT=BlueLake
am subscribe builds
export AGENTMAIL_AGENT=GreenCastle
am publish builds --body "main is green at 4f2c1e0"
export AGENTMAIL_AGENT=BlueLake
am poll builds --timeout 5s

# The overseer pauses BlueLake: its writes are refused until resumed.
am control pause BlueLake --as-human --reason "hold on until the schema lands"
export AGENTMAIL_AGENT=BlueLake
am check || true
am send --to GreenCastle --subject "can I go on?" --body "?" || true
am control resume BlueLake --as-human
export AGENTMAIL_AGENT=GreenCastle

# The archive is a git repository with a branch per project: a human clones
# the project's branch and reads the mail as files.
am project
slug=$("$bin" project --json | sed -n 's/.*"slug": "\([^"]*\)".*/\1/p')
say "git clone -b projects/$slug \"\$(agentmail archive path)\" mailbox && git -C mailbox log --oneline"
git clone -q -b "projects/$slug" "$("$bin" archive path)" "$tmp/mailbox"
git -C "$tmp/mailbox" log --oneline
cd "$tmp/mailbox"
run find messages agents/BlueLake -name '*.md'
f=$(find messages -name '*.md' | sort | head -1)
run cat "$f"
echo
