package project

import (
	"errors"

	"github.com/agentmail/agentmail/internal/fault"
)

// Sentinel errors callers branch on.
var (
	// ErrNoProject: there is no project: the directory is not inside a git
	// repository and no key was given.
	ErrNoProject = errors.New("no project")
	// ErrInvalidArgument: a key or path is malformed (fault.ErrInvalidArgument).
	ErrInvalidArgument = fault.ErrInvalidArgument
)
