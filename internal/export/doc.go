// Package export writes a project's mailbox as a self-contained static
// site (timeline, threads, messages, agents and a search that runs in the
// browser with no network), with a manifest of every file's SHA-256 that
// an SSH key may sign as git signs commits (ssh-keygen -Y, namespace
// agentmail-export), and checks such a site against its manifest and
// signature.
//
// The caller gives the mailbox as a Site and the rendering of message
// bodies and the stylesheet (the web pages' own, so that an export looks as
// the pages do and renders bodies as safely). Redaction (Redact) happens on
// the Site before anything is written: every file, the search index
// included, is made from the redacted copy.
package export
