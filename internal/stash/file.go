package stash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/history"
)

// PathFor is where a URL's snapshot prefers to live in a stash, relative
// to it: SOURCE/HOST/PATH.md, with every segment made safe for any file
// system: a path ending in "/" is its folder's "_index.md" (names a page
// gives that start with "_" get one more, so "_index" is never a page's
// own); a query adds "~" and a hash of it ("~" in a name is always
// escaped); an empty segment ("//") is "_"; a folder whose name ends in
// ".md", in any case, has its dot escaped, so that it is never a page's
// file; the stash's reserved "index.md" and "log.md" are never produced
// (a page called "index" is "%69ndex.md"), nor the names Windows keeps
// for devices ("con" is "%63on.md"), nor a name ending in a dot. The
// name is ASCII, which no file system's Unicode normalization changes.
//
// Names keep the URL's case. Where two URLs' names differ only in case
// (or are one, as http:// and https:// of a page are), a file system
// that ignores case would give them one file: the stash gives the second
// URL to come the name with a hash of its URL added (see Put), and
// heed.Snapshot.Path says where each lives.
func PathFor(source, rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("stash: %q is not an absolute URL", rawURL)
	}
	segs := []string{sourceDir(source), dirName(strings.ToLower(u.Host))}
	parts := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	for _, d := range parts[:len(parts)-1] {
		switch d {
		case ".", "..":
			continue
		case "":
			segs = append(segs, "_")
			continue
		}
		segs = append(segs, dirName(d))
	}
	name := "_index"
	if last := parts[len(parts)-1]; last != "" && last != "." && last != ".." {
		name = safeName(last)
		switch strings.ToLower(name) {
		case "index", "log":
			name = fmt.Sprintf("%%%02X", name[0]) + name[1:]
		}
	}
	if u.RawQuery != "" {
		h := sha256.Sum256([]byte(u.RawQuery))
		name += "~" + hex.EncodeToString(h[:4])
	}
	return strings.Join(segs, "/") + "/" + name + ".md", nil
}

// NamedPath is the file of a snapshot with a preferred name, such as
// "bluesky/alice.example.com": each "/"-separated segment made safe as
// PathFor makes its folders and file, and ".md" added. A name needs a
// folder and a file ("a/b" at least), so that it never lands in the
// stash's root beside index.md and log.md; empty, "." and ".." segments
// are refused.
func NamedPath(name string) (string, error) {
	parts := strings.Split(name, "/")
	if len(parts) < 2 {
		return "", fmt.Errorf("stash: a snapshot name needs a folder: %q", name)
	}
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			return "", fmt.Errorf("stash: %q is not a snapshot name", name)
		}
		if i < len(parts)-1 {
			parts[i] = dirName(p)
		} else {
			parts[i] = safeName(p)
		}
	}
	return strings.Join(parts, "/") + ".md", nil
}

// sourceDir is a source name as a directory name.
func sourceDir(source string) string { return dirName(source) }

// dirName makes a URL path segment or a name safe as a folder's name:
// safeName's, with the dot of a final ".md", in any case, escaped, so
// that a folder never shares a name with a snapshot's file (a host
// log.md with the stash's log, a folder X.MD with a page's x.md where
// case is ignored).
func dirName(s string) string {
	name := safeName(s)
	if n := len(name); n >= 3 && strings.EqualFold(name[n-3:], ".md") {
		name = name[:n-3] + "%2E" + name[n-2:]
	}
	return name
}

// safeName makes a URL path segment or a name safe as a file name: bytes
// outside [A-Za-z0-9._-] are written %XX, a leading "_" or "." is doubled
// or escaped, as are a trailing "." and the first letter of a name that
// Windows keeps for a device (such as "con" or "COM1.html"), and long
// names are cut with a hash of the whole. The name is ASCII.
func safeName(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			// '~' is not kept: it marks a query's hash.
			b.WriteByte(c)
		case c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	out := b.String()
	if strings.HasPrefix(out, "_") {
		out = "_" + out
	}
	if out == "" {
		out = "_"
	}
	if windowsDevice(out) {
		out = fmt.Sprintf("%%%02X", out[0]) + out[1:]
	}
	if strings.HasSuffix(out, ".") {
		// Windows drops a name's trailing dots: "a." would be "a".
		out = out[:len(out)-1] + "%2E"
	}
	if len(out) > 100 {
		h := sha256.Sum256([]byte(out))
		out = out[:80] + "~" + hex.EncodeToString(h[:6])
	}
	return out
}

