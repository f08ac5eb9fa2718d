package names

import (
	"strings"
	"unicode"
)

// Kinds of known names, as they read in a message: "claude is a program or
// model name".
const (
	kindProgram = "a program or model name"
	kindAccount = "a user or system account name"
	kindGeneric = "a generic word"
)

// knownNames are names people and agents often try to register that are not
// agent names, lowercase, letters only. No listed word may appear here
// (TestKnownNamesAreNotWords).
var knownNames = map[string]string{
	// Programs, models and their makers.
	"aider": kindProgram, "amp": kindProgram, "anthropic": kindProgram,
	"bard": kindProgram, "chatgpt": kindProgram, "claude": kindProgram,
	"claudecode": kindProgram, "cline": kindProgram, "codeium": kindProgram,
	"codex": kindProgram, "copilot": kindProgram, "cursor": kindProgram,
	"deepseek": kindProgram, "devin": kindProgram, "gemini": kindProgram,
	"geminicli": kindProgram, "github": kindProgram, "githubcopilot": kindProgram,
	"goose": kindProgram, "gpt": kindProgram, "grok": kindProgram,
	"haiku": kindProgram, "kiro": kindProgram, "llama": kindProgram,
	"mistral": kindProgram, "openai": kindProgram, "opencode": kindProgram,
	"opus": kindProgram, "qwen": kindProgram, "roo": kindProgram,
	"roocode": kindProgram, "sonnet": kindProgram, "vscode": kindProgram,
	"windsurf": kindProgram, "zed": kindProgram,
	// Unix and service accounts.
	"admin": kindAccount, "administrator": kindAccount, "bin": kindAccount,
	"daemon": kindAccount, "debian": kindAccount, "ecuser": kindAccount,
	"git": kindAccount, "guest": kindAccount, "mail": kindAccount,
	"nobody": kindAccount, "operator": kindAccount, "postgres": kindAccount,
	"postmaster": kindAccount, "root": kindAccount, "runner": kindAccount,
	"sudo": kindAccount, "sys": kindAccount, "ubuntu": kindAccount,
	"user": kindAccount, "vagrant": kindAccount, "www": kindAccount,
	"wwwdata": kindAccount,
	// Generic words for a participant.
	"agent": kindGeneric, "ai": kindGeneric, "anonymous": kindGeneric,
	"assistant": kindGeneric, "bot": kindGeneric, "default": kindGeneric,
	"everyone": kindGeneric, "human": kindGeneric, "llm": kindGeneric,
	"me": kindGeneric, "model": kindGeneric, "nil": kindGeneric,
	"none": kindGeneric, "noreply": kindGeneric, "null": kindGeneric,
	"owner": kindGeneric, "system": kindGeneric, "test": kindGeneric,
	"unknown": kindGeneric,
}

// known reports whether s is, or starts with, a known name: its letters taken
// together (Claude-Code, gpt4 -> claudecode, gpt) or its first word (claude_v2,
// RootShell -> claude, root). It returns the name in lowercase and its kind.
func known(s string) (word, kind string, ok bool) {
	tokens := letterWords(s)
	if len(tokens) == 0 {
		return "", "", false
	}
	if kind, ok := knownNames[strings.Join(tokens, "")]; ok {
		return strings.Join(tokens, ""), kind, true
	}
	if kind, ok := knownNames[tokens[0]]; ok {
		return tokens[0], kind, true
	}
	return "", "", false
}

// letterWords splits s into lowercase words of ASCII letters, breaking at
// anything else and where a capital starts a new word: "ChatGPT-4o" gives
// chat, gpt, o.
func letterWords(s string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			words = append(words, strings.ToLower(s[start:end]))
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(rune(c)) {
			prevLower := unicode.IsLower(rune(s[i-1]))
			nextLower := i+1 < len(s) && unicode.IsLower(rune(s[i+1]))
			prevUpper := unicode.IsUpper(rune(s[i-1]))
			// Break before a capital after a lowercase letter (chatGpt), and
			// before the last capital of a run that starts a word (GPTModel).
			if prevLower || prevUpper && nextLower {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return words
}
