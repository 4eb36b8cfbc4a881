package crawlopt

import "time"

// Options say what to crawl and how. Start from Defaults: the zero value
// is no crawl (it fetches no page, and Validate refuses it).
//
// The yaml names are a website source's keys in the config file, and the
// doc, minimum and enum tags what the file's schema says of them; the
// fields named "-" there are not set in a source's entry (its url is
// Start, its name Source; max_crawl_delay is the file's for every crawl;
// respect_robots: false is NoRobots). The json names are those of a
// team's crawl row, as heed has always written them (durations in
// nanoseconds), so that a row written before reads the same.
type Options struct {
	// Start is the start URL.
	Start string `yaml:"-" json:"start"`
	// Source is the stash source the pages go to; "" names it after the
	// start URL's host.
	Source string   `yaml:"-" json:"source"`
	Tags   []string `yaml:"tags" json:"tags,omitempty" doc:"Tags given to the source's snapshots."`

	// MaxPages is how many requests the crawl makes at most, pages and
	// every redirect hop.
	MaxPages int `yaml:"max_pages" json:"max_pages" minimum:"1" doc:"Fetch at most this many pages (default 500)."`
	// MaxDepth is how many links deep the crawl follows from the start
	// URL: 0 crawls the start URL only.
	MaxDepth int `yaml:"max_depth" json:"max_depth" minimum:"0" doc:"Follow links at most this deep from the start URL (default 5); 0 crawls the start URL only."`
	// Deadline bounds the whole crawl.
	Deadline time.Duration `yaml:"deadline" json:"deadline" doc:"Stop a crawl after this long, such as 10m (the default)."`

	// Include and Exclude are path globs: * within a segment, ** across.
	Include []string `yaml:"include" json:"include,omitempty" doc:"Crawl only paths matching these globs (* within a segment, ** across)."`
	Exclude []string `yaml:"exclude" json:"exclude,omitempty" doc:"Skip paths matching these globs."`
	// AllowHosts are hosts crawled beside the start URL's.
	AllowHosts []string `yaml:"allow_hosts" json:"allow_hosts,omitempty" doc:"Hosts to crawl beside the start URL's."`
	// WholeSite widens the crawl from the start URL's directory (its
	// path up to its last "/") to its whole origin.
	WholeSite bool `yaml:"whole_site" json:"whole_site,omitempty" doc:"Crawl the start URL's whole origin, not only its directory (the path up to its last /)."`

	// Delay is the least time between two requests to one host; 0 is
	// none. A robots.txt Crawl-delay may raise it, never lower it.
	Delay time.Duration `yaml:"delay" json:"delay" doc:"Least time between two requests to one host, such as 500ms (the default); 0s for none. robots.txt may ask for more."`
	// MaxCrawlDelay caps a robots.txt Crawl-delay.
	MaxCrawlDelay time.Duration `yaml:"-" json:"max_crawl_delay"`
	// NoRobots turns robots.txt off: no robots.txt request is made at
	// all. The opt-out is the true value, so that options not made by
	// Defaults heed robots.txt all the same.
	NoRobots bool `yaml:"-" json:"no_robots,omitempty"`
	// IgnoreSignals stores pages whatever their noindex directives and the
	// site's content signals say, and follows nofollow pages' links.
	IgnoreSignals bool `yaml:"ignore_signals" json:"ignore_signals,omitempty" doc:"Store pages whatever their noindex, nofollow and content signals say."`
	// Hosts is how many hosts are crawled at once. A team's workers crawl
	// as many as each is told (heed worker --hosts): a crawl's row does
	// not keep it.
	Hosts int `yaml:"-" json:"-"`
	// NoSitemaps leaves robots.txt's Sitemap lines and /sitemap.xml unread.
	// (With NoRobots, /sitemap.xml is still read; robots.txt is not.)
	NoSitemaps bool `yaml:"-" json:"no_sitemaps,omitempty"`
	// NoLLMsTxt leaves the site's /llms.txt unread. Read, it seeds the
	// crawl with the pages it lists (in scope), one link from the start.
	NoLLMsTxt bool `yaml:"-" json:"no_llms_txt,omitempty"`
	// NoAlternates reads each page from its HTML, though it names a
	// Markdown alternate.
	NoAlternates bool `yaml:"-" json:"no_alternates,omitempty"`
	// Render says when a page is rendered in a browser: auto, when its
	// static HTML holds next to nothing; always; never.
	Render string `yaml:"render" json:"render,omitempty" enum:"auto,always,never" doc:"When a website's pages are rendered in the browser: auto (the default: a page whose static HTML holds next to nothing but scripts), always, never."`
}

// Defaults are heed's options for a crawl: every door starts from them,
// and they are the only place a default is written.
func Defaults() Options {
	return Options{
		MaxPages:      500,
		MaxDepth:      5,
		Deadline:      10 * time.Minute,
		Delay:         500 * time.Millisecond,
		MaxCrawlDelay: 10 * time.Second,
		Hosts:         4,
		Render:        "auto",
	}
}

// Error is the cause of options no crawl can run with. Name is the
// setting as the config file spells it (max_pages); each door says it in
// its own words (--max-pages).
type Error struct {
	Name string
	Want string // what it must be, such as "0 or more"
}

func (e *Error) Error() string { return e.Name + " must be " + e.Want }

// Validate reports the first setting no crawl can run with, as an *Error.
// It does not look at Start, Source or the globs: the crawl checks them
// as it reads them.
func (o Options) Validate() error {
	bad := func(name, want string) error { return &Error{Name: name, Want: want} }
	switch {
	case o.MaxPages < 1:
		return bad("max_pages", "a whole number above 0")
	case o.MaxDepth < 0:
		return bad("max_depth", "0 (the start URL only) or more")
	case o.Deadline <= 0:
		return bad("deadline", "longer than 0")
	case o.Delay < 0:
		return bad("delay", "0 or more")
	case o.MaxCrawlDelay < 0:
		return bad("max_crawl_delay", "0 or more")
	case o.Hosts < 1:
		return bad("hosts", "a whole number above 0")
	}
	switch o.Render {
	case "auto", "always", "never":
		return nil
	}
	return bad("render", "auto, always or never")
}
