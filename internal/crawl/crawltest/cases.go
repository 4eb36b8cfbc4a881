package crawltest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// html is an HTML page of words of its own (its title, and a paragraph
// that says enough to be kept), what its head holds beside, and links.
func html(title, head string, links ...string) Page {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title>%s</head><body><main><h1>%s</h1>", title, head, title)
	fmt.Fprintf(&b, "<p>The page %s says what it has to say at length, in words of its own, so that it is kept as a page.</p>", title)
	for _, l := range links {
		fmt.Fprintf(&b, `<p><a href="%s">%s</a></p>`, l, l)
	}
	b.WriteString("</main></body></html>")
	return Page{Body: b.String()}
}

// with is p with a header set.
func (p Page) with(key, value string) Page {
	h := map[string]string{key: value}
	for k, v := range p.Header {
		h[k] = v
	}
	p.Header = h
	return p
}

// redirect answers with a 302 to where.
func redirect(where string) Page { return Page{Status: http.StatusFound, Location: where} }

// stored is the event of a page stored at u.
func stored(u string) Event { return Event{Kind: crawl.Stored, URL: u} }

// skipped is the event of u skipped for reason, its detail saying detail.
func skipped(u, reason, detail string) Event {
	return Event{Kind: crawl.Skipped, URL: u, Reason: reason, Detail: detail}
}

// titled is a snapshot of title, with nothing more asked of it.
func titled(title string) Stored { return Stored{Title: title} }

