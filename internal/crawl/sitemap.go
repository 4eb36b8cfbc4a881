package crawl

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"strings"
)

// sitemap is what a sitemap file lists: pages (urlset) or more sitemaps
// (sitemapindex).
type sitemap struct {
	Pages    []sitemapEntry
	Sitemaps []string
}

type sitemapEntry struct {
	Loc     string
	LastMod string
}

// maxSitemapBytes caps a sitemap after decompression (the sitemaps
// protocol allows 50 MB).
const maxSitemapBytes = 50 << 20

// parseSitemap reads a sitemap, gzipped or not. It reads no entities or
// external anything: encoding/xml expands only the five predefined ones.
func parseSitemap(body []byte) (*sitemap, error) {
	var r io.Reader = bytes.NewReader(body)
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		r = io.LimitReader(zr, maxSitemapBytes)
	}
	dec := xml.NewDecoder(r)
	dec.Strict = false
	var out sitemap
	var stack []string
	var entry sitemapEntry
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return &out, nil
		}
		if err != nil {
			return &out, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			if t.Name.Local == "url" || t.Name.Local == "sitemap" {
				entry = sitemapEntry{}
			}
		case xml.CharData:
			if len(stack) < 2 {
				continue
			}
			switch stack[len(stack)-1] {
			case "loc":
				entry.Loc += string(t)
			case "lastmod":
				entry.LastMod += string(t)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			entry.Loc = strings.TrimSpace(entry.Loc)
			switch t.Name.Local {
			case "url":
				if entry.Loc != "" {
					out.Pages = append(out.Pages, sitemapEntry{Loc: entry.Loc, LastMod: strings.TrimSpace(entry.LastMod)})
				}
			case "sitemap":
				if entry.Loc != "" {
					out.Sitemaps = append(out.Sitemaps, entry.Loc)
				}
			}
		}
	}
}
