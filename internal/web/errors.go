package web

import (
	"encoding/json"
	"net/http"
)

// CodeInvalidArgument is the error code of a request that cannot be read.
const CodeInvalidArgument = "INVALID_ARGUMENT"

// ErrorDocument is the JSON error of the API and the CLI's --json:
// {"error": {"code", "message", "hint"}}.
type ErrorDocument struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the inside of an ErrorDocument.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

// WriteJSONError answers with an ErrorDocument and the given status.
func WriteJSONError(w http.ResponseWriter, status int, code, message, hint string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(ErrorDocument{ErrorBody{code, message, hint}})
}
