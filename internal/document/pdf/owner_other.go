//go:build !unix

package pdf

import "io/fs"

// ownedByUs reports whether a file is the running user's own: where
// owners are not read, the folder's mode alone decides.
func ownedByUs(fs.FileInfo) bool { return true }
