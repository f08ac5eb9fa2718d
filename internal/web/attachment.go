package web

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// inlineImages are the media types a page shows as images: raster
// formats that browsers render without running anything.
var inlineImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true}

// InlineImage reports whether an attachment of mediaType is shown in the
// page as an image.
func InlineImage(mediaType string) bool {
	t, _, _ := mime.ParseMediaType(mediaType)
	return inlineImages[strings.ToLower(t)]
}

// safeTypes are the media types an attachment is served with as they are;
// any other is application/octet-stream, so that nothing attached (HTML,
// SVG, JavaScript) runs in the server's origin.
var safeTypes = map[string]bool{"text/plain": true, "application/pdf": true, "application/json": true}

// ServeAttachment answers with an attachment's content. It is a download
// (Content-Disposition: attachment, with its name) unless inline is asked
// for an image the page shows (InlineImage). Its Content-Type is its own
// only for images shown inline and a few inert types (text/plain, PDF,
// JSON); anything else is application/octet-stream. The security headers
// (Guard: the Content-Security-Policy, nosniff) stand as on every answer.
func ServeAttachment(w http.ResponseWriter, name, mediaType string, data []byte, inline bool) {
	t, params, err := mime.ParseMediaType(mediaType)
	t = strings.ToLower(t)
	ctype := "application/octet-stream"
	switch {
	case err != nil:
	case inlineImages[t]:
		ctype = t
	case safeTypes[t]:
		ctype = t
		if cs := params["charset"]; cs != "" {
			ctype = mime.FormatMediaType(t, map[string]string{"charset": cs})
		}
	}
	disposition := "attachment"
	if inline && inlineImages[t] {
		disposition = "inline"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	if d := mime.FormatMediaType(disposition, map[string]string{"filename": name}); d != "" {
		h.Set("Content-Disposition", d)
	} else {
		h.Set("Content-Disposition", disposition)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
