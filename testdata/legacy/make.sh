#!/bin/sh
# make.sh BIN DIR: makes, with the agentmail binary BIN (a release from
# before each project had its own branch: commit 25e9c32), the fixture
# that testdata/script/legacy_migration.txtar opens with the current one:
# DIR/store.tar.gz (the store: archive.git and index.db) and DIR/NAME.json,
# what BIN answered to each --json query, which the new binary must answer
# byte for byte.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AGENTMAIL_HOME="$work/store" AGENTMAIL_NOW=2026-11-22T10:00:00Z HOME="$work/home"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"
git init -q "$work/repo"
git -C "$work/repo" remote add origin https://github.com/acme/shop.git
git init -q "$work/other"
git -C "$work/other" remote add origin https://github.com/acme/other.git
cd "$work/other"
"$bin" register --name QuietOwl --policy open >/dev/null
"$bin" send --agent QuietOwl --to QuietOwl --subject 'another project' --body 'kept apart' >/dev/null
cd "$work/repo"
"$bin" register --name GreenCastle --program claude-code --task 'auth API' --policy open >/dev/null
"$bin" register --name BlueLake --program codex-cli --task 'frontend' --policy open >/dev/null
id=$("$bin" send --agent GreenCastle --to BlueLake --subject 'Auth API ready' --category HANDOFF --body 'Routes are in src/api/.' --json | sed -n 's/.*"id": "\([0-9A-Z]*\)".*/\1/p' | head -1)
"$bin" reply "$id" --agent BlueLake --body 'Thanks, wiring it up.' >/dev/null
"$bin" read "$id" --agent BlueLake >/dev/null
"$bin" ack "$id" --agent BlueLake >/dev/null
"$bin" send --agent BlueLake --to GreenCastle --subject 'Schema question' --body 'Is **user_id** nullable?' >/dev/null
"$bin" reserve 'src/api/**' --agent GreenCastle --ttl 10000h --reason 'auth routes' >/dev/null
"$bin" lock acquire deploy/staging --agent BlueLake --ttl 10000h >/dev/null
echo "$id" > "$out/id"
q() { name=$1; shift; "$bin" "$@" --json > "$out/$name.json"; }
q agents agents
q whoami whoami --agent GreenCastle
q inbox_blue inbox --agent BlueLake --limit 0
q inbox_green inbox --agent GreenCastle --limit 0
q outbox outbox --agent GreenCastle --limit 0
q show show "$id" --agent BlueLake
q thread thread "$id" --agent GreenCastle
q search search nullable --agent GreenCastle
q reservations reservations --all
q locks lock list
tar -C "$work/store" -czf "$out/store.tar.gz" archive.git index.db
