//go:build !linux

package archive

import "errors"

// exchange swaps the files at paths a and b in one step; only Linux can.
func exchange(a, b string) error { return errors.ErrUnsupported }
