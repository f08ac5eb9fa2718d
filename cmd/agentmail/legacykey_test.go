package main

import (
	"context"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/rogpeppe/go-internal/testscript"
)

// legacykey KEY NAME registers agent NAME in the project of key KEY taken
// as it is: a store an earlier version wrote under a key that --project
// refuses today (a relative one, derived from a relative origin URL).
func cmdLegacyKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: legacykey KEY NAME")
	}
	ctx := context.Background()
	st, err := store.Open(ts.Getenv("AGENTMAIL_HOME"), store.Options{Projections: service.Projections()})
	ts.Check(err)
	defer st.Close()
	p, err := project.ProjectFromKey(args[0])
	ts.Check(err)
	mb, err := mailbox.Open(ctx, st, p, "")
	ts.Check(err)
	_, err = mb.Register(ctx, mailbox.RegisterInput{Name: args[1]})
	ts.Check(err)
}
