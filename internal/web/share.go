package web

import (
	"github.com/agentmail/agentmail/internal/markdown"
)

// Stylesheet is the pages' stylesheet (static/style.css), for pages shown
// elsewhere: agentmail export's static site looks as the pages do.
func Stylesheet() []byte {
	b, err := staticFS.ReadFile("static/style.css")
	if err != nil {
		panic("web: the embedded stylesheet is missing: " + err.Error()) // the build embeds it
	}
	return b
}

// BodyMarkdown is the renderer of message bodies the pages use: the safe
// Markdown over fts's GitHub parser (tables, strikethrough, task lists).
func BodyMarkdown() *Markdown { return NewMarkdown(markdown.Parser()) }
