package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/robots/directives"
)

func (e *env) fetchCommand() *cobra.Command {
	var jsonOut bool
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
			if err := fetch.CheckURL(args[0]); err != nil {
				return usageErrorf("fetch %s: %v", fetch.Redact(args[0]), err)
			}
			client, err := e.client()
			if err != nil {
				return err
			}
			resp, err := client.Get(cmd.Context(), fetch.Request{URL: args[0]})
			if err != nil {
				if errors.Is(err, fetch.ErrInvalidURL) {
					return usageErrorf("fetch: %v", err)
				}
				return &exitError{code: ExitFailed, err: fmt.Errorf("fetch: %w", err)}
			}
			if resp.Status < 200 || resp.Status > 299 {
				return &exitError{code: ExitFailed, err: fmt.Errorf("fetch %s: the server answered HTTP %d", resp.URL, resp.Status)}
			}
			page, err := pageOf(resp.Body, resp.URL, resp.Header.Get("Content-Type"))
			if err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("fetch %s: %w", resp.URL, err)}
			}
			var sets []directives.Set
			for _, v := range resp.Header.Values("X-Robots-Tag") {
				sets = append(sets, directives.Parse(v)...)
			}
			page.headerDirectives = sets
			page.fetchedAt = time.Now().UTC()
			return e.writePage(page, jsonOut)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the document as JSON")
	return cmd
}

func (e *env) extractCommand() *cobra.Command {
	var (
		jsonOut bool
		base    string
	)
	cmd := &cobra.Command{
		Use:   "extract [FILE|-] [--url BASE]",
		Short: "Turn an HTML file into Markdown, offline",
		Long: `Extract reads an HTML page from a file (or standard input) and prints its main
content as Markdown after YAML frontmatter, as 'heed fetch' does, without
touching the network. --url is the page's address, for its relative links.`,
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
			body, err := io.ReadAll(io.LimitReader(r, extract.MaxInputBytes+1))
			if err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("extract: %w", err)}
			}
			page, err := pageOf(body, base, "")
			if err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("extract: %w", err)}
			}
			return e.writePage(page, jsonOut)
		},
	}
	cmd.Flags().StringVar(&base, "url", "", "the page's URL, against which relative links are resolved")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the document as JSON")
	return cmd
}

// page is a document and what is known of how it was had.
type page struct {
	doc              *extract.Document
	fetchedAt        time.Time
	headerDirectives []directives.Set
}

// pageOf extracts a page body: HTML is extracted; plain text and Markdown
// are kept as they are; anything else is refused.
func pageOf(body []byte, pageURL, contentType string) (*page, error) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	switch mediaType {
	case "", "text/html", "application/xhtml+xml":
		doc, err := extract.Extract(bytes.NewReader(body), extract.Options{URL: pageURL, ContentType: contentType})
		if err != nil {
			return nil, err
		}
		return &page{doc: doc}, nil
	case "text/plain", "text/markdown", "text/x-markdown":
		return &page{doc: &extract.Document{URL: pageURL, Markdown: strings.TrimSpace(string(body)), Links: []string{}}}, nil
	}
	return nil, errors.New("not an HTML or text page (Content-Type " + contentType + ")")
}

// robotsFor merges every directive the page states for heed's agent.
func (p *page) robotsFor(agent string) directives.Set {
	return directives.For(agent, append(append([]directives.Set(nil), p.doc.Directives...), p.headerDirectives...)...)
}

func (e *env) writePage(p *page, jsonOut bool) error {
	robots := p.robotsFor(e.agent)
	if jsonOut {
		return writeJSON(e.stdout, struct {
			*extract.Document
			FetchedAt time.Time      `json:"fetched_at,omitzero"`
			Robots    directives.Set `json:"robots"`
		}{p.doc, p.fetchedAt, robots})
	}
	var w frontmatter.Writer
	field := w.Field
	d := p.doc
	field("title", d.Title)
	field("description", d.Description)
	field("url", d.URL)
	if !p.fetchedAt.IsZero() {
		field("fetched_at", p.fetchedAt.Format(time.RFC3339))
	}
	field("canonical", d.Canonical)
	field("lang", d.Lang)
	if !d.Published.IsZero() {
		field("published", d.Published.Format(time.RFC3339))
	}
	if !d.Modified.IsZero() {
		field("modified", d.Modified.Format(time.RFC3339))
	}
	field("robots", robots.String())
	_, err := io.WriteString(e.stdout, printable.Text(w.Document(d.Markdown)))
	return err
}
