package server

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
)

// TestGzip: pages, assets and the API's JSON are compressed for a client
// that accepts gzip, and read back whole; not for one that does not, and
// never the event stream.
func TestGzip(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"}, mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Compressed hello", Body: "b"}})
	get := func(path, accept string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("GET", h.base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept) // set by hand: the transport leaves the body as sent
		}
		tr := &http.Transport{DisableCompression: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return resp, string(b)
	}
	m := "/mail/" + h.slug
	for _, c := range []struct{ path, want string }{
		{m, "Compressed hello"},
		{"/api/projects/" + h.slug + "/timeline", `"Compressed hello"`},
		{"/static/style.css", ".row"},
		{m + "/inbox/NoSuchAgent", "NoSuchAgent"}, // an error page
	} {
		resp, body := get(c.path, "gzip, deflate, br")
		if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, c.want) || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s with gzip: encoding %q, vary %q, body has %q: %v", c.path, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), c.want, strings.Contains(body, c.want))
		}
		for _, accept := range []string{"", "gzip;q=0", "br"} {
			if resp, body := get(c.path, accept); resp.Header.Get("Content-Encoding") != "" || !strings.Contains(body, c.want) {
				t.Errorf("%s with Accept-Encoding %q: encoding %q", c.path, accept, resp.Header.Get("Content-Encoding"))
			}
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), "GET", h.base+"/api/events?project="+h.slug, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("the event stream: %d, encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
}