// Cases are the suite's cases, each a few pages of a loopback site.
func Cases() []Case {
	// A page long enough to be taken for a duplicate of its twin.
	long := html("Tides", "", "/index.html")
	long.Body = strings.Replace(long.Body, "</h1>", "</h1><p>"+strings.Repeat("The harbour's tide tables, and what they say of the moon. ", 5)+"</p>", 1)
	// The same, linking nowhere: a page that moves.
	mover := html("Tides", "")
	mover.Body = strings.Replace(mover.Body, "</h1>", "</h1><p>"+strings.Repeat("The harbour's tide tables, and what they say of the moon. ", 5)+"</p>", 1)

	// A home page that links to a page that answers 503 once, and to
	// many pages after it.
	var manyLinks []string
	for i := range 40 {
		manyLinks = append(manyLinks, fmt.Sprintf("/p%d", i))
	}
	busy := html("Busy", "")
	busy.Fails = 1
	manySite := Site{"/": html("Home", "", append([]string{"/busy"}, manyLinks...)...), "/busy": busy}
	manyEvents := []Event{stored("/"), skipped("/busy", crawl.ReasonLimit, "max_pages")}
	manyStored := map[string]Stored{"/": titled("Home")}
	manyRequests := map[string]int{"/robots.txt": 1, "/": 1, "/busy": 1}
	for i, l := range manyLinks {
		title := fmt.Sprintf("P%d", i)
		manySite[l] = html(title, "")
		manyEvents = append(manyEvents, stored(l))
		manyStored[l] = titled(title)
		manyRequests[l] = 1
	}

	return []Case{{
		// robots.txt's Disallow keeps a page from being asked for; a
		// longer Allow lets one of its pages be.
		Name: "robots",
		Site: Site{
			"/robots.txt":   {Body: "User-agent: *\nDisallow: /private/\nAllow: /private/open\n", Type: "text/plain"},
			"/":             html("Home", "", "/a", "/private/x", "/private/open"),
			"/a":            html("A", ""),
			"/private/x":    html("Private", ""),
			"/private/open": html("Open", ""),
		},
		Events: []Event{stored("/"), stored("/a"), stored("/private/open"),
			skipped("/private/x", crawl.ReasonRobots, "Disallow: /private/")},
		Stored:   map[string]Stored{"/": titled("Home"), "/a": titled("A"), "/private/open": titled("Open")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/a": 1, "/private/open": 1},
	}, {
		// A page that says noindex, in its meta tag or its X-Robots-Tag
		// header, is not stored; its links are followed all the same.
		Name: "noindex",
		Site: Site{
			"/":            html("Home", "", "/meta", "/header"),
			"/meta":        html("Meta", `<meta name="robots" content="noindex">`, "/from-meta"),
			"/header":      html("Header", "", "/from-header").with("X-Robots-Tag", "noindex"),
			"/from-meta":   html("From meta", ""),
			"/from-header": html("From header", ""),
		},
		Events: []Event{stored("/"), stored("/from-meta"), stored("/from-header"),
			skipped("/meta", crawl.ReasonNoindex, "noindex"), skipped("/header", crawl.ReasonNoindex, "noindex")},
		Stored:   map[string]Stored{"/": titled("Home"), "/from-meta": titled("From meta"), "/from-header": titled("From header")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/meta": 1, "/header": 1, "/from-meta": 1, "/from-header": 1},
	}, {
		// A page that says nofollow is stored, and its links are not
		// followed: not asked for, and not told of.
		Name: "nofollow",
		Site: Site{
			"/":           html("Home", "", "/meta", "/header"),
			"/meta":       html("Meta", `<meta name="robots" content="nofollow">`, "/hidden"),
			"/header":     html("Header", "", "/hidden-too").with("X-Robots-Tag", "nofollow"),
			"/hidden":     html("Hidden", ""),
			"/hidden-too": html("Hidden too", ""),
		},
		Events:   []Event{stored("/"), stored("/meta"), stored("/header")},
		Stored:   map[string]Stored{"/": titled("Home"), "/meta": titled("Meta"), "/header": titled("Header")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/meta": 1, "/header": 1},
	}, {
		// A site whose robots.txt says Content-Signal: ai-input=no keeps
		// its pages from agents: not one is asked for.
		Name: "content-signal",
		Site: Site{
			"/robots.txt": {Body: "User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n", Type: "text/plain"},
			"/":           html("Home", "", "/a"),
			"/a":          html("A", ""),
		},
		Events:   []Event{skipped("/", crawl.ReasonSignal, "ai-input=no")},
		Requests: map[string]int{"/robots.txt": 1},
	}, {
		// A crawl keeps to its start URL's directory: a link out of it
		// is skipped for its scope, and not asked for.
		Name:  "scope-directory",
		Start: "/docs/",
		Site: Site{
			"/docs/":  html("Docs", "", "/docs/a", "/blog/b", "/"),
			"/docs/a": html("Docs A", ""),
			"/blog/b": html("Blog B", ""),
			"/":       html("Home", ""),
		},
		Events: []Event{stored("/docs/"), stored("/docs/a"),
			skipped("/blog/b", crawl.ReasonScope, "outside /docs/, the start URL's directory"), skipped("/", crawl.ReasonScope, "outside /docs/, the start URL's directory")},
		Stored:   map[string]Stored{"/docs/": titled("Docs"), "/docs/a": titled("Docs A")},
		Requests: map[string]int{"/robots.txt": 1, "/docs/": 1, "/docs/a": 1},
	}, {
		// Include and exclude globs narrow the whole site: what they do
		// not include, or exclude, is skipped for its scope.
		Name:  "scope-globs",
		Start: "/docs/",
		Set: func(o *crawlopt.Options) {
			o.WholeSite, o.Include, o.Exclude = true, []string{"/docs/**", "/guide/*"}, []string{"/docs/old/**"}
		},
		Site: Site{
			"/docs/":      html("Docs", "", "/docs/a", "/docs/old/b", "/guide/g", "/blog/c"),
			"/docs/a":     html("Docs A", ""),
			"/docs/old/b": html("Old B", ""),
			"/guide/g":    html("Guide", ""),
			"/blog/c":     html("Blog C", ""),
		},
		Events: []Event{stored("/docs/"), stored("/docs/a"), stored("/guide/g"),
			skipped("/docs/old/b", crawl.ReasonScope, "/docs/old/**"), skipped("/blog/c", crawl.ReasonScope, "")},
		Stored:   map[string]Stored{"/docs/": titled("Docs"), "/docs/a": titled("Docs A"), "/guide/g": titled("Guide")},
		Requests: map[string]int{"/robots.txt": 1, "/docs/": 1, "/docs/a": 1, "/guide/g": 1},
	}, {
		// A link deeper than max_depth is skipped for the limit.
		Name: "max-depth",
		Set:  func(o *crawlopt.Options) { o.MaxDepth = 1 },
		Site: Site{
			"/":  html("Home", "", "/a"),
			"/a": html("A", "", "/b"),
			"/b": html("B", ""),
		},
		Events:   []Event{stored("/"), stored("/a"), skipped("/b", crawl.ReasonLimit, "deeper than max_depth 1")},
		Stored:   map[string]Stored{"/": titled("Home"), "/a": titled("A")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/a": 1},
	}, {
		// max_pages requests, and no more: the pages past them are
		// skipped for the limit, in the order they were found.
		Name: "max-pages",
		Set:  func(o *crawlopt.Options) { o.MaxPages = 2 },
		Site: Site{
			"/":  html("Home", "", "/a", "/b", "/c"),
			"/a": html("A", ""),
			"/b": html("B", ""),
			"/c": html("C", ""),
		},
		Events: []Event{stored("/"), stored("/a"),
			skipped("/b", crawl.ReasonLimit, "max_pages 2 reached"), skipped("/c", crawl.ReasonLimit, "max_pages 2 reached")},
		Stored:   map[string]Stored{"/": titled("Home"), "/a": titled("A")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/a": 1},
	}, {
		// A document counts against max_pages as a page does.
		Name: "max-pages-documents",
		Set:  func(o *crawlopt.Options) { o.MaxPages = 2 },
		Site: Site{
			"/":      html("Home", "", "/a.pdf", "/b.pdf"),
			"/a.pdf": {Type: "application/pdf", Body: string(pdftest.Generate("A", 1))},
			"/b.pdf": {Type: "application/pdf", Body: string(pdftest.Generate("B", 1))},
		},
		Events:   []Event{stored("/"), stored("/a.pdf"), skipped("/b.pdf", crawl.ReasonLimit, "max_pages 2 reached")},
		Stored:   map[string]Stored{"/": titled("Home"), "/a.pdf": titled("A")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/a.pdf": 1},
	}, {
		// Every request counts against max_pages, a redirect's hop on
		// its own origin too (docs/safety.md): with max_pages 2, the
		// home page and /hop are the two, and /hop's hop to /target is
		// not made.
		Name: "max-pages-redirect-hop",
		Set:  func(o *crawlopt.Options) { o.MaxPages = 2 },
		Site: Site{
			"/":       html("Home", "", "/hop", "/next"),
			"/hop":    redirect("/target"),
			"/target": html("Target", ""),
			"/next":   html("Next", ""),
		},
		Events: []Event{stored("/"),
			skipped("/hop", crawl.ReasonLimit, "redirected to {site}/target: max_pages 2 reached"),
			skipped("/next", crawl.ReasonLimit, "max_pages 2 reached")},
		Stored:   map[string]Stored{"/": titled("Home")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/hop": 1},
	}, {
		// A page's links are crawled in the order the page gives them:
		// max_pages keeps the first, whatever their names.
		Name: "max-pages-link-order",
		Set:  func(o *crawlopt.Options) { o.MaxPages = 2 },
		Site: Site{
			"/":  html("Home", "", "/c", "/b", "/a"),
			"/a": html("A", ""),
			"/b": html("B", ""),
			"/c": html("C", ""),
		},
		Events: []Event{stored("/"), stored("/c"),
			skipped("/b", crawl.ReasonLimit, "max_pages 2 reached"), skipped("/a", crawl.ReasonLimit, "max_pages 2 reached")},
		Stored:   map[string]Stored{"/": titled("Home"), "/c": titled("C")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/c": 1},
	}, {
		// A redirect on the origin is followed: the page is stored at,
		// and told of by, the URL it came from at last, which is the
		// crawl's then: its link to itself is not followed.
		Name: "redirect-same-origin",
		Site: Site{
			"/":    html("Home", "", "/old"),
			"/old": {Status: http.StatusMovedPermanently, Location: "/new"},
			"/new": html("New", "", "/new"),
		},
		Events:   []Event{stored("/"), stored("/new")},
		Stored:   map[string]Stored{"/": titled("Home"), "/new": titled("New")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/old": 1, "/new": 1},
	}, {
		// A redirect on the origin to a page that answers 503, a cause
		// that may pass, is tried again, the redirect and its target: the
		// target is not the crawl's until it answered.
		Name: "redirect-target-busy",
		Site: Site{
			"/":    html("Home", "", "/old"),
			"/old": {Status: http.StatusMovedPermanently, Location: "/new"},
			"/new": func() Page { p := html("New", ""); p.Fails = 1; return p }(),
		},
		Events:   []Event{stored("/"), stored("/new")},
		Stored:   map[string]Stored{"/": titled("Home"), "/new": titled("New")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/old": 2, "/new": 2},
	}, {
		// A redirect to a page the crawl has seen already (queued, not
		// yet asked for): the redirect is skipped as a duplicate, and
		// the page stored once, when its own turn comes.
		Name: "redirect-to-a-page-seen",
		Site: Site{
			"/":      html("Home", "", "/moved", "/page"),
			"/moved": {Status: http.StatusMovedPermanently, Location: "/page"},
			"/page":  html("Page", ""),
		},
		Events:   []Event{stored("/"), stored("/page"), skipped("/moved", crawl.ReasonDup, "redirected to {site}/page, already crawled")},
		Stored:   map[string]Stored{"/": titled("Home"), "/page": titled("Page")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/moved": 1, "/page": 2},
	}, {
		// A redirect to another origin is not followed on this origin's
		// turn: it is skipped, saying so, and its target queued, which
		// is crawled on its own origin's turn, its robots.txt asked.
		Name:       "redirect-other-origin",
		AllowOther: true,
		Site: Site{
			"/":     html("Home", "", "/away"),
			"/away": redirect("{other}/page"),
		},
		Other: Site{"/page": html("Elsewhere", "")},
		Events: []Event{stored("/"), stored("{other}/page"),
			skipped("/away", crawl.ReasonRedirect, "redirected to {other}/page: another origin; queued")},
		Stored:   map[string]Stored{"/": titled("Home"), "{other}/page": titled("Elsewhere")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/away": 1, "{other}/robots.txt": 1, "{other}/page": 1},
	}, {
		// A redirect out of the crawl's scope is not followed.
		Name:  "redirect-out-of-scope",
		Start: "/docs/",
		Site: Site{
			"/docs/":      html("Docs", "", "/docs/moved"),
			"/docs/moved": redirect("/blog/x"),
			"/blog/x":     html("Blog X", ""),
		},
		Events:   []Event{stored("/docs/"), skipped("/docs/moved", crawl.ReasonScope, "redirected to {site}/blog/x")},
		Stored:   map[string]Stored{"/docs/": titled("Docs")},
		Requests: map[string]int{"/robots.txt": 1, "/docs/": 1, "/docs/moved": 1},
	}, {
		// A redirect to a page robots.txt disallows is not followed.
		Name: "redirect-disallowed",
		Site: Site{
			"/robots.txt": {Body: "User-agent: *\nDisallow: /private/\n", Type: "text/plain"},
			"/":           html("Home", "", "/go"),
			"/go":         redirect("/private/p"),
			"/private/p":  html("Private", ""),
		},
		Events:   []Event{stored("/"), skipped("/go", crawl.ReasonRobots, "redirected to {site}/private/p")},
		Stored:   map[string]Stored{"/": titled("Home")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/go": 1},
	}, {
		// A page whose canonical URL the crawl stored is that page
		// again: skipped as a duplicate.
		Name: "canonical-duplicate",
		Site: Site{
			"/":  html("Home", "", "/c"),
			"/c": html("C", "", "/z"),
			"/z": html("Z", `<link rel="canonical" href="{site}/c">`),
		},
		Events:   []Event{stored("/"), stored("/c"), skipped("/z", crawl.ReasonDup, "its canonical URL {site}/c is stored already")},
		Stored:   map[string]Stored{"/": titled("Home"), "/c": titled("C")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/c": 1, "/z": 1},
	}, {
		// A page whose canonical URL the crawl has not stored is no
		// duplicate: it is stored, at its own URL, and it stands for its
		// canonical URL, which is not asked for then (nor told of).
		Name: "canonical-claimed",
		Site: Site{
			"/":  html("Home", "", "/z"),
			"/z": html("Z", `<link rel="canonical" href="{site}/c">`, "/c"),
			"/c": html("C", ""),
		},
		Events:   []Event{stored("/"), stored("/z")},
		Stored:   map[string]Stored{"/": titled("Home"), "/z": titled("Z")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/z": 1},
	}, {
		// / and /index.html of the same content are one page: the
		// first stored, the second a duplicate of it.
		Name: "content-duplicate",
		Site: Site{
			"/":           long,
			"/index.html": long,
		},
		Events:   []Event{stored("/"), skipped("/index.html", crawl.ReasonDup, "the same content as {site}/")},
		Stored:   map[string]Stored{"/": {Title: "Tides", Has: "tide tables"}},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/index.html": 1},
	}, {
		// A site crawled again: a page stored with a validator is asked
		// for with it, and answers not modified; a page without one is
		// fetched whole, and found as stored. Each is unchanged, and the
		// links of the page not modified are followed as they were.
		Name:  "not-modified",
		Again: true,
		Site: Site{
			"/":  html("Home", "", "/a", "/b").with("ETag", `"home"`),
			"/a": html("A", "").with("ETag", `"a"`),
			"/b": html("B", ""),
		},
		Events: []Event{{Kind: crawl.Unchanged, URL: "/"}, {Kind: crawl.Unchanged, URL: "/a"}, {Kind: crawl.Unchanged, URL: "/b"}},
		Stored: map[string]Stored{"/": titled("Home"), "/a": titled("A"), "/b": titled("B")},
		// robots.txt is kept for its lifetime.
		Requests:    map[string]int{"/robots.txt": 1, "/": 2, "/a": 2, "/b": 2},
		NotModified: map[string]int{"/": 1, "/a": 1},
	}, {
		// A PDF is read as a page is, and stored; so are an EPUB book and
		// a Word document served only as bytes; one that is no PDF
		// failed, saying why; what is neither a page nor a document is
		// skipped, saying its type.
		Name: "not-html",
		Site: Site{
			"/":           html("Home", "", "/file.pdf", "/broken.pdf", "/data.json", "/book.epub", "/notes"),
			"/file.pdf":   {Type: "application/pdf", Body: string(pdftest.Generate("Harbour Book", 2))},
			"/book.epub":  {Type: "application/epub+zip", Body: testFile("document/epub/testdata/tides.epub")},
			"/notes":      {Type: "application/octet-stream", Body: testFile("document/docx/testdata/features.docx")},
			"/broken.pdf": {Type: "application/pdf", Body: "%PDF-1.4"},
			"/data.json":  {Type: "application/json", Body: `{"a": 1}`},
		},
		Events: []Event{stored("/"), stored("/file.pdf"),
			{Kind: crawl.Failed, URL: "/broken.pdf", Reason: "other", Detail: "pdf: not a PDF: the file is damaged or not a PDF"},
			skipped("/data.json", crawl.ReasonType, "Content-Type application/json"),
			stored("/book.epub"), stored("/notes"),
			// The web links of the book and the document, followed as a
			// page's are: to other hosts, out of scope.
			skipped("http://tides.example.net/today", crawl.ReasonScope, ""), skipped("https://example.org/walls", crawl.ReasonScope, ""),
			skipped("https://survey.example/rivers?id=4", crawl.ReasonScope, ""), skipped("https://survey.example/team", crawl.ReasonScope, "")},
		Stored: map[string]Stored{"/": titled("Home"), "/file.pdf": {Title: "Harbour Book", Has: "# Chapter 2 of the harbour",
			Author: "The Harbour Office", Published: time.Date(2024, 1, 2, 2, 4, 5, 0, time.UTC)},
			"/book.epub": {Title: "Tide Tables", Has: "# Harbour walls"},
			"/notes":     {Title: "Field Notes on Rivers", Has: "## Tributaries"}},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/file.pdf": 1, "/broken.pdf": 1, "/data.json": 1, "/book.epub": 1, "/notes": 1},
	}, {
		// A document crawled again is asked for with its validator, as a
		// page is, and found unchanged when the site says not modified.
		Name:  "document-not-modified",
		Again: true,
		Site: Site{
			"/":         html("Home", "", "/book.pdf").with("ETag", `"home"`),
			"/book.pdf": Page{Type: "application/pdf", Body: string(pdftest.Generate("Harbour Book", 1)), Header: map[string]string{"ETag": `"book"`}},
		},
		Events:      []Event{{Kind: crawl.Unchanged, URL: "/"}, {Kind: crawl.Unchanged, URL: "/book.pdf"}},
		Stored:      map[string]Stored{"/": titled("Home"), "/book.pdf": titled("Harbour Book")},
		Requests:    map[string]int{"/robots.txt": 1, "/": 2, "/book.pdf": 2},
		NotModified: map[string]int{"/": 1, "/book.pdf": 1},
	}, {
		// A page that answers 404 failed, as not found, asked once.
		Name: "status-404",
		Site: Site{
			"/": html("Home", "", "/gone"),
		},
		Events:   []Event{stored("/"), {Kind: crawl.Failed, URL: "/gone", Reason: "not found", Detail: "HTTP 404"}},
		Stored:   map[string]Stored{"/": titled("Home")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/gone": 1},
	}, {
		// A page that answers 500 failed, for a cause that may pass,
		// asked once: the crawl does not ask again at once.
		Name: "status-500",
		Site: Site{
			"/":       html("Home", "", "/broken"),
			"/broken": {Status: http.StatusInternalServerError, Body: "broken"},
		},
		Events: []Event{stored("/"), {Kind: crawl.Failed, URL: "/broken", Reason: "transient", Detail: "HTTP 500"}},
		Stored: map[string]Stored{"/": titled("Home")},
		// A cause that may pass is tried again on later turns of its host:
		// crawl.MaxAttempts requests in all.
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/broken": crawl.MaxAttempts},
	}, {
		// A page that failed for a cause that may pass is asked again
		// behind the URLs its host has queued: max_pages goes to those
		// first. (More than a team's worker takes from its host's queue
		// at once wait behind it. The delay lets the home page's links
		// be queued, on one machine, before the busy page's answer.)
		Name: "retry-behind-the-queue",
		Set: func(o *crawlopt.Options) {
			o.MaxPages, o.Delay = 2+len(manyLinks), 10*time.Millisecond
		},
		Site:     manySite,
		Events:   manyEvents,
		Stored:   manyStored,
		Requests: manyRequests,
	}, {
		// A page that names a Markdown alternate is read from it, one
		// request more; the alternate is no page of its own.
		Name: "markdown-alternate",
		Site: Site{
			"/":       html("Home", "", "/doc"),
			"/doc":    html("Doc", `<link rel="alternate" type="text/markdown" href="/doc.md">`),
			"/doc.md": {Type: "text/markdown", Body: "# Doc in Markdown\n\nRead from the page's Markdown alternate, not from its HTML.\n"},
		},
		Events: []Event{stored("/"), stored("/doc")},
		Stored: map[string]Stored{"/": titled("Home"),
			"/doc": {Title: "Doc in Markdown", Has: "Read from the page's Markdown alternate"}},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/doc": 1, "/doc.md": 1},
	}, {
		// A Markdown alternate read in its page's place is the crawl's:
		// a link to it, from the page itself, is not followed, and it is
		// asked for once.
		Name: "markdown-alternate-linked",
		Site: Site{
			"/":       html("Home", "", "/doc"),
			"/doc":    html("Doc", `<link rel="alternate" type="text/markdown" href="/doc.md">`, "/doc.md"),
			"/doc.md": {Type: "text/markdown", Body: "# Doc in Markdown\n\nRead from the page's Markdown alternate, not from its HTML.\n"},
		},
		Events: []Event{stored("/"), stored("/doc")},
		Stored: map[string]Stored{"/": titled("Home"),
			"/doc": {Title: "Doc in Markdown", Has: "Read from the page's Markdown alternate"}},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/doc": 1, "/doc.md": 1},
	}, {
		// The sitemaps robots.txt names, and /sitemap.xml, seed the
		// crawl with the pages they list in its scope, one link from the
		// start; those out of it are left quietly.
		Name:     "sitemaps",
		Sitemaps: true,
		Site: Site{
			"/robots.txt": {Body: "User-agent: *\nAllow: /\nSitemap: {site}/maps/pages.xml\n", Type: "text/plain"},
			"/maps/pages.xml": {Type: "application/xml", Body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
				`<url><loc>{site}/s1</loc></url><url><loc>{site}/s2</loc></url><url><loc>http://elsewhere.test/x</loc></url></urlset>`},
			"/":   html("Home", ""),
			"/s1": html("S1", ""),
			"/s2": html("S2", ""),
		},
		Events:   []Event{stored("/"), stored("/s1"), stored("/s2")},
		Stored:   map[string]Stored{"/": titled("Home"), "/s1": titled("S1"), "/s2": titled("S2")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/maps/pages.xml": 1, "/sitemap.xml": 1, "/s1": 1, "/s2": 1},
	}, {
		// The site's /llms.txt, read once the start page was kept, seeds
		// the crawl with the pages it lists.
		Name:    "llms-txt",
		LLMsTxt: true,
		Site: Site{
			"/llms.txt": {Type: "text/markdown", Body: "# The site\n\n- [One]({site}/l1): the first\n- [Two](/l2): the second\n"},
			"/":         html("Home", ""),
			"/l1":       html("L1", ""),
			"/l2":       html("L2", ""),
		},
		Events:   []Event{stored("/"), stored("/l1"), stored("/l2")},
		Stored:   map[string]Stored{"/": titled("Home"), "/l1": titled("L1"), "/l2": titled("L2")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/llms.txt": 1, "/l1": 1, "/l2": 1},
	}, {
		// The pages llms.txt lists are Markdown: one served as plain
		// text is read as Markdown, not skipped for its type.
		Name:    "llms-txt-plain-text",
		LLMsTxt: true,
		Site: Site{
			"/llms.txt": {Type: "text/markdown", Body: "# The site\n\n- [Notes](/notes): the notes\n"},
			"/":         html("Home", ""),
			"/notes":    {Type: "text/plain; charset=utf-8", Body: "# Notes\n\nThe notes, written in Markdown and served as plain text.\n"},
		},
		Events:   []Event{stored("/"), stored("/notes")},
		Stored:   map[string]Stored{"/": titled("Home"), "/notes": {Title: "Notes", Has: "served as plain text"}},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/llms.txt": 1, "/notes": 1},
	}, {
		// A start URL that redirects to another origin starts the crawl
		// there: llms.txt is read from the origin the start page was
		// kept on, not from the one first asked.
		Name:       "llms-txt-where-the-start-moved",
		LLMsTxt:    true,
		AllowOther: true,
		Site:       Site{"/": redirect("{other}/")},
		Other: Site{
			"/":         html("Elsewhere", ""),
			"/llms.txt": {Type: "text/markdown", Body: "# The site\n\n- [One]({other}/l1): the first\n"},
			"/l1":       html("L1", ""),
		},
		Events: []Event{skipped("/", crawl.ReasonRedirect, "redirected to {other}/: another origin; queued"),
			stored("{other}/"), stored("{other}/l1")},
		Stored: map[string]Stored{"{other}/": titled("Elsewhere"), "{other}/l1": titled("L1")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1,
			"{other}/robots.txt": 1, "{other}/": 1, "{other}/llms.txt": 1, "{other}/l1": 1},
	}, {
		// A site that changes between crawls: a page changed, one gone
		// (404) and back, one no longer linked (a complete crawl no
		// longer reaches it), one new. Each crawl tells what became of
		// each page, and the pages' histories say the same.
		Name: "history",
		Site: Site{"/": html("Home", "", "/a", "/b", "/c"), "/a": html("A", ""), "/b": html("B", ""), "/c": html("C", "")},
		Later: []Site{
			{"/": html("Home", "", "/a", "/b", "/d"), "/a": html("A", "", "/a#more"), "/d": html("D", "")},
			{"/": html("Home", "", "/a", "/b", "/d"), "/a": html("A", "", "/a#more"), "/b": html("B", ""), "/d": html("D", "")},
		},
		Changes: []map[string]string{
			{"/": "new", "/a": "new", "/b": "new", "/c": "new"},
			{"/": "changed", "/a": "changed", "/b": "removed 404", "/c": "removed unreached", "/d": "new"},
			{"/": "unchanged", "/a": "unchanged", "/b": "new", "/d": "unchanged"},
		},
		Histories: map[string][]string{
			"/": {"v", "v"}, "/a": {"v", "v"}, "/b": {"v", "removed 404", "v"}, "/c": {"v", "removed unreached"}, "/d": {"v"},
		},
		Events:   []Event{{Kind: crawl.Unchanged, URL: "/"}, {Kind: crawl.Unchanged, URL: "/a"}, stored("/b"), {Kind: crawl.Unchanged, URL: "/d"}},
		Stored:   map[string]Stored{"/": titled("Home"), "/a": titled("A"), "/b": titled("B"), "/c": titled("C"), "/d": titled("D")},
		Requests: map[string]int{"/robots.txt": 1, "/": 3, "/a": 3, "/b": 3, "/c": 1, "/d": 2},
	}, {
		// A page that moved without a redirect: its old URL, still
		// linked, answers 404 and is found gone first; its new URL holds
		// the same words and is new. A page found gone is no page kept
		// in this crawl: the new URL is no duplicate of it, and is stored,
		// or the page's words would be in no page that search finds.
		Name: "history-moved-without-redirect",
		Site: Site{"/": html("Home", "", "/old"), "/old": mover},
		Later: []Site{
			{"/": html("Home", "", "/old", "/new"), "/new": mover},
		},
		Changes: []map[string]string{
			{"/": "new", "/old": "new"},
			{"/": "changed", "/old": "removed 404", "/new": "new"},
		},
		Histories: map[string][]string{"/": {"v", "v"}, "/old": {"v", "removed 404"}, "/new": {"v"}},
		Events:    []Event{stored("/"), stored("/new")},
		Stored:    map[string]Stored{"/": titled("Home"), "/old": titled("Tides"), "/new": titled("Tides")},
		Requests:  map[string]int{"/robots.txt": 1, "/": 2, "/old": 2, "/new": 1},
	}, {
		// A page whose canonical URL is a page found gone in this crawl
		// (a 404, met first) is no duplicate of it: a page found gone is
		// no page stored, and the page is stored under its own URL.
		Name: "history-canonical-gone",
		Site: Site{"/": html("Home", "", "/c"), "/c": html("C", "")},
		Later: []Site{
			{"/": html("Home", "", "/c", "/p"), "/p": html("P", `<link rel="canonical" href="{site}/c">`)},
		},
		Changes: []map[string]string{
			{"/": "new", "/c": "new"},
			{"/": "changed", "/c": "removed 404", "/p": "new"},
		},
		Histories: map[string][]string{"/": {"v", "v"}, "/c": {"v", "removed 404"}, "/p": {"v"}},
		Events:    []Event{stored("/"), stored("/p")},
		Stored:    map[string]Stored{"/": titled("Home"), "/c": titled("C"), "/p": titled("P")},
		Requests:  map[string]int{"/robots.txt": 1, "/": 2, "/c": 2, "/p": 1},
	}, {
		// A sitemap that cannot be read (an HTTP 500) leaves the crawl
		// incomplete: the pages only it lists, there still, are not
		// reached, and a crawl that could not read it cannot say they
		// are gone.
		Name:     "history-sitemap-unread",
		Sitemaps: true,
		Site: Site{
			"/sitemap.xml": {Type: "application/xml", Body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
				`<url><loc>{site}/s1</loc></url></urlset>`},
			"/":   html("Home", ""),
			"/s1": html("S1", ""),
		},
		Later: []Site{{
			"/sitemap.xml": {Status: http.StatusInternalServerError, Body: "down"},
			"/":            html("Home", ""),
			"/s1":          html("S1", ""),
		}},
		Changes: []map[string]string{
			{"/": "new", "/s1": "new"},
			{"/": "unchanged"},
		},
		Histories: map[string][]string{"/": {"v"}, "/s1": {"v"}},
		Events:    []Event{{Kind: crawl.Unchanged, URL: "/"}},
		Stored:    map[string]Stored{"/": titled("Home"), "/s1": titled("S1")},
		Requests:  map[string]int{"/robots.txt": 1, "/": 2, "/sitemap.xml": 2, "/s1": 1},
	}, {
		// A start page that is not there still lets the sitemaps seed
		// the crawl; llms.txt, read for a start page kept, is not asked.
		Name:     "sitemaps-after-a-start-not-found",
		Sitemaps: true,
		LLMsTxt:  true,
		Site: Site{
			"/sitemap.xml": {Type: "application/xml", Body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
				`<url><loc>{site}/s1</loc></url></urlset>`},
			"/s1": html("S1", ""),
		},
		Events:   []Event{{Kind: crawl.Failed, URL: "/", Reason: "not found", Detail: "HTTP 404"}, stored("/s1")},
		Stored:   map[string]Stored{"/s1": titled("S1")},
		Requests: map[string]int{"/robots.txt": 1, "/": 1, "/sitemap.xml": 1, "/s1": 1},
	}}
}

// testFile is a file of the repository's documents' tests, by its path
// under internal/, as a body to serve: the documents a crawl meets are
// those the readers are tested on.
func testFile(path string) string {
	_, here, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", filepath.FromSlash(path)))
	if err != nil {
		panic("crawltest: " + err.Error())
	}
	return string(raw)
}
