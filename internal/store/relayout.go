package store

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentmail/agentmail/internal/record"
)

// reservationsMoved is the message of the commit that moves a project's
// reservations to the layout of record.ReservationFile.
func reservationsMoved(n int) string {
	return fmt.Sprintf("migrate: %d reservations from reservations/<id>.json to reservations/YYYY/MM/DD/HH/MM/SS/mmm/<id>.json", n)
}

// relayout returns the commit that moves the reservations of project
// slug in commit rev to their place (rev itself when all are there) and
// how many it moved.
func (s *Store) relayout(slug, rev string) (string, int, error) {
	return s.arc.Relayout(rev, record.ReservationsDir, record.RelocateReservation, resolver(slug), reservationsMoved)
}

// layoutDone is the file, in the archive's directory, that records that
// its reservations are where record.ReservationFile puts them: this
// version writes them nowhere else, and a merge moves those of a remote
// written by an earlier one (see MergeProject), so a store that has it is
// never looked at again. It goes with the archive: one restored from a
// copy made before is looked at once more.
const layoutDone = "agentmail-layout"

// relayoutReservations moves, once, the reservations of each project that
// an earlier version wrote, each in its own directory file, to their place
// by day and time (record.ReservationFile): one commit per project, under
// the store lock. The index catches up with it as with any commit. Once
// the archive has none out of place, it records so (layoutDone), and an
// open then costs one stat: looking reads three objects per project, and
// the index of every pack.
func (s *Store) relayoutReservations() error {
	done := filepath.Join(s.arc.Dir(), layoutDone)
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	flat, sure := s.flatProjects()
	if flat {
		if err := s.moveFlatReservations(); err != nil {
			return err
		}
	}
	if sure {
		// Not synced: lost, it costs one more look.
		os.WriteFile(done, []byte("reservations/YYYY/MM/DD/HH/MM/SS/mmm/<id>.json\n"), 0o644)
	}
	return nil
}

// moveFlatReservations is relayoutReservations' work, when there is some.
func (s *Store) moveFlatReservations() error {
	return s.withLock(func() error {
		st, err := s.arc.State()
		if err != nil {
			return err
		}
		for _, slug := range slices.Sorted(maps.Keys(st)) {
			after, n, err := s.relayout(slug, st[slug])
			if err != nil {
				return fmt.Errorf("project %s: %w", slug, err)
			}
			if n == 0 {
				continue
			}
			if err := s.arc.MoveProject(slug, st[slug], after); err != nil {
				return fmt.Errorf("project %s: %w", slug, err)
			}
			s.note(fmt.Sprintf("moved the %d reservations of project %s to reservations/YYYY/MM/DD/HH/MM/SS/mmm/, one commit (git log projects/%s)", n, slug, slug))
		}
		return nil
	})
}

// flatProjects reports whether a project has reservations out of their
// place, and whether it could read every branch to tell. A branch that
// cannot be read has none: the commands that read it say what is damaged,
// as they do in any store.
func (s *Store) flatProjects() (flat, sure bool) {
	st, err := s.arc.State()
	if err != nil {
		return false, false
	}
	sure = true
	for _, head := range st {
		n, err := s.arc.Unmoved(head, record.ReservationsDir, record.RelocateReservation)
		if err != nil {
			sure = false
		} else if n > 0 {
			return true, sure
		}
	}
	return false, sure
}
