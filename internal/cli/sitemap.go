package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
)

// mapCommand lists a site's URLs as a crawl would find them first,
// without storing anything (ingest.Service.Map).
func (e *env) mapCommand() *cobra.Command {
	var (
		req     ingest.MapRequest
		jsonOut bool
	)
	req.Options = crawlopt.Defaults()
	o := &req.Options
	cmd := &cobra.Command{
		Use:   "map URL",
		Short: "List a site's URLs from its start page, llms.txt and sitemaps, storing nothing",
		Long: `Map lists the URLs a crawl from URL would find first, without storing
anything: the start URL, the links of its page, and the pages the site's
/llms.txt and sitemaps list, within the crawl's scope (the start URL's
directory, unless --whole-site; --include and --exclude as for a crawl)
and allowed by robots.txt, each with where it was found. Every request
takes its host's turn, spaced by the delay or the site's Crawl-delay.

Exit status: 0 when the map was made, 1 when the start URL is refused or
the map was cut short, 2 on a usage error.`,
		Example: `  heed map https://go.dev/doc/
  heed map https://docs.example.com/ --whole-site --limit 5000 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Start = args[0]
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			m, err := svc.Map(cmd.Context(), req)
			if m != nil {
				if jsonOut {
					if werr := writeJSON(e.stdout, m); werr != nil {
						return werr
					}
				} else {
					for _, u := range m.URLs {
						fmt.Fprintf(e.stdout, "%s\t%s\n", printable.Line(u.URL), strings.Join(u.Via, ","))
					}
				}
				if !e.quiet && !jsonOut {
					fmt.Fprintln(e.stderr, "heed: "+mapSummary(m))
				}
			}
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&req.Limit, "limit", ingest.DefaultMapLimit, fmt.Sprintf("list at most this many URLs (at most %d)", ingest.MaxMapLimit))
	f.StringArrayVar(&o.Include, "include", o.Include, "list only paths matching this glob (repeatable; * within a segment, ** across)")
	f.StringArrayVar(&o.Exclude, "exclude", o.Exclude, "leave out paths matching this glob (repeatable)")
	f.StringArrayVar(&o.AllowHosts, "allow-host", o.AllowHosts, "also list this host's URLs (repeatable)")
	f.BoolVar(&o.WholeSite, "whole-site", o.WholeSite, "list the start URL's whole origin, not only its directory (the path up to its last /)")
	f.DurationVar(&o.Delay, "delay", o.Delay, "least time between two requests to one host (robots.txt may ask for more)")
	f.BoolVar(&o.NoRobots, "no-robots", o.NoRobots, "do not consult robots.txt (no robots.txt request is made)")
	f.BoolVar(&jsonOut, "json", false, "print the map as one JSON object")
	f.BoolVarP(&e.quiet, "quiet", "q", false, "print no summary line")
	return cmd
}

// mapSummary says what a map holds and left out.
func mapSummary(m *ingest.SiteMap) string {
	by := map[string]int{}
	for _, u := range m.URLs {
		by[u.Via[0]]++
	}
	var parts []string
	for _, via := range []string{ingest.MapStart, ingest.MapLink, ingest.MapLLMsTxt, ingest.MapSitemap} {
		if by[via] > 0 {
			parts = append(parts, fmt.Sprintf("%d by %s", by[via], via))
		}
	}
	s := fmt.Sprintf("map of %s (%s): %s", printable.Line(m.Start), printable.Line(m.Scope), plural(len(m.URLs), "1 URL", "URLs"))
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if m.Disallowed > 0 {
		s += fmt.Sprintf("; %d disallowed by robots.txt", m.Disallowed)
	}
	if m.OutOfScope > 0 {
		s += fmt.Sprintf("; %d out of scope", m.OutOfScope)
	}
	if m.SitemapsUnread > 0 {
		s += fmt.Sprintf("; %s not read to their end", plural(m.SitemapsUnread, "1 sitemap", "sitemaps"))
	}
	if m.Cut {
		s += "; cut at its limit (--limit raises it)"
	}
	if m.StartError != "" {
		s += "; the start page gave no links: " + printable.Line(m.StartError)
	}
	return s
}
