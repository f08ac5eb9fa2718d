package web

import (
	"encoding/json"
	"net/http"

	"github.com/agentmail/agentmail/internal/service"
)

// CodeInvalidArgument is the error code of a request that cannot be read.
const CodeInvalidArgument = "INVALID_ARGUMENT"

// ErrorDocument is the JSON error of the API: {"error": service.ErrorDoc},
// the one error document of every face.
type ErrorDocument struct {
	Error service.ErrorDoc `json:"error"`
}

// WriteJSONError answers with doc as an ErrorDocument and the given status.
func WriteJSONError(w http.ResponseWriter, status int, doc service.ErrorDoc) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(ErrorDocument{doc})
}
