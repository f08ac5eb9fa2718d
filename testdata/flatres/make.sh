#!/bin/sh
# make.sh BIN DIR: makes, with the agentmail binary BIN (a release from
# before reservations fanned out by time, which kept each in
# reservations/<id>.json: commit 4aecb7a), the fixture that
# testdata/script/reservation_layout_migration.txtar opens with the
# current one: DIR/store.tar.gz (the store: archive.git and index.db) and
# DIR/NAME.json, what BIN answered to each --json query, which the new
# binary must answer byte for byte.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AGENTMAIL_HOME="$work/store" HOME="$work/home"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"
at() { AGENTMAIL_NOW=2026-11-22T$1Z; export AGENTMAIL_NOW; }
at 09:00:00
for p in repo:shop other:other; do
	git init -q "$work/${p%%:*}"
	git -C "$work/${p%%:*}" remote add origin "https://github.com/acme/${p#*:}.git"
done
cd "$work/other"
"$bin" register --name QuietOwl --policy open >/dev/null
"$bin" reserve 'x/**' --agent QuietOwl --ttl 10000h >/dev/null
cd "$work/repo"
"$bin" register --name GreenCastle --program claude-code --task 'auth API' --policy open >/dev/null
"$bin" register --name BlueLake --program codex-cli --task 'frontend' --policy open >/dev/null
"$bin" send --agent GreenCastle --to BlueLake --subject 'Auth API ready' --body 'Routes are in src/api/.' >/dev/null
at 09:00:01
"$bin" reserve 'src/api/**' 'src/auth/*.go' --agent GreenCastle --ttl 10000h --reason 'auth routes' >/dev/null
at 09:00:05
"$bin" reserve 'docs/**' --shared --agent BlueLake --ttl 10000h >/dev/null
at 09:00:10
"$bin" reserve 'web/**' --agent BlueLake --ttl 1h --reason 'layout' >/dev/null
at 09:00:20
"$bin" reserve 'tmp/**' --agent GreenCastle --ttl 1m >/dev/null
at 09:00:30
"$bin" reserve 'lib/**' --agent GreenCastle --ttl 1h >/dev/null
at 09:30:00
"$bin" release 'web/**' --agent BlueLake >/dev/null
at 09:40:00
"$bin" renew --agent GreenCastle --extend 10000h >/dev/null
"$bin" lock acquire deploy/staging --agent BlueLake --ttl 10000h >/dev/null
at 10:00:00
"$bin" reservations --all --expired --json | sed -n 's/.*"id": "\([0-9A-Z]*\)".*/\1/p' | head -1 > "$out/id"
q() { name=$1; shift; "$bin" "$@" --json > "$out/$name.json"; }
q active reservations
q all reservations --all --expired
q mine reservations --mine --expired --agent GreenCastle
q check reservations check src/api/x.go docs/a.md web/b.html tmp/c lib/d.go
q locks lock list
q agents agents # last: --agent records a last-seen time
tar -C "$work/store" -czf "$out/store.tar.gz" archive.git index.db
