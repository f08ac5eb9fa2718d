package service

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
)

// The documents as README.md ("JSON output") gives them, field by field
// and in order; times RFC 3339 UTC or null.
func TestDocuments(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 25, 14, 0, time.FixedZone("CET", 3600))
	read := at.Add(time.Minute)
	msg := mailbox.Message{Message: record.Message{ID: "01JD3Y4Q000000000000000000", Thread: "t", From: "GreenCastle", To: []string{"BlueLake"}, Cc: []string{}, Bcc: []string{},
		Subject: "s", Importance: "normal", Category: "HANDOFF", Created: at, Body: "b"}, Path: "projects/p/messages/x.md", ReadAt: &read}
	tests := []struct {
		name string
		doc  any
		want string
	}{
		{"message", messageDoc(msg), `{"id":"01JD3Y4Q000000000000000000","thread":"t","from":"GreenCastle","to":["BlueLake"],"cc":[],"bcc":[],"subject":"s","importance":"normal","ack_required":false,"category":"HANDOFF","reply_to":null,"created":"2026-11-22T02:25:14Z","path":"projects/p/messages/x.md"}`},
		{"received", receivedDoc(msg), `{"id":"01JD3Y4Q000000000000000000","thread":"t","from":"GreenCastle","to":["BlueLake"],"cc":[],"bcc":[],"subject":"s","importance":"normal","ack_required":false,"category":"HANDOFF","reply_to":null,"created":"2026-11-22T02:25:14Z","path":"projects/p/messages/x.md","read_at":"2026-11-22T02:26:14Z","acked_at":null}`},
		{"inbox without body", InboxMessage{Received: Received{Message: Message{ID: "x", To: []string{}, Cc: []string{}, Bcc: []string{}}}}, `{"id":"x","thread":"","from":"","to":[],"cc":[],"bcc":[],"subject":"","importance":"","ack_required":false,"category":null,"reply_to":null,"created":null,"path":"","read_at":null,"acked_at":null}`},
		{"full", fullDoc(msg), `{"id":"01JD3Y4Q000000000000000000","thread":"t","from":"GreenCastle","to":["BlueLake"],"cc":[],"bcc":[],"subject":"s","importance":"normal","ack_required":false,"category":"HANDOFF","reply_to":null,"created":"2026-11-22T02:25:14Z","path":"projects/p/messages/x.md","read_at":"2026-11-22T02:26:14Z","acked_at":null,"body":"b"}`},
		{"agent", agentDoc(mailbox.Agent{Name: "BlueLake", Registered: at, Policy: "open"}), `{"name":"BlueLake","program":"","model":"","task":"","registered":"2026-11-22T02:25:14Z","last_seen":null,"retired":false,"policy":"open","role":""}`},
		{"listed agent", listedAgentDoc(mailbox.Agent{Name: "BlueLake", State: "idle"}), `{"name":"BlueLake","program":"","model":"","task":"","registered":null,"last_seen":null,"retired":false,"policy":"","state":"idle","reservations":0,"role":""}`},
		{"reservation", reservationDoc(reservations.Reservation{ID: "r", Agent: "a", Pattern: "src/**", Exclusive: true, Created: at, Expires: at}), `{"id":"r","agent":"a","pattern":"src/**","exclusive":true,"reason":"","created":"2026-11-22T02:25:14Z","expires":"2026-11-22T02:25:14Z","released":null}`},
		{"offline reservation", reservationDoc(reservations.Reservation{ID: "r", Agent: "a", Pattern: "src/**", Exclusive: true, Created: at, Expires: at, Unconfirmed: true}), `{"id":"r","agent":"a","pattern":"src/**","exclusive":true,"reason":"","created":"2026-11-22T02:25:14Z","expires":"2026-11-22T02:25:14Z","released":null,"unconfirmed":true}`},
		{"conflict", conflictDoc(reservations.Conflict{Pattern: "p", Holder: "h", HolderPattern: "q", Expires: at}), `{"pattern":"p","holder":"h","holder_pattern":"q","exclusive":false,"expires":"2026-11-22T02:25:14Z"}`},
		{"lock", lockDoc(reservations.Lock{Key: "deploy", Holder: "h", Created: at, Expires: at}), `{"key":"deploy","holder":"h","created":"2026-11-22T02:25:14Z","expires":"2026-11-22T02:25:14Z","released":null}`},
		{"released lock", lockDoc(reservations.Lock{Key: "deploy", Holder: "h", Created: at, Expires: at, Released: at}), `{"key":"deploy","holder":"h","created":"2026-11-22T02:25:14Z","expires":"2026-11-22T02:25:14Z","released":"2026-11-22T02:25:14Z"}`},
		{"contact", contactDoc(mailbox.Contact{From: "a", To: "b", State: "requested", Requested: at}), `{"from":"a","to":"b","state":"requested","reason":"","requested":"2026-11-22T02:25:14Z","decided":null,"expires":null}`},
		{"wait", WaitResponse{Messages: []FullMessage{}, Timeout: true}, `{"messages":[],"timeout":true}`},
		{"mark, nothing", MarkResponse{Messages: []FullMessage{}}, `{"message":null,"messages":[]}`},
		{"thread", ThreadResponse{Messages: []FullMessage{}, Thread: "t"}, `{"messages":[],"thread":"t"}`},
		{"release", ReleaseResponse{Conflicts: []Conflict{}, Released: []Reservation{}}, `{"conflicts":[],"released":[]}`},
		{"search", SearchResponse{Results: []SearchHit{{ID: "x", Snippet: "[a]", Score: 1.5, marked: "hidden"}}, Notes: []string{}}, `{"results":[{"id":"x","thread":"","from":"","subject":"","created":null,"snippet":"[a]","score":1.5}],"notes":[]}`},
		{"doctor", DoctorResponse{Reindex: &DoctorReindex{Messages: 2, MessagesPerSecond: 4, Seconds: 0.5, Elapsed: time.Second}}, `{"reindex":{"messages":2,"messages_per_second":4,"seconds":0.5}}`},
		{"project set", ProjectSetResponse{Project: ProjectInfo{Key: "k", Slug: "s", Source: SourcePinned}, Config: "hidden"}, `{"previous":null,"project":{"key":"k","slug":"s","source":"pinned","root":null}}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.doc)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: %s (%v)\nwant %s", tt.name, b, err, tt.want)
		}
	}
}

// A document's time is what json.Marshal makes of record.FormatTime's
// string, whatever the zone, fraction of a second or year.
func TestTimeAsFormatTime(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 11, 22, 3, 25, 14, 999_999_999, time.FixedZone("CET", 3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -12*3600)),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(12026, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(-1, 6, 1, 12, 0, 0, 0, time.UTC),
		time.Unix(0, 0),
	} {
		want, err := json.Marshal(record.FormatTime(at))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(Time{at})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%v: got %s, want %s", at, got, want)
		}
	}
}

// BenchmarkReserveDocument marshals the document of a reservation of 50
// patterns, as file_reservation_paths answers it: 150 times.
func BenchmarkReserveDocument(b *testing.B) {
	at := time.Date(2026, 11, 22, 3, 25, 14, 0, time.UTC)
	doc := ReserveResponse{Conflicts: []Conflict{}}
	for i := range 50 {
		doc.Granted = append(doc.Granted, reservationDoc(reservations.Reservation{ID: "01JD3Y4Q000000000000000000", Agent: "RedFox",
			Pattern: "mcp-1/part-" + string(rune('a'+i%26)) + "/*.go", Exclusive: true, Created: at, Expires: at.Add(time.Hour)}))
	}
	for b.Loop() {
		if _, err := json.Marshal(doc); err != nil {
			b.Fatal(err)
		}
	}
}
