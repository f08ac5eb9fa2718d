package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Watch looks once at the start and again only when the head moves; it
// ends when the look is done, at the deadline (which a look may extend),
// on the look's error, and with the context.
func TestWatch(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	boom := errors.New("boom")
	tests := []struct {
		name      string
		wait      time.Duration
		write     bool // another writer commits while the watch waits
		look      func(n int) (bool, error)
		extend    time.Duration // the first look extends the deadline by this
		cancel    bool
		wantDone  bool
		wantErr   error
		wantLooks int
	}{
		{name: "done at once", wait: time.Second, look: func(int) (bool, error) { return true, nil }, wantDone: true, wantLooks: 1},
		{name: "nothing moves: one look, then the deadline", wait: 60 * time.Millisecond, look: func(int) (bool, error) { return false, nil }, wantLooks: 1},
		{name: "a write moves the head: looked at again", wait: 5 * time.Second, write: true, look: func(n int) (bool, error) { return n == 2, nil }, wantDone: true, wantLooks: 2},
		{name: "the look's error ends it", wait: time.Second, look: func(int) (bool, error) { return false, boom }, wantErr: boom, wantLooks: 1},
		{name: "the context ends it", wait: 5 * time.Second, cancel: true, look: func(int) (bool, error) { return false, nil }, wantErr: context.Canceled, wantLooks: 1},
		{name: "a look extends the deadline", wait: 0, extend: 150 * time.Millisecond, look: func(int) (bool, error) { return false, nil }, wantLooks: 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			deadline := start.Add(tt.wait)
			looks := 0
			done, err := s.Watch(ctx, 10*time.Millisecond, func() time.Time { return deadline }, func() (bool, error) {
				looks++
				if looks == 1 {
					deadline = deadline.Add(tt.extend)
					switch {
					case tt.write:
						go func() {
							err := s.Update(context.Background(), func(tx *Tx) error { tx.Put(message(i + 1)); return nil })
							if err != nil {
								t.Error(err)
							}
						}()
					case tt.cancel:
						go func() { time.Sleep(30 * time.Millisecond); cancel() }()
					}
				}
				return tt.look(looks)
			})
			if done != tt.wantDone || !errors.Is(err, tt.wantErr) || looks != tt.wantLooks {
				t.Errorf("Watch = %v, %v after %d looks; want %v, %v after %d", done, err, looks, tt.wantDone, tt.wantErr, tt.wantLooks)
			}
			if tt.extend > 0 && time.Since(start) < tt.extend {
				t.Errorf("returned after %s, before the extended deadline (%s)", time.Since(start), tt.extend)
			}
		})
	}
}
