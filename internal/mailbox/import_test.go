package mailbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// importBatch imports b in an update of its own, committed as "import".
func (f *fixture) importBatch(mb *Mailbox, b ImportBatch) (written, present ImportCounts, err error) {
	err = f.st.Update(context.Background(), func(tx *store.Tx) error {
		written, present, err = mb.Import(context.Background(), tx, b)
		tx.Describe("agentmail", "import")
		return err
	})
	return written, present, err
}

func TestImportStrict(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	mb := f.as("")
	head, _ := f.st.Head()
	id := ulid.MustNew(ulid.Timestamp(f.clock), ulid.DefaultEntropy()).String()
	msg := record.Message{ID: id, From: "GreenCastle", To: []string{"BlueLake"}, Subject: "s", Created: f.clock}
	_, _, err := f.importBatch(mb, ImportBatch{Messages: []record.Message{msg}})
	if !errors.Is(err, ErrUnknownRecipient) {
		t.Errorf("unknown recipient: %v", err)
	}
	blueLake := record.Agent{Name: "BlueLake", Registered: f.clock}
	for _, badID := range []string{"42", ulid.MustNew(ulid.Timestamp(f.clock.Add(-time.Second)), ulid.DefaultEntropy()).String()} {
		bad := msg
		bad.ID = badID
		_, _, err = f.importBatch(mb, ImportBatch{Agents: []record.Agent{blueLake}, Messages: []record.Message{bad}})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("bad id %s: %v", badID, err)
		}
	}
	if h, _ := f.st.Head(); h != head {
		t.Fatal("a failed import wrote")
	}
	written, present, err := f.importBatch(mb, ImportBatch{
		Agents: []record.Agent{blueLake, {Name: "greencastle", Registered: f.clock}}, Messages: []record.Message{msg, msg}})
	if err != nil || written != (ImportCounts{1, 1}) || present != (ImportCounts{1, 1}) {
		t.Errorf("import: %v written %+v present %+v", err, written, present)
	}
	got, err := f.as("BlueLake").Show(context.Background(), id)
	if err != nil || got.Thread != id || !got.Created.Equal(f.clock) || got.From != "GreenCastle" {
		t.Errorf("show: %v %+v", err, got)
	}
}

// TestImportIntoNewProject: an import that fails in a project the store
// did not know leaves the mailbox as it was, so that the next write
// records the project again instead of naming a row that was rolled back.
func TestImportIntoNewProject(t *testing.T) {
	f := newFixture(t)
	mb := f.as("")
	if _, _, err := f.importBatch(mb, ImportBatch{Agents: []record.Agent{{Name: "not a name", Registered: f.clock}}}); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("import of a bad name: %v", err)
	}
	if mb.Known() {
		t.Fatal("a failed import left the mailbox knowing its project")
	}
	if _, err := mb.Register(context.Background(), RegisterInput{Name: "GreenCastle"}); err != nil {
		t.Fatal(err)
	}
	if !f.as("").Known() {
		t.Error("the register after a failed import did not record the project")
	}
}

// TestImportFindsHeld: a batch's messages that the store holds are found
// present, those it does not are written, whatever else the store holds
// among their ids (found with one query over the batch's range of ids).
func TestImportFindsHeld(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	mb := f.as("")
	msg := func(i int) record.Message {
		at := f.clock.Add(time.Duration(i) * time.Second)
		return record.Message{ID: ulid.MustNew(ulid.Timestamp(at), ulid.DefaultEntropy()).String(), From: "GreenCastle",
			To: []string{"BlueLake"}, Subject: "s", Created: at}
	}
	m := []record.Message{msg(1), msg(2), msg(3), msg(4)}
	blueLake := record.Agent{Name: "BlueLake", Registered: f.clock}
	for _, step := range []struct {
		batch            []record.Message
		written, present int
	}{
		{[]record.Message{m[0], m[2]}, 2, 0},
		{[]record.Message{m[1]}, 1, 0}, // between two held ones
		{[]record.Message{m[3], m[2], m[1], m[0]}, 1, 3},
		{[]record.Message{m[2]}, 0, 1},
	} {
		written, present, err := f.importBatch(mb, ImportBatch{Agents: []record.Agent{blueLake}, Messages: step.batch})
		if err != nil || written.Messages != step.written || present.Messages != step.present {
			t.Errorf("import of %d: %v, written %d present %d; want %d, %d", len(step.batch), err, written.Messages, present.Messages, step.written, step.present)
		}
	}
}
