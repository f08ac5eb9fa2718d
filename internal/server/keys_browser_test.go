package server

import (
	"net/http"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
)

// keysJS is a driver page's script: it shows the project page at ?page=
// with its keys.js, presses / (the search box takes the focus), j, j and
// k (the timeline's second then first row), then g b (the Tasks tab's
// address, here a hash), and says where the focus and the page went.
const keysJS = `const q = new URLSearchParams(location.search);
fetch(q.get('page')).then(r => r.text()).then(html => {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  document.body.innerHTML = doc.body.innerHTML;
  const s = document.createElement('script');
  s.src = doc.querySelector('script[src*="keys.js"]').getAttribute('src');
  s.onload = () => {
    const press = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true, cancelable: true}));
    const where = () => { const a = document.activeElement; const li = a.closest('li'); return (a.name || '') + '|' + (li ? li.dataset.id || '' : ''); };
    const seen = [];
    press('/'); seen.push(where());
    document.activeElement.blur();
    press('j'); press('j'); seen.push(where());
    press('k'); seen.push(where());
    // g b follows the Tasks tab: pointed here, it changes only the hash.
    [...document.querySelectorAll('nav.tabs a')].find(a => a.textContent.trim() === 'Tasks').setAttribute('href', '#board');
    press('g'); press('b'); seen.push(location.hash);
    const out = document.createElement('pre'); out.id = 'keys'; out.textContent = seen.join('\n'); document.body.appendChild(out);
  };
  document.body.appendChild(s);
});`

// TestBrowserKeys: the keyboard shortcuts work in Chromium under the CSP
// (keys.js, no inline script): / focuses the search box, j and k move
// through the timeline's rows, g b opens the board.
func TestBrowserKeys(t *testing.T) {
	path := chromiumPath(t)
	h := startServer(t, Config{})
	ids := h.seed([]string{"GreenCastle", "BlueLake"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "first", Body: "b"}},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "second", Body: "b"}})
	site := h.srv.http.Handler
	top := http.NewServeMux()
	top.HandleFunc("/drive-keys", driverPage(keysJS))
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	top.Handle("/", site)
	h.srv.http.Handler = top

	page := "/mail/" + h.slug
	dom := chrome(t, path, h.base+"/drive-keys?page="+page, "", 0)
	// Newest first: ids[1] is the first row.
	if got, want := preText(t, dom, "keys"), "q|\n|"+ids[0]+"\n|"+ids[1]+"\n#board"; got != want {
		t.Errorf("the focus after /, j j, k and the page after g b:\n%s\nwant\n%s", got, want)
	}
}
