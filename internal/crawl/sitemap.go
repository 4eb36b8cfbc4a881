package crawl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
)

// The bounds of the sitemaps a crawl reads. The sitemaps protocol allows
// 50,000 URLs and 50 MB a file; a crawl reads at most 50 files.
const (
	maxSitemapBytes = 50 << 20 // a file, after decompression
	maxSitemapURLs  = 50_000   // entries a file
	maxSitemaps     = 50       // files a crawl
	// maxSitemapDepth is how deeply a sitemap's elements may nest: the
	// protocol's are three deep, and its extensions' five.
	maxSitemapDepth = 32
	// maxBarrenSitemaps is how many sitemaps of pages in a row may list
	// no page in the crawl's scope before the rest are left unread: a
	// crawl kept to a directory of a large site would else read the
	// site's every sitemap, each on the host's turn, for little.
	maxBarrenSitemaps = 3
)

// sitemaps says how a crawl reads a site's sitemaps (readSitemaps).
type sitemaps struct {
	// Client is the client of a sitemap's request: on its host's turn,
	// spaced by its host's delay.
	Client func(rawURL string) *polite.Client
	// MaxRequests bounds the requests, redirect hops included (the
	// crawl's max_pages), and no more than 50 are made. They are not
	// pages of max_pages (a guessed /sitemap.xml that is not there would
	// take one of two), but are bounded alike.
	MaxRequests int
	// InScope says whether a sitemap's URL is in the crawl's scope; one
	// on the start URL's host is read in any case.
	InScope func(*url.URL) bool
	// Allowed says whether robots.txt allows a URL (every hop's).
	Allowed func(raw string) bool
	// Full reports whether the crawl has as many URLs as it may fetch:
	// reading more is no use.
	Full func() bool
	// Offer takes a page a sitemap lists (normalized), and what the
	// sitemap says of when it last changed.
	Offer func(url, lastMod string)
	// Done, if set, says whether a sitemap of pages was read to its end
	// before (a reading resumed): it is not read again. Read, if set, is
	// told of each sitemap of pages read to its end, once its pages were
	// offered. (Sitemap indexes are read again: what they list is not
	// kept.)
	Done func(loc string) bool
	Read func(loc string)
}

// ErrSitemapsCut is Engine.Seed's error when it stopped before it was
// done for lack of time or of a turn: what is left may be read later.
var ErrSitemapsCut = errors.New("the sitemaps' reading was cut short")