// windowsDevice reports whether Windows takes a file of this name for a
// device: CON, PRN, AUX, NUL, COM0-9 and LPT0-9, in any case, alone or
// before a dot ("nul.txt", "com1.tar.gz").
func windowsDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	switch len(base) {
	case 3:
		for _, d := range []string{"con", "prn", "aux", "nul"} {
			if strings.EqualFold(base, d) {
				return true
			}
		}
	case 4:
		return (strings.EqualFold(base[:3], "com") || strings.EqualFold(base[:3], "lpt")) && '0' <= base[3] && base[3] <= '9'
	}
	return false
}

// header is a snapshot file's frontmatter.
type header struct {
	Title        string   `yaml:"title"`
	Author       string   `yaml:"author"`
	Description  string   `yaml:"description"`
	Published    string   `yaml:"published"`
	Modified     string   `yaml:"modified"`
	URL          string   `yaml:"url"`
	Source       string   `yaml:"source"`
	FetchedAt    string   `yaml:"fetched_at"`
	Tags         []string `yaml:"tags"`
	Hash         string   `yaml:"hash"`
	ETag         string   `yaml:"etag"`
	LastModified string   `yaml:"last_modified"`
	Notes        []string `yaml:"notes"`
	Via          []string `yaml:"via"`
	Rendered     bool     `yaml:"rendered"`
	Removed      string   `yaml:"removed"`
	History      []string `yaml:"history"`
}

// page is a snapshot as its file holds it, with the lines of its
// history.
type page struct {
	*heed.Snapshot
	history []string
}

// encode writes a snapshot as a Markdown file, its history last in its
// frontmatter.
func encode(s *heed.Snapshot, history []string) []byte {
	var w frontmatter.Writer
	w.Snapshot(s)
	if !s.Removed.IsZero() {
		w.Field("removed", formatTime(s.Removed))
	}
	w.Lines("history", history)
	return []byte(w.Document(s.Markdown))
}

// readFile reads the snapshot file at path, under the stash's directory,
// through its root: a symbolic link that leads out of the stash is not
// followed.
func (s *Stash) readFile(path string) (*heed.Snapshot, error) {
	p, err := s.readPage(path)
	if err != nil {
		return nil, err
	}
	return p.Snapshot, nil
}

// readPage is readFile, with the page's history.
func (s *Stash) readPage(path string) (*page, error) {
	data, err := readRegular(s.root, s.rel(path))
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	return parsePage(path, data)
}

// abs is the path of the file at path, relative to the stash.
func (s *Stash) abs(path string) string { return filepath.Join(s.dir, filepath.FromSlash(path)) }

// openRegular opens the file name within root to read it, if it is a
// regular file: a named pipe planted in the stash is not waited on, and
// a device or a folder is no file of the stash.
func openRegular(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", filepath.ToSlash(name))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRegular reads the regular file name within root (openRegular).
func readRegular(root *os.Root, name string) ([]byte, error) {
	f, err := openRegular(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// rel is the name, within the stash, of path under its directory.
func (s *Stash) rel(path string) string {
	if r, err := filepath.Rel(s.dir, path); err == nil {
		return r
	}
	return path // not local: the root refuses it
}

// parseFile reads a snapshot from the data of its file at path.
func parseFile(path string, data []byte) (*heed.Snapshot, error) {
	p, err := parsePage(path, data)
	if err != nil {
		return nil, err
	}
	return p.Snapshot, nil
}

// parsePage is parseFile, with the page's history.
func parsePage(path string, data []byte) (*page, error) {
	var h header
	body, err := frontmatter.Split(data, &h)
	if err != nil {
		return nil, fmt.Errorf("stash: %s: %w", path, err)
	}
	removed, _ := time.Parse(time.RFC3339, h.Removed)
	at, _ := time.Parse(time.RFC3339, h.FetchedAt)
	published, _ := time.Parse(time.RFC3339, h.Published)
	modified, _ := time.Parse(time.RFC3339, h.Modified)
	snap := &heed.Snapshot{
		Source: h.Source, URL: h.URL, Title: h.Title, Author: h.Author, Description: h.Description,
		Published: published, Modified: modified, FetchedAt: at,
		Tags: h.Tags, Hash: strings.TrimPrefix(h.Hash, "sha256:"), ETag: h.ETag, LastModified: h.LastModified,
		Notes: h.Notes, Via: h.Via, Rendered: h.Rendered, Markdown: body, Removed: removed,
	}
	if vs, _ := history.DecodeAll(h.History); len(vs) > 0 {
		cur, _ := history.Current(vs)
		snap.Version = cur.N
	}
	return &page{Snapshot: snap, history: h.History}, nil
}
