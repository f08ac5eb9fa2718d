// Package layering holds the tests that keep the module's layers apart:
// no command-line text below the faces (clitext_test.go), and imports that
// run one way, faces → service → domain → storage (imports_test.go). It
// has no code of its own.
package layering
