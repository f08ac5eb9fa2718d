// Package layering holds the tests that keep the module's layers apart:
// no command-line text below the faces (clitext_test.go), and imports that
// run one way, faces → service → domain → storage (imports_test.go); and
// the one that keeps the dependencies initialised before every command to
// a list changed on purpose (startup_test.go). It has no code of its own.
package layering
