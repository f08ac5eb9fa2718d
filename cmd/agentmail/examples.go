package main

// examples are the EXAMPLES section of each command's help, by the
// command's path below agentmail ("" is agentmail itself). Every command
// has some (TestHelpWalk checks, and that each flag they use exists).
var examples = map[string][]string{
	"": {
		"export AGENTMAIL_AGENT=$(agentmail register --program claude-code --json | jq -r .agent.name)",
		"agentmail contacts request BlueLake --reason 'API handoff'   # first contact; BlueLake approves",
		"agentmail send --to BlueLake --subject 'API ready' --body 'See src/api/routes.py'",
		"agentmail inbox --unread",
		"agentmail reserve 'src/api/**' --reason 'auth rewrite' && agentmail guard install",
	},

	"send": {
		"agentmail send --to BlueLake --subject 'Auth API ready' --body 'Routes are in src/api/.'",
		"agentmail send --to BlueLake,RedCat --cc GreenCastle --subject 'Freeze main' --importance high --ack --body-file notes.md",
		"git log -5 | agentmail send --to all --subject 'Merged today' --body-file -",
		"agentmail send --to all --subject 'Deploying staging at 15:00' --category INFO --body 'Hold merges for 10 minutes.'",
		"agentmail send --to BlueLake --subject 'users.email unique?' --body 'Needed for the migration.' --wait 5m",
	},
	"reply": {
		"agentmail reply 01JD3Y4Q --body 'Thanks, wiring it up.'",
		"agentmail reply 01JD3Y4Q --all --body-file review.md",
		"agentmail reply 01JD3Y4Q --hold 15m --body 'Checking the logs first.'",
	},
	"inbox": {
		"agentmail inbox --unread",
		"agentmail inbox --urgent --since 2h",
		"agentmail inbox --category HANDOFF --limit 0 --bodies",
		"agentmail inbox --json | jq -r '.messages[].subject'",
	},
	"outbox": {
		"agentmail outbox",
		"agentmail outbox --limit 5 --json",
	},
	"show": {
		"agentmail show 01JD3Y4Q",
		"agentmail show 01JD3Y4Q --json | jq -r .message.body",
	},
	"read": {
		"agentmail read 01JD3Y4Q 01JD3Z7K",
		"agentmail read --all",
	},
	"ack": {
		"agentmail ack 01JD3Y4Q",
		"agentmail ack --all",
	},
	"thread": {
		"agentmail thread 01JD3Y4Q",
		"agentmail thread auth-rewrite --json",
	},
	"search": {
		"agentmail search deploy failed",
		"agentmail search 'from:BlueLake subject:auth since:2026-11-01'",
		"agentmail search '\"exact phrase\" -draft' --all --limit 5",
	},
	"check": {
		"agentmail check",
		"agentmail check --exit-code || agentmail inbox --unread   # in a hook that branches",
		"agentmail check --json | jq .unread",
	},
	"wait": {
		"agentmail wait --timeout 5m",
		"agentmail wait --from BlueLake --urgent --timeout 30m",
		"agentmail wait --thread 01JD3Y4Q --json",
	},

	"acks": {
		"agentmail acks pending",
		"agentmail acks overdue --older 30m",
	},
	"acks pending": {
		"agentmail acks pending",
		"agentmail acks pending --json",
	},
	"acks overdue": {
		"agentmail acks overdue",
		"agentmail acks overdue --older 30m",
	},

	"policy": {
		"agentmail policy",
		"agentmail policy set contacts_only",
	},
	"contacts": {
		"agentmail contacts request BlueLake --reason 'auth API handoff'",
		"agentmail contacts list",
	},
	"contacts request": {
		"agentmail contacts request BlueLake --reason 'auth API handoff'",
	},
	"contacts approve": {
		"agentmail contacts approve GreenCastle",
	},
	"contacts deny": {
		"agentmail contacts deny GreenCastle",
	},
	"contacts list": {
		"agentmail contacts list",
		"agentmail contacts list --json",
	},

	"reserve": {
		"agentmail reserve 'src/api/**' --reason 'auth rewrite'",
		"agentmail reserve docs/ README.md --ttl 30m --shared",
		"agentmail reserve src/db/schema.sql --allow-conflicts --reason 'one-line fix'",
	},
	"renew": {
		"agentmail renew",
		"agentmail renew 'src/api/**' --extend 1h",
	},
	"release": {
		"agentmail release 'src/api/**'",
		"agentmail release --all",
		"agentmail release --force --id 01JD3Y4QAB --reason 'holder silent since yesterday'",
	},
	"reservations": {
		"agentmail reservations",
		"agentmail reservations --mine --expired",
		"agentmail reservations --holder BlueLake --json",
	},
	"reservations check": {
		"agentmail reservations check src/api/routes.py docs/index.md",
	},

	"lock": {
		"agentmail lock acquire deploy/staging --ttl 10m",
		"agentmail lock run build/frontend --wait 10m -- make frontend",
		"agentmail lock list --prefix deploy/",
	},
	"lock acquire": {
		"agentmail lock acquire deploy/staging --ttl 10m",
		"agentmail lock acquire leader --wait 30s || echo 'someone else leads'",
	},
	"lock renew": {
		"agentmail lock renew deploy/staging --ttl 10m",
	},
	"lock release": {
		"agentmail lock release deploy/staging",
	},
	"lock list": {
		"agentmail lock list",
		"agentmail lock list --prefix deploy/ --json",
	},
	"lock run": {
		"agentmail lock run deploy/staging --ttl 5m -- ./scripts/deploy.sh staging",
		"agentmail lock run build/frontend --wait 10m -- make frontend",
	},

	"guard": {
		"agentmail guard install",
		"agentmail guard status",
		"agentmail guard check --paths src/api/routes.py",
	},
	"guard install": {
		"agentmail guard install",
		"agentmail guard install --mode warn --no-pre-push",
		"agentmail guard install --repo ~/src/shop",
	},
	"guard uninstall": {
		"agentmail guard uninstall",
		"agentmail guard uninstall --repo ~/src/shop",
	},
	"guard status": {
		"agentmail guard status",
		"agentmail guard status --json",
	},
	"guard check": {
		"agentmail guard check",
		"agentmail guard check --paths src/api/routes.py docs/index.md",
		"AGENTMAIL_AGENT=BlueLake agentmail guard check --mode warn",
	},
	"guard edit": {
		"agentmail guard edit < payload.json   # what the PreToolUse hook of setup claude-code --hooks runs",
		"agentmail guard edit --json < payload.json",
		"AGENTMAIL_AGENT=GreenCastle agentmail guard edit --auto-reserve < payload.json   # setup claude-code --hooks --auto-reserve",
	},
	"guard session-end": {
		"AGENTMAIL_AGENT=GreenCastle agentmail guard session-end < session-end.json   # what the SessionEnd hook of setup --auto-reserve runs",
		"agentmail guard session-end --json < session-end.json",
	},

	"register": {
		"agentmail register",
		"agentmail register --name GreenCastle --program claude-code --model opus --task 'auth API'",
		"export AGENTMAIL_AGENT=$(agentmail register --program claude-code --task 'auth API' --json | jq -r .agent.name)",
	},
	"whoami": {
		"agentmail whoami",
		"agentmail --agent BlueLake whoami --json",
	},
	"agents": {
		"agentmail agents",
		"agentmail agents --active --json",
		"agentmail agents --all",
		"agentmail agents retire RedCat",
	},
	"agents retire": {
		"agentmail agents retire RedCat",
	},
	"agents unretire": {
		"agentmail agents unretire RedCat",
	},
	"project archive": {
		"agentmail project archive",
		"agentmail project archive --json",
	},
	"project unarchive": {
		"agentmail project unarchive",
	},
	"agents delete": {
		"agentmail agents delete RedCat --confirm 'I UNDERSTAND'",
	},
	"project delete": {
		"agentmail project delete --confirm 'I UNDERSTAND' --json",
	},
	"purge": {
		"agentmail purge --older-than-days 90",
		"agentmail purge --older-than-days 90 --apply --json",
	},
	"agents deregister": {
		"agentmail agents deregister RedCat --json",
	},

	"import": {
		"agentmail import agent-mail ~/.mcp_agent_mail_git_mailbox_repo --source-project backend",
		"agentmail import beads .beads/issues.jsonl",
	},
	"import agent-mail": {
		"agentmail import agent-mail ~/.mcp_agent_mail_git_mailbox_repo --source-project backend",
		"agentmail import agent-mail ./old-archive/projects/backend --json",
	},
	"import beads": {
		"agentmail import beads .beads/issues.jsonl",
		"agentmail import beads ../old/.beads/issues.jsonl --json",
	},

	"project": {
		"agentmail project",
		"agentmail project --json",
	},
	"project set": {
		"agentmail project set github.com/acme/shop",
		"agentmail project set git@github.com:acme/shop.git",
	},

	"init": {
		"agentmail init",
		"agentmail --store /srv/agentmail init --json",
	},
	"archive": {
		"agentmail archive path",
	},
	"archive path": {
		"agentmail archive path",
		"git clone \"$(agentmail archive path)\" mailbox && git -C mailbox log --oneline",
	},
	"sync": {
		"agentmail sync",
		"agentmail sync --remote git@github.com:acme/shop-mail.git",
		"agentmail sync --status --json",
	},
	"doctor": {
		"agentmail doctor",
		"agentmail doctor --reindex",
		"agentmail doctor --gc --json",
	},

	"help": {
		"agentmail help send",
		"agentmail help lock acquire",
	},
	"version": {
		"agentmail version",
		"agentmail version --json",
	},
	"completion": {
		"source <(agentmail completion bash)",
		"agentmail completion bash > ~/.local/share/bash-completion/completions/agentmail",
		"agentmail completion zsh > \"${fpath[1]}/_agentmail\"",
		"agentmail completion fish > ~/.config/fish/completions/agentmail.fish",
	},
}
