package fault

import "errors"

// Detail is what an error says beyond its kind and its message, as data:
// the field of the request that was wrong, in the service's names ("ttl",
// "subject"), and the values that matter (the holder of a lock, until
// when, a limit, the closest names). The domain fills it; each face words
// its own advice from it (--ttl on the command line, ttl_seconds over MCP,
// "ttl" in the HTTP API), so no package below the faces names a flag.
type Detail struct {
	Field  string         `json:"field,omitempty"`
	Values map[string]any `json:"values,omitempty"`
}

// String returns the value named key when it is a string, else "".
func (d Detail) String(key string) string {
	s, _ := d.Values[key].(string)
	return s
}

// Bool returns the value named key when it is a bool, else false.
func (d Detail) Bool(key string) bool {
	b, _ := d.Values[key].(bool)
	return b
}

// Detailer is an error that knows its own detail, such as a conflict that
// names its holder.
type Detailer interface {
	error
	Detail() Detail
}

type detailed struct {
	err error
	d   Detail
}

func (d *detailed) Error() string  { return d.err.Error() }
func (d *detailed) Unwrap() error  { return d.err }
func (d *detailed) Detail() Detail { return d.d }

// WithField returns err naming the request's field that was wrong, with
// values as key, value pairs; a nil err stays nil.
func WithField(err error, field string, kv ...any) error {
	if err == nil {
		return nil
	}
	return &detailed{err: err, d: Detail{Field: field, Values: Values(kv...)}}
}

// Values is the map of key, value pairs (keys are strings), nil when
// there are none.
func Values(kv ...any) map[string]any {
	if len(kv) < 2 {
		return nil
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// DetailOf returns the detail of the first Detailer in err's chain, or
// the zero Detail.
func DetailOf(err error) Detail {
	var d Detailer
	if errors.As(err, &d) {
		return d.Detail()
	}
	return Detail{}
}

// WithValues returns err with values as key, value pairs and no field; a
// nil err stays nil.
func WithValues(err error, kv ...any) error { return WithField(err, "", kv...) }
