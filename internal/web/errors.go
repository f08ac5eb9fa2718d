package web

import (
	"encoding/json"
	"net/http"
)

// CodeInvalidArgument is the error code of a request that cannot be read.
const CodeInvalidArgument = "INVALID_ARGUMENT"

// statuses maps the error codes of README's error table to HTTP statuses.
var statuses = map[string]int{
	"INVALID_ARGUMENT":     http.StatusBadRequest,
	"INVALID_NAME":         http.StatusBadRequest,
	"AMBIGUOUS_ID":         http.StatusBadRequest,
	"UNKNOWN_RECIPIENT":    http.StatusBadRequest,
	"USAGE":                http.StatusBadRequest,
	CodeUnauthorized:       http.StatusUnauthorized,
	CodeForbidden:          http.StatusForbidden,
	"CONTACT_REQUIRED":     http.StatusForbidden,
	"CONTACT_BLOCKED":      http.StatusForbidden,
	"NOT_FOUND":            http.StatusNotFound,
	"NO_PROJECT":           http.StatusNotFound,
	"NOT_REGISTERED":       http.StatusNotFound,
	"TIMEOUT":              http.StatusRequestTimeout,
	"NAME_TAKEN":           http.StatusConflict,
	"RESERVATION_CONFLICT": http.StatusConflict,
	"LOCK_HELD":            http.StatusConflict,
	"GUARD_BLOCKED":        http.StatusConflict,
	"STORE_BUSY":           http.StatusServiceUnavailable,
	"STORE_NOT_WRITABLE":   http.StatusServiceUnavailable,
	"STORE_NOT_READABLE":   http.StatusServiceUnavailable,
}

// StatusOf returns the HTTP status of an error code: 400 for bad input,
// 401 and 403 for refusals, 404 for what does not exist, 409 for
// conflicts, 503 for a store that cannot serve now, and 500 for anything
// else (STORE_CORRUPT, ERROR, codes it does not know).
func StatusOf(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

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
