package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
)

// generalHint is the hint of an error of no known kind.
const generalHint = "if it happens again, run agentmail doctor --check and report it with the command that failed"

// cliHints word failures in the command line's terms: its flags and
// commands, from the failure's code, field and values (the service says
// what went wrong as data; advice to run a command is the command line's).
var cliHints = service.Hints{
	"AGENT_RETIRED": func(f service.Failure) string {
		return "agentmail agents unretire " + cmp.Or(f.String("name"), "NAME") + " brings it back; agentmail agents lists who is active"
	},
	"PROJECT_ARCHIVED":  service.Say("bring it back with agentmail project unarchive (in its repository, or with --project KEY); reads go on meanwhile"),
	"NOT_FOUND/product": service.Say("agentmail product ensure NAME makes one, with the current project in it"),
	"INVALID_ARGUMENT/hooks": func(f service.Failure) string {
		if f.String("problem") == "unsupported" {
			return "leave out --hooks"
		}
		return "add --hooks"
	},
	"INVALID_ARGUMENT/dir":      service.Say("agentmail export PROJECT DIR writes into a new or empty DIR; agentmail export --verify DIR checks one"),
	"INVALID_ARGUMENT/redact":   service.Say("--redact takes a regular expression that matches something, such as --redact 'ghp_[A-Za-z0-9]{36}'"),
	"INVALID_ARGUMENT/sign_key": service.Say("--sign-key takes an SSH private key file without a passphrase prompt, or a public key whose private key ssh-agent holds"),
	"USAGE/dir":                 service.Say("usage: agentmail export PROJECT DIR | agentmail export --verify DIR"),
	"USAGE":                     service.Say("see: agentmail --help"),
	"USAGE/patterns":            service.Say("usage: agentmail reserve PATTERN... [--ttl 1h] [--shared] [--reason R]"),
	"USAGE/selection":           service.Say("agentmail release PATTERN... | --id ID | --all"),
	"USAGE/paths":               service.Say("usage: agentmail reservations check PATH..."),
	"NO_PROJECT":                service.Say("run agentmail inside your project's git checkout, or pass --project KEY"),
	"NOT_REGISTERED":            service.Say("pass --agent NAME or set AGENTMAIL_AGENT; register one with: agentmail register"),
	"NO_PROJECT/project":        projectHint,
	"INVALID_ARGUMENT/project":  projectHint,
	"NOT_REGISTERED/agent": func(f service.Failure) string {
		switch f.String("problem") {
		case "human":
			return "send or reply as the overseer with --as-human"
		case "unregistered":
			return "register it with: agentmail register --name " + f.String("name") + " (or check --agent / AGENTMAIL_AGENT)"
		}
		return ""
	},
	"NAME_TAKEN/name": func(f service.Failure) string {
		name := f.String("name")
		return fmt.Sprintf("choose another name (e.g. --name %s), omit --name for a generated one, or pass --agent %s if you are %s", f.String("free"), name, name)
	},
	"INVALID_NAME/name": func(f service.Failure) string {
		if f.String("problem") == "empty" {
			return "omit --name for a generated name, or pass one such as --name GreenCastle"
		}
		if free := f.String("free"); free != "" {
			return "try --name " + free + ", or omit --name for a generated one"
		}
		return ""
	},
	"USAGE/hold":    durationHint("hold", ""),
	"USAGE/timeout": durationHint("timeout", " (0 checks once)"),
	"USAGE/batch":   service.Say("pass a positive --batch"),
	"USAGE/limit": func(f service.Failure) string {
		return "pass --limit 0 for all " + cmp.Or(f.String("all"), "of them")
	},
	"USAGE/ids": func(f service.Failure) string {
		verb := f.String("verb")
		return "agentmail " + verb + " ID... or agentmail " + verb + " --all"
	},
	"INVALID_NAME":      service.Say("agent names are an adjective and a noun, like GreenCastle; omit --name for a generated one"),
	"NAME_TAKEN":        service.Say("choose another name, or omit --name for a generated one"),
	"UNKNOWN_RECIPIENT": service.Say("agentmail agents lists who is registered"),
	"NOT_FOUND":         service.Say("check the id or name: agentmail inbox and agentmail outbox list your messages"),
	"NOT_FOUND/name": func(f service.Failure) string {
		switch {
		case f.String("port") == "":
			return ""
		case f.String("holder") != "": // a release of a claim one does not hold
			return "agentmail port list shows the claims"
		}
		return "claim it: agentmail port claim " + f.String("port")
	},
	"NOT_FOUND/patterns": service.Say("agentmail reservations --mine lists yours"),
	"NOT_FOUND/ids": func(f service.Failure) string {
		if f.Bool("released") {
			return "agentmail reservations lists the active ones"
		}
		return "agentmail reservations --mine --expired lists yours"
	},
	"NOT_FOUND/key": func(f service.Failure) string { return "acquire it with: agentmail lock acquire " + f.String("key") },
	"INVALID_ARGUMENT/ids": func(f service.Failure) string {
		if f.String("holder") == "" {
			return ""
		}
		return "message the holder, or use release --force --id ID --reason R once it has expired or its holder is silent"
	},
	"INVALID_ARGUMENT/selection": func(f service.Failure) string { return "reserve it again: agentmail reserve " + f.String("pattern") },
	"INVALID_ARGUMENT/reason":    service.Say("pass --reason, which the holder receives"),
	"INVALID_ARGUMENT":           service.Say("see: agentmail COMMAND --help"),
	"INVALID_ARGUMENT/ttl":       durationHint("ttl", ""),
	"INVALID_ARGUMENT/extend":    durationHint("extend", ""),
	"INVALID_ARGUMENT/wait":      durationHint("wait", ", or leave it out not to wait"),
	"INVALID_ARGUMENT/subject":   subjectHint,
	"INVALID_ARGUMENT/thread":    service.Say("pass a short --thread name, or an existing message id"),
	"INVALID_ARGUMENT/to":        service.Say("pass --to NAME[,NAME...] (agentmail agents lists who is registered)"),
	"AUTHENTICATION_REQUIRED":    service.Say("act as your own agent (leave agent_name out), or start agentmail mcp --overseer to act for any agent"),
	"TIMEOUT": func(f service.Failure) string {
		if th := f.String("thread"); th != "" {
			return "follow it with: agentmail thread " + th
		}
		return "wait again, or check agentmail inbox"
	},
	"NOT_FOUND/from": service.Say("agentmail contacts list shows requests"),
	"NOT_FOUND/id":   service.Say("agents see only their own mail; check the id with agentmail inbox"),
	"CONTACT_REQUIRED": func(f service.Failure) string {
		if to := f.String("recipient"); to != "" {
			return fmt.Sprintf(`ask first: agentmail contacts request %s --reason "...", then send once %s approves`, to, to)
		}
		return `ask first: agentmail contacts request NAME --reason "..."`
	},
	"CONTACT_BLOCKED": func(f service.Failure) string {
		if f.String("recipient") != "" {
			return "ask a human to pass the message on (agentmail send --as-human)"
		}
		return "the recipient takes no mail; ask a human to pass it on (agentmail send --as-human)"
	},
	"RESERVATION_CONFLICT": conflictHint,
	"LOCK_HELD":            lockHeldHint,
	"PORT_HELD": func(f service.Failure) string {
		if f.String("holder") == "" {
			return "use it (agentmail port get NAME), claim another name, or ask the holder (agentmail send --to HOLDER)"
		}
		return fmt.Sprintf("use it (agentmail port get %s), claim another name, or ask the holder: agentmail send --to %s --subject 'port %s'",
			f.String("name"), f.String("holder"), f.String("name"))
	},
	"NO_FREE_PORT": service.Say("release ports you no longer use: agentmail port list"),
	"TASK_CLAIMED": func(f service.Failure) string {
		return fmt.Sprintf("choose another task (agentmail work), ask the holder (agentmail send --to %s), or take it over once its holder is silent: agentmail task claim %s --force --reason R",
			cmp.Or(f.String("holder"), "HOLDER"), cmp.Or(f.String("task"), "ID"))
	},
	"DEPENDENCY_CYCLE":               service.Say("remove the dependency that closes the cycle first (agentmail task dep rm), or leave this one out"),
	"PAUSED":                         service.Say("wait to be resumed (agentmail wait returns when you are); reads, check, wait, state and releasing what you hold still work"),
	"GUARD_NOT_RUN":                  func(f service.Failure) string { return hooksFix(f.Bool("global")) },
	"GLOBAL_HOOKS_PATH":              service.Say("pass --allow-global to install the hooks there anyway"),
	"GLOBAL_HOOKS_PATH/allow_global": service.Say("unset it (git config --global --unset core.hooksPath), set a repository-local one, or pass --allow-global"),
	"NO_BINARY":                      service.Say("install agentmail (make install) so that it is on PATH, then run agentmail guard install again"),
	"NO_PROJECT/repo":                service.Say("run it inside the repository, or pass --repo DIR"),
	"NO_PROJECT/store": func(f service.Failure) string {
		if f.String("problem") == "unknown_project" {
			return andOwn(f, "point AGENTMAIL_HOME at the store the agents use, or record the project in this store with agentmail guard install; agentmail project shows the key")
		}
		return andOwn(f, "point AGENTMAIL_HOME at the store the agents use, or run agentmail guard install again from an environment that names it")
	},
	"INVALID_ARGUMENT/hook":  service.Say("--hook is pre-commit, pre-merge-commit or pre-push"),
	"INVALID_ARGUMENT/mode":  service.Say("the mode is block or warn; check --mode, AGENTMAIL_GUARD_MODE and AGENT_MAIL_GUARD_MODE"),
	"INVALID_ARGUMENT/agent": service.Say("pass --agent NAME"),
	"USAGE/interval":         service.Say("agentmail sync --watch [--interval 5s]"),
	"NOT_FOUND/archive_path": func(f service.Failure) string {
		return `git -C "$(agentmail archive path)" log --stat projects/` + f.String("slug") + " shows the project's commits and files"
	},
	"INVALID_ARGUMENT/source_project": func(f service.Failure) string {
		if f.String("problem") == "several" {
			return "choose the one to import into this project with --source-project SLUG"
		}
		return "drop --source-project, or pass the storage root that holds projects/" + f.String("want")
	},
	"NOT_FOUND/source_project":        service.Say("pass one of them with --source-project"),
	"NOT_FOUND/message_id":            listedBy("agentmail inbox or agentmail outbox"),
	"INVALID_ARGUMENT/message_id":     listedBy("agentmail inbox or agentmail outbox"),
	"NOT_FOUND/reservation_id":        listedBy("agentmail reservations --expired"),
	"INVALID_ARGUMENT/reservation_id": listedBy("agentmail reservations --expired"),
	"NOT_FOUND/task_id":               listedBy("agentmail task list"),
	"INVALID_ARGUMENT/task_id":        listedBy("agentmail task list"),
	"STORE_BUSY": func(f service.Failure) string {
		if f.String("operation") == "sync" {
			return "others are syncing the same project right now; run agentmail sync again"
		}
		return ""
	},
	"ERROR": func(f service.Failure) string {
		switch {
		case f.String("repair") == "reindex":
			return "run agentmail doctor --reindex"
		case f.Bool("usage"): // a usage error of a hook, which exits 1
			return "see: agentmail --help"
		}
		return ""
	},
	"HOOK_IN_THE_WAY": service.Say("move the file out of the way, or see agentmail guard status"),
	"NO_REMOTE":       service.Say("pass the remote once: agentmail sync --remote URL (it is remembered)"),
	"REMOTE_UNREACHABLE": func(f service.Failure) string {
		remote := f.String("remote")
		switch f.String("operation") {
		case "grant":
			return "check the remote (git ls-remote " + remote + "), or pass --offline to grant here only, unconfirmed"
		case "push":
			return "check that you may push to " + remote + " (git push works there?), or sync with another: agentmail sync --remote URL"
		case "fetch":
			return "check the remote with git ls-remote " + remote + ", or sync with another: agentmail sync --remote URL"
		}
		return ""
	},
	"STORE_CORRUPT": func(f service.Failure) string {
		if f.String("repair") == "reindex" {
			return "run agentmail doctor --reindex to rebuild the index from the archive"
		}
		return "run agentmail doctor --check"
	},
	"STORE_NOT_WRITABLE": func(f service.Failure) string {
		switch f.String("problem") {
		case "file":
			return "point --store or AGENTMAIL_HOME at a directory"
		case "read_only":
			return "ask its owner for write access, or point --store or AGENTMAIL_HOME at a store you can write"
		case "migration":
			return "run any agentmail command as the store's owner once, which migrates it"
		}
		return "point --store or AGENTMAIL_HOME at a directory you can write"
	},
	"STORE_NOT_READABLE": func(f service.Failure) string {
		if a := f.String("archive"); a != "" {
			return "ask the store's owner to let you read it (chmod -R a+rX " + a + "), or point --store or AGENTMAIL_HOME at another store"
		}
		return "ask the store's owner for read access, or point --store or AGENTMAIL_HOME at another store"
	},
	"MALFORMED_CONFIG": func(f service.Failure) string {
		return "fix the file (setup left it as it was), then run agentmail setup " + cmp.Or(f.String("client"), "CLIENT") + " again"
	},
	"ENTRY_DIFFERS": service.Say("pass --force to replace it (add --dry-run to see the change first), or --uninstall to take it out"),
}

