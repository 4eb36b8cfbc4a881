package extractdev

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Page is one page of the set.
type Page struct {
	ID       string   `json:"id"`
	Set      string   `json:"set"`
	URL      string   `json:"url"`
	PageType string   `json:"page_type"`
	HTMLFile string   `json:"html"`
	Truth    string   `json:"truth"`
	With     []string `json:"with"`
	Without  []string `json:"without"`
	Split    string   `json:"split"` // tune or check, where the set has halves

	dir string
}

// Load reads the manifest of the set in dir.
func Load(dir string) ([]Page, error) {
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pages []Page
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p Page
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		p.dir = dir
		pages = append(pages, p)
	}
	return pages, sc.Err()
}

// HTML returns the page as it was stored.
func (p Page) HTML() ([]byte, error) { return ReadGzip(filepath.Join(p.dir, p.HTMLFile)) }

// ReadGzip reads a gzipped file whole, as the sets keep their pages.
func ReadGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// TruthText returns the main text a person would keep.
func (p Page) TruthText() (string, error) {
	b, err := os.ReadFile(filepath.Join(p.dir, p.Truth))
	return string(b), err
}

var (
	// A link's text and an image's alt may hold escaped brackets
	// ([\[1\]](#note-1)), which do not end them.
	mdImage = regexp.MustCompile(`(\\*)!\[(?:[^\]\\]|\\.)*\]\((?:[^)"]|"(?:[^"\\]|\\.)*")*\)`)
	mdLink  = regexp.MustCompile(`\[((?:[^\]\\]|\\.)*)\]\([^)]*\)`)
	mdFence = regexp.MustCompile("(?m)^ *(```+|~~~+).*$") // a fence and its language: markup
	wordsRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)
	// An HTML comment, outside code: not text.
	mdComment = regexp.MustCompile(`<!--[\s\S]*?-->`)
	mdMarkup  = strings.NewReplacer("\\", "", "*", "", "`", "", "#", "", ">", "", "|", "", "~~", "")
)

// PlainText strips Markdown down to its text: images (they are not text),
// link targets, code fences with their language, HTML comments (a reader
// of the rendered Markdown never sees them: a document's page markers)
// and markup characters go, as the set's README asks before scoring.
func PlainText(md string) string {
	// Fenced code is text as it stands (a "\n" in a string literal is
	// its words); the rest is Markdown to strip.
	var out, prose strings.Builder
	flush := func() {
		t := mdImage.ReplaceAllStringFunc(prose.String(), func(m string) string {
			// After an odd number of backslashes the "!" is escaped, a
			// "!" of the text before a link ("impl \![Send](...)").
			if escapes := len(m) - len(strings.TrimLeft(m, `\`)); escapes%2 == 0 {
				return m[:escapes]
			}
			return m
		})
		t = mdComment.ReplaceAllString(t, "")
		out.WriteString(mdMarkup.Replace(mdLink.ReplaceAllString(t, "$1")))
		prose.Reset()
	}
	fence := ""
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		switch {
		case fence != "" && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			fence = ""
		case fence != "":
			out.WriteString(line)
		case mdFence.MatchString(line):
			flush()
			m := mdFence.FindStringSubmatch(line)
			fence = m[1]
		default:
			prose.WriteString(line)
		}
	}
	flush()
	return out.String()
}

func words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range wordsRE.FindAllString(strings.Map(unicode.ToLower, s), -1) {
		out[w]++
	}
	return out
}

// Score is the set's measure of one page: precision, recall and F1 of the
// predicted words (with their counts) against the truth's. An empty
// prediction scores 0.
func Score(pred, truth string) (p, r, f float64) {
	pw, tw := words(pred), words(truth)
	overlap, np, nt := 0, 0, 0
	for w, c := range pw {
		overlap += min(c, tw[w])
		np += c
	}
	for _, c := range tw {
		nt += c
	}
	if overlap == 0 {
		return 0, 0, 0
	}
	p, r = float64(overlap)/float64(np), float64(overlap)/float64(nt)
	return p, r, 2 * p * r / (p + r)
}

// Mean is the mean of xs, 0 for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