// readSitemaps reads the sitemaps that robots.txt lists (listed) and
// /sitemap.xml of the start URL's origin, following sitemap indexes, and
// offers the pages they list. It reads within the sitemap bounds (50
// files, each up to 50,000 entries and 50 MB) and stops once the crawl is
// full, or once maxBarrenSitemaps sitemaps of pages in a row listed none
// in its scope; it returns how many sitemap files it left unread, or did
// not read to their end, and ErrSitemapsCut when the context ended or a
// host's turn did not come first.
func readSitemaps(ctx context.Context, sm sitemaps, start *url.URL, listed []string) (unread int, err error) {
	origin := start.Scheme + "://" + start.Host
	lists := append(slices.Clone(listed), origin+"/sitemap.xml")
	done := map[string]bool{}
	read, barren := 0, 0
	budget := newSitemapBudget(sm.MaxRequests)
	for i := 0; i < len(lists); i++ {
		if ctx.Err() != nil || read >= maxSitemaps || sm.Full() || barren >= maxBarrenSitemaps {
			// The rest of the list is left, but for /sitemap.xml, which
			// is only a guess.
			for _, l := range lists[i:] {
				if l != origin+"/sitemap.xml" {
					unread++
				}
			}
			if ctx.Err() != nil {
				return unread, ErrSitemapsCut
			}
			return unread, nil
		}
		loc, err := Normalize(resolve(origin+"/robots.txt", lists[i]))
		if err != nil || done[loc] || sm.Done != nil && sm.Done(loc) {
			continue
		}
		done[loc] = true
		su, _ := url.Parse(loc)
		if !sm.InScope(su) && su.Host != start.Host {
			continue
		}
		if !sm.Allowed(loc) {
			continue
		}
		// Sitemap requests have a budget of their own, redirect hops
		// included (sitemapBudget); a hop answers to scope and robots.txt,
		// and a redirect to another origin is not followed (its robots.txt
		// would be asked while this host's turn is held).
		if !budget.take() {
			return unread + len(lists) - i, nil
		}
		req := fetch.Request{URL: loc, Accept: "application/xml, text/xml;q=0.9, */*;q=0.5", MaxBytes: maxSitemapBytes, NoRetry: true,
			CheckRedirect: func(next string) error {
				nu, err := url.Parse(next)
				switch {
				case err != nil:
					return err
				case nu.Host != su.Host || nu.Scheme != su.Scheme:
					return errors.New("a sitemap's redirect to another origin is not followed")
				case !sm.InScope(nu) && nu.Host != start.Host:
					return errors.New("out of scope")
				}
				if !sm.Allowed(next) {
					return errors.New("robots.txt disallows it")
				}
				if !budget.take() {
					return errors.New("the sitemaps' requests are spent")
				}
				return nil
			}}
		resp, err := sm.Client(loc).Get(ctx, req)
		if errors.Is(err, polite.ErrNoTurn) || ctx.Err() != nil {
			return unread + len(lists) - i, ErrSitemapsCut
		}
		read++
		if err != nil {
			if loc != origin+"/sitemap.xml" || gone(err) == "" {
				// Listed, or there and not read (too large, a server's
				// error): not read. A guessed /sitemap.xml that is not
				// there is no sitemap left unread.
				unread++
			}
			continue
		}
		if resp.Status != 200 {
			gone := resp.Status == http.StatusNotFound || resp.Status == http.StatusGone
			if loc != origin+"/sitemap.xml" || !gone {
				unread++ // as an error is (above)
			}
			continue
		}
		full, index, inScope := false, false, false
		err = readSitemap(ctx, resp.Body, func(e sitemapEntry) bool {
			if e.Index {
				index = true
				// Relative to its index. The list is kept within what
				// may be read; the rest is counted.
				if len(lists) < 4*maxSitemaps {
					lists = append(lists, resolve(loc, e.Loc))
				} else {
					unread++
				}
				return true
			}
			if sm.Full() {
				full = true
				return false
			}
			if n, err := Normalize(resolve(loc, e.Loc)); err == nil {
				if !inScope {
					u, err := url.Parse(n)
					inScope = err == nil && sm.InScope(u)
				}
				sm.Offer(n, e.LastMod)
			}
			return true
		})
		if full || err != nil {
			unread++ // not read to its end
		} else if !index && sm.Read != nil {
			sm.Read(loc)
		}
		switch {
		case inScope:
			barren = 0
		case !index && !full && err == nil:
			barren++
		}
	}
	return unread, nil
}

// sitemapBudget counts a crawl's sitemap requests, redirect hops
// included: as many as max_pages, and no more than maxSitemaps.
type sitemapBudget int

func (b *sitemapBudget) take() bool {
	if *b <= 0 {
		return false
	}
	*b--
	return true
}

func newSitemapBudget(maxPages int) sitemapBudget { return sitemapBudget(min(maxPages, maxSitemaps)) }

// sitemapEntry is one entry of a sitemap: a page of a urlset, or a
// sitemap of a sitemapindex (Index).
type sitemapEntry struct {
	Loc     string
	LastMod string
	Index   bool
}

// errSitemapFull stops a sitemap's reading after maxSitemapURLs entries.
var errSitemapFull = errors.New("more than 50,000 URLs")