// durationHint words an invalid duration of the flag named after field,
// with the example the domain gives.
func durationHint(field, more string) func(service.Failure) string {
	return func(f service.Failure) string {
		ex := f.String("example")
		if ex == "" {
			return ""
		}
		switch field {
		case "wait":
			return "pass how long to wait, such as --wait " + ex + more
		case "hold":
			return "pass a positive duration such as --hold " + ex + more
		}
		return "pass a duration such as --" + field + " " + ex + more
	}
}

// subjectHint words what to do about the subject, by what is wrong with it.
func subjectHint(f service.Failure) string {
	switch f.String("problem") {
	case "too_long":
		return "shorten --subject and put the details in the body"
	case "not_one_line":
		return "make --subject one line"
	}
	return "pass --subject with a short summary of the message"
}

// conflictHint says how to proceed past a reservation's conflict: wait for
// the first holder's reservation to expire, ask its holder, share when
// every holder shares, or take the paths anyway.
func conflictHint(f service.Failure) string {
	holder := f.String("holder")
	if holder == "" {
		return "agentmail reservations lists who holds what"
	}
	hp := f.String("holder_pattern")
	var b strings.Builder
	fmt.Fprintf(&b, "wait until %s's %s expires (%s), ask the holder: agentmail send --to %s --subject 'reservation of %s'",
		holder, hp, f.String("expires"), holder, hp)
	if f.Bool("all_shared") {
		b.WriteString(", pass --shared if you only need to read")
	}
	b.WriteString(", or pass --allow-conflicts to take it anyway")
	return b.String()
}

