// Package atomicfile writes files so that a reader, or a crash, sees the
// old file or the new one, never a part.
//
// It may not import heed's other packages.
package atomicfile
