package store

import (
	"fmt"
	"maps"
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

// relayoutReservations moves, once, the reservations of each project that
// an earlier version wrote, each in its own directory file, to their place
// by day and time (record.ReservationFile): one commit per project, under
// the store lock. The index catches up with it as with any commit. Opening
// a store that needs none reads three objects per project.
func (s *Store) relayoutReservations() error {
	if !s.flatProjects() {
		return nil
	}
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
// place. A branch that cannot be read has none: the commands that read it
// say what is damaged, as they do in any store.
func (s *Store) flatProjects() bool {
	st, err := s.arc.State()
	if err != nil {
		return false
	}
	for _, head := range st {
		if n, err := s.arc.Unmoved(head, record.ReservationsDir, record.RelocateReservation); err == nil && n > 0 {
			return true
		}
	}
	return false
}