// lockHeldHint says how to proceed past a held lock: wait for it, or ask
// its holder; one's own is released first, or waited for when a lock run
// holds it.
func lockHeldHint(f service.Failure) string {
	key := f.String("key")
	switch {
	case key == "":
		return "wait for it (--wait 5m), or ask the holder (agentmail send --to HOLDER)"
	case !f.Bool("yours"):
		return fmt.Sprintf("wait for it (agentmail lock acquire %s --wait 5m), or ask the holder: agentmail send --to %s --subject 'lock %s'", key, f.String("holder"), key)
	case f.Bool("by_run"):
		return "a lock run of yours holds it until its command ends; wait for it (--wait 5m), or it lapses at expiry if that run died"
	}
	return "you hold it with lock acquire: release it first (agentmail lock release " + key + "), or run the command without lock run"
}

// hooksFix says how to make git run the guard's hooks again, by whether
// core.hooksPath is set globally.
func hooksFix(global bool) string {
	if global {
		return "unset it (git config --global --unset core.hooksPath), or run agentmail guard install --allow-global to put the hooks there"
	}
	return "run agentmail guard install: it installs the hooks where git runs them, keeping the ones there"
}

// andOwn is hint followed by the error's own one, when it has one: a
// guard check that could not check adds how to get past the hook to the
// advice about why.
func andOwn(f service.Failure, hint string) string {
	if f.OwnHint && f.Hint != "" {
		return hint + "; " + f.Hint
	}
	return hint
}

// listedBy words a malformed, short or unknown id's advice naming the
// command that lists such ids.
func listedBy(command string) func(service.Failure) string {
	return func(f service.Failure) string { return ids.Advice(f.Detail, command) }
}

// cliHint is f's hint on the command line.
func cliHint(f service.Failure) string { return cliHints.Word(f, generalHint) }

// projectHint says how to name the project, by what was wrong with it.
func projectHint(f service.Failure) string {
	switch f.String("problem") {
	case "empty":
		return "pass --project with a remote URL or an absolute path, or unset AGENTMAIL_PROJECT"
	case "invalid":
		return "pass --project with a remote URL or an absolute path, or fix AGENTMAIL_PROJECT"
	case "relative":
		return "pass --project with a remote URL, a host/path key (github.com/acme/shop) or an absolute path, or run inside the project's checkout and leave it out"
	case "outside":
		return "run agentmail inside your project's git checkout, or pass --project KEY (or set AGENTMAIL_PROJECT)"
	case "unusable":
		if f.Bool("origin") {
			return "fix the URL (git remote set-url origin URL), pass --project KEY, or pin a key: agentmail project set KEY"
		}
		return "pass --project KEY, or pin a usable key: agentmail project set KEY"
	}
	return ""
}
