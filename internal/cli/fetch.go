package cli

import (
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/document"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/robots/directives"
)

func (e *env) fetchCommand() *cobra.Command {
	var jsonOut bool
	var mode string
	cmd := &cobra.Command{
		Use:   "fetch URL",
		Short: "Print one page as Markdown with YAML frontmatter",
		Long: `Fetch gets one page through heed's guarded client and prints its main content
as Markdown, after YAML frontmatter (title, description, url, fetched_at, and
what the page's robots directives say to heed). A page asked for on purpose
is not a crawl, so robots.txt is not consulted; the page's own directives are
reported, not enforced.`,
		Example: `  heed fetch https://go.dev/doc/effective_go
  heed fetch --json https://example.com/ | jq .links`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := render.ParseMode(mode)
			if err != nil {
				return usageErrorf("fetch: --%v", err)
			}
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			page, err := svc.Fetch(cmd.Context(), ingest.FetchRequest{URL: args[0], Render: m})
			if err != nil {
				return failure(err)
			}
			if page.Note != "" {
				fmt.Fprintf(e.stderr, "heed: note: %s\n", printable.Line(page.Note))
			}
			return e.writePage(page, jsonOut)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the document as JSON")
	cmd.Flags().StringVar(&mode, "render", "auto", "render the page in the browser: auto (when its static HTML holds next to nothing but scripts), always, never")
	return cmd
}

func (e *env) extractCommand() *cobra.Command {
	var (
		jsonOut bool
		base    string
	)
	cmd := &cobra.Command{
		Use:   "extract [FILE|-] [--url BASE]",
		Short: "Turn an HTML file or a document (PDF, EPUB, DOCX) into Markdown, offline",
		Long: `Extract reads an HTML page or a document from a file (or standard input) and prints
its main content as Markdown after YAML frontmatter, as 'heed fetch' does,
without touching the network. --url is the page's address, for its relative
links.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := argOrStdin(args)
			if base != "" {
				if err := fetch.CheckURL(base); err != nil {
					return usageErrorf("extract: --url %s: %v", fetch.Redact(base), err)
				}
			}
			var r io.Reader = e.stdin
			if name != "-" {
				f, err := os.Open(name)
				if err != nil {
					return usageErrorf("extract: %v", err)
				}
				defer f.Close()
				r = f
			}
			body, err := io.ReadAll(io.LimitReader(r, max(extract.MaxInputBytes, document.MaxBytes)+1))
			if err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("extract: %w", err)}
			}
			// A file's type is its name's, as a web server would serve it:
			// style.css is CSS, not a page; a name without a known type,
			// and standard input, are read by what they open with (a PDF
			// by its header), else as HTML.
			contentType := ""
			if name != "-" {
				contentType = notPageType(filepath.Ext(name))
			}
			doc, err := ingest.Document(cmd.Context(), body, base, contentType)
			if err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("extract: %w", err)}
			}
			page := &ingest.Page{URL: base, Doc: doc, Robots: doc.RobotsFor(e.agent, nil)}
			return e.writePage(page, jsonOut)
		},
	}
	cmd.Flags().StringVar(&base, "url", "", "the page's URL, against which relative links are resolved")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the document as JSON")
	return cmd
}

// notPageType is the type of a file's extension when it names something
// that is no page (a stylesheet, a script, data, an image, a font, an
// archive), and "" otherwise: .php, .asp, .xml and names of no known type
// may well be pages, and are read as HTML, whatever the system's MIME
// table says of them.
func notPageType(ext string) string {
	t := mime.TypeByExtension(ext)
	mt, _, _ := mime.ParseMediaType(t)
	switch {
	case mt == "text/plain", mt == "text/markdown", mt == "text/x-markdown":
		return t
	case mt == "text/css", mt == "text/javascript", mt == "application/javascript", mt == "application/json",
		mt == "application/pdf", mt == "application/zip", mt == "application/gzip", mt == "application/wasm",
		strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "font/"):
		return t
	}
	return ""
}

// writePage prints a page as Markdown after YAML frontmatter, or as JSON.
func (e *env) writePage(p *ingest.Page, jsonOut bool) error {
	if jsonOut {
		return writeJSON(e.stdout, struct {
			*extract.Document
			FetchedAt time.Time      `json:"fetched_at,omitzero"`
			Robots    directives.Set `json:"robots"`
			Via       string         `json:"via,omitempty"`
			Rendered  bool           `json:"rendered,omitempty"`
		}{p.Doc, p.FetchedAt, p.Robots, p.Via, p.Rendered})
	}
	var w frontmatter.Writer
	field := w.Field
	d := p.Doc
	field("title", d.Title)
	field("author", d.Author)
	field("description", d.Description)
	field("url", d.URL)
	if !p.FetchedAt.IsZero() {
		field("fetched_at", p.FetchedAt.Format(time.RFC3339))
	}
	field("canonical", d.Canonical)
	field("lang", d.Lang)
	if !d.Published.IsZero() {
		field("published", d.Published.Format(time.RFC3339))
	}
	if !d.Modified.IsZero() {
		field("modified", d.Modified.Format(time.RFC3339))
	}
	field("robots", p.Robots.String())
	field("via", p.Via)
	w.Flag("rendered", p.Rendered)
	_, err := io.WriteString(e.stdout, printable.Text(w.Document(d.Markdown)))
	return err
}
