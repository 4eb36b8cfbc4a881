package epub

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// centralHeader is the signature every record of a zip's central
// directory begins with.
var centralHeader = []byte("PK\x01\x02")

// openZip opens raw as a zip archive within the caps: its length, its
// number of entries, and names that stay inside it.
func openZip(raw []byte) (*zip.Reader, error) {
	if len(raw) > MaxCompressedBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the %d of MaxCompressedBytes", ErrLimit, len(raw), MaxCompressedBytes)
	}
	// archive/zip reads every record of the central directory before
	// anyone can count them, each a few hundred bytes of memory; every
	// record starts with the signature, so counting the signature in the
	// input bounds them first.
	if n := bytes.Count(raw, centralHeader); n > MaxEntries {
		return nil, fmt.Errorf("%w: more than %d entries (MaxEntries)", ErrLimit, MaxEntries)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: not a zip archive: %v", ErrNotEPUB, err)
	}
	if len(zr.File) > MaxEntries {
		return nil, fmt.Errorf("%w: %d entries, over the %d of MaxEntries", ErrLimit, len(zr.File), MaxEntries)
	}
	for _, f := range zr.File {
		if unsafeName(f.Name) {
			return nil, fmt.Errorf("%w: entry name %q leaves the archive (path traversal)", ErrNotEPUB, clip(f.Name, 200))
		}
	}
	return zr, nil
}

// unsafeName reports whether an entry's name could name a file outside
// the archive were it written out: absolute (from the root or a drive),
// with a ".." element, a backslash or a NUL byte. Nothing here writes
// files; an archive with such a name is refused as made to harm.
func unsafeName(name string) bool {
	if strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") {
		return true
	}
	if len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z') {
		return true // "C:/..."
	}
	for e := range strings.SplitSeq(name, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// archive is an open EPUB's zip, with what reading it has cost so far.
type archive struct {
	files     map[string]*zip.File // by cleaned name; the first of a name wins
	encrypted map[string]bool      // what META-INF/encryption.xml lists
	inflated  int64                // bytes inflated so far, every entry read counted
}

func newArchive(zr *zip.Reader) *archive {
	a := &archive{files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue // a directory
		}
		name := path.Clean(f.Name)
		if _, ok := a.files[name]; !ok {
			a.files[name] = f
		}
	}
	return a
}

// errMissing is wrapped by read's error for an entry the archive lacks.
var errMissing = errors.New("not in the archive")

// read inflates an entry whole. Whatever its header declares, it reads no
// more than MaxEntryBytes of it, nor more than is left of
// MaxInflatedBytes for the whole book, and a byte over says so.
func (a *archive) read(name string) ([]byte, error) {
	f := a.files[name]
	if f == nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotEPUB, clip(name, 200), errMissing)
	}
	if a.encrypted[name] {
		return nil, fmt.Errorf("%w: %s is listed in META-INF/encryption.xml", ErrEncrypted, clip(name, 200))
	}
	if f.Flags&0x1 != 0 {
		return nil, fmt.Errorf("%w: %s is an encrypted zip entry", ErrEncrypted, clip(name, 200))
	}
	if f.UncompressedSize64 > MaxEntryBytes {
		return nil, fmt.Errorf("%w: %s declares %d bytes, over the %d of MaxEntryBytes", ErrLimit, clip(name, 200), f.UncompressedSize64, MaxEntryBytes)
	}
	limit, total := int64(MaxEntryBytes), false
	if left := MaxInflatedBytes - a.inflated; left < limit {
		limit, total = left, true
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotEPUB, clip(name, 200), err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	a.inflated += int64(len(data))
	switch {
	case int64(len(data)) > limit && total:
		return nil, fmt.Errorf("%w: the book inflates to more than the %d bytes of MaxInflatedBytes (at %s)", ErrLimit, MaxInflatedBytes, clip(name, 200))
	case int64(len(data)) > limit:
		return nil, fmt.Errorf("%w: %s inflates to more than the %d bytes of MaxEntryBytes", ErrLimit, clip(name, 200), MaxEntryBytes)
	case errors.Is(err, zip.ErrFormat):
		// archive/zip stops at the first byte past the size the header
		// declares: a zip bomb that lies about its size costs no more.
		return nil, fmt.Errorf("%w: %s inflates past the %d bytes its header declares, or is corrupt", ErrNotEPUB, clip(name, 200), f.UncompressedSize64)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrNotEPUB, clip(name, 200), err)
	}
	return data, nil
}

// clip is s cut to at most n bytes, at a character's start, for messages
// and fields that must stay short whatever the input.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