// errSitemapSize stops a gzipped sitemap that inflates past
// maxSitemapBytes.
var errSitemapSize = errors.New("more than 50 MB inflated")

// sizeCap reads r until left bytes were read, then fails with
// errSitemapSize if there is more.
type sizeCap struct {
	r    io.Reader
	left int64
}

func (c *sizeCap) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, errSitemapSize
		}
		return c.r.Read(p) // io.EOF, or the error that ends it
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// errSitemapDepth stops a sitemap whose elements nest past maxSitemapDepth.
var errSitemapDepth = errors.New("elements nested too deeply")

// readSitemap reads a sitemap, gzipped or not, and hands each entry to
// yield in order, until yield returns false, ctx is done, or the file's
// bounds are met (errSitemapFull, the inflated size). It reads each byte
// once and keeps no more than one entry, so its work is linear in the
// body and its memory bounded whatever the body holds: a <loc> longer
// than a URL may be is dropped, and only the five predefined entities
// and character references are read. It returns nil when the body was
// read to its end or yield stopped it.
func readSitemap(ctx context.Context, body []byte, yield func(sitemapEntry) bool) error {
	var r io.Reader = bytes.NewReader(body)
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		r = &sizeCap{r: zr, left: maxSitemapBytes}
	}
	s := sitemapScanner{r: bufio.NewReaderSize(r, 64<<10), ctx: ctx, yield: yield}
	return s.run()
}

// sitemapScanner is a small XML reader for sitemaps: elements, text,
// comments, CDATA, processing instructions and declarations, and nothing
// more. Names are read without their namespace prefix.
type sitemapScanner struct {
	r     *bufio.Reader
	ctx   context.Context
	yield func(sitemapEntry) bool

	depth      int  // elements open
	entryDepth int  // the depth of the <url> or <sitemap> open, or 0
	index      bool // that element is a <sitemap>
	field      *[]byte
	fieldDepth int
	fieldMax   int
	loc        []byte
	lastmod    []byte
	locLong    bool // the <loc> was longer than a URL may be
	entries    int
	steps      int
}

var errStopped = errors.New("stopped")

func (s *sitemapScanner) run() error {
	err := s.scan()
	switch {
	case err == io.EOF, err == errStopped:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil // a cut-off file: its whole entries were read
	}
	return err
}

func (s *sitemapScanner) scan() error {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		if s.steps++; s.steps&0xfff == 0 && s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		switch c {
		case '<':
			if err := s.markup(); err != nil {
				return err
			}
		case '&':
			if err := s.entity(); err != nil {
				return err
			}
		default:
			s.text(c)
		}
	}
}

// text keeps a byte of the field being read, up to its bound.
func (s *sitemapScanner) text(c byte) {
	if s.field == nil || s.depth != s.fieldDepth {
		return
	}
	if len(*s.field) >= s.fieldMax {
		if s.field == &s.loc {
			s.locLong = true
		}
		return
	}
	*s.field = append(*s.field, c)
}

// entity reads what follows '&': one of the five predefined entities or a
// character reference, or else the '&' as written.
func (s *sitemapScanner) entity() error {
	var name []byte
	for len(name) < 32 {
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		if c == ';' {
			if r, ok := entityRune(string(name)); ok {
				var buf [utf8.UTFMax]byte
				for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
					s.text(b)
				}
				return nil
			}
			name = append(name, c)
			break
		}
		if c == '<' || c == '&' {
			s.r.UnreadByte()
			break
		}
		name = append(name, c)
	}
	s.text('&')
	for _, b := range name {
		s.text(b)
	}
	return nil
}

func entityRune(name string) (rune, bool) {
	switch name {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	}
	if rest, ok := strings.CutPrefix(name, "#"); ok {
		base := 10
		if r, ok := strings.CutPrefix(rest, "x"); ok {
			rest, base = r, 16
		}
		n, err := strconv.ParseUint(rest, base, 32)
		if err == nil && n > 0 && utf8.ValidRune(rune(n)) {
			return rune(n), true
		}
	}
	return 0, false
}

// skipPast reads up to and past end, which is at most 3 bytes long.
func (s *sitemapScanner) skipPast(end string) error {
	var last [3]byte // the bytes read last, the newest at the end
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		last[0], last[1], last[2] = last[1], last[2], c
		if string(last[3-len(end):]) == end {
			return nil
		}
	}
}

// markup reads what follows '<'.
func (s *sitemapScanner) markup() error {
	c, err := s.r.ReadByte()
	if err != nil {
		return err
	}
	switch c {
	case '?':
		return s.skipPast("?>")
	case '!':
		if p, _ := s.r.Peek(2); string(p) == "--" {
			s.r.Discard(2)
			return s.skipPast("-->")
		}
		if p, _ := s.r.Peek(7); string(p) == "[CDATA[" {
			s.r.Discard(7)
			return s.cdata()
		}
		return s.skipPast(">") // a declaration: sitemaps need none
	case '/':
		name, _, err := s.name()
		if err != nil {
			return err
		}
		return s.end(name)
	}
	s.r.UnreadByte()
	name, empty, err := s.name()
	if err != nil {
		return err
	}
	if err := s.start(name); err != nil {
		return err
	}
	if empty {
		return s.end(name)
	}
	return nil
}

// cdata reads a CDATA section's text, as written.
func (s *sitemapScanner) cdata() error {
	matched := 0
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case c == ']' && matched < 2:
			matched++
		case c == '>' && matched == 2:
			return nil
		case c == ']':
			s.text(']') // the first of three or more
		default:
			for range matched {
				s.text(']')
			}
			matched = 0
			s.text(c)
		}
	}
}

// name reads a tag's local name (at most 32 bytes of it) and skips its
// attributes, reporting whether the tag closes itself.
func (s *sitemapScanner) name() (string, bool, error) {
	var name []byte
	inName := true
	var quote byte
	var last byte
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", false, err
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '>':
			return string(name), last == '/', nil
		case c == '"' || c == '\'':
			quote = c
			inName = false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/':
			inName = false
		case inName && c == ':':
			name = name[:0] // the prefix: the local name follows
		case inName && len(name) < 32:
			name = append(name, c)
		}
		last = c
	}
}

func (s *sitemapScanner) start(name string) error {
	s.depth++
	if s.depth > maxSitemapDepth {
		return errSitemapDepth
	}
	switch {
	case (name == "url" || name == "sitemap") && s.entryDepth == 0:
		s.entryDepth, s.index = s.depth, name == "sitemap"
		s.loc, s.lastmod, s.locLong = s.loc[:0], s.lastmod[:0], false
	case name == "loc" && s.entryDepth != 0 && s.depth == s.entryDepth+1:
		s.field, s.fieldDepth, s.fieldMax = &s.loc, s.depth, fetch.MaxURLLength
		s.loc, s.locLong = s.loc[:0], false
	case name == "lastmod" && s.entryDepth != 0 && s.depth == s.entryDepth+1:
		s.field, s.fieldDepth, s.fieldMax = &s.lastmod, s.depth, 64
		s.lastmod = s.lastmod[:0]
	}
	return nil
}

func (s *sitemapScanner) end(name string) error {
	if s.depth == 0 {
		return nil
	}
	if s.field != nil && s.depth == s.fieldDepth {
		s.field = nil
	}
	if s.depth == s.entryDepth {
		s.entryDepth = 0
		loc := strings.TrimSpace(string(s.loc))
		if loc != "" && !s.locLong {
			if s.entries++; s.entries > maxSitemapURLs {
				return errSitemapFull
			}
			if !s.yield(sitemapEntry{Loc: loc, LastMod: strings.TrimSpace(string(s.lastmod)), Index: s.index}) {
				return errStopped
			}
		}
	}
	s.depth--
	return nil
}
