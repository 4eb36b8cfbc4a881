package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
)

// Defaults of Config.
const (
	DefaultPageTimeout = 20 * time.Second
	DefaultMaxRequests = 200
	DefaultMaxBytes    = 20 << 20
)

// Config says which browser renders pages, and the budgets of a page.
// Zero values take the defaults.
type Config struct {
	// Path is the browser's executable; "" looks for chromium,
	// chromium-browser, google-chrome and google-chrome-stable on PATH.
	Path string
	// Tabs is how many pages render at once; 0 means one per CPU.
	Tabs int
	// PageTimeout bounds a page's rendering: its tab is closed then.
	PageTimeout time.Duration
	// MaxRequests is how many requests a page's rendering makes at most
	// (the document's included); more fail in the page.
	MaxRequests int
	// MaxBytes is how many bytes of responses a page's rendering takes at
	// most; more fail in the page.
	MaxBytes int64
	// Resources fetches stylesheets, images, media and fonts too; by
	// default they are not fetched (a page's text does not need them).
	Resources bool
}

func (c *Config) fill() {
	if c.Tabs <= 0 {
		c.Tabs = runtime.GOMAXPROCS(0)
	}
	if c.PageTimeout <= 0 {
		c.PageTimeout = DefaultPageTimeout
	}
	if c.MaxRequests <= 0 {
		c.MaxRequests = DefaultMaxRequests
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
}

// ErrNoBrowser is wrapped by the error of a rendering without a browser:
// none was found on PATH, or the one configured cannot be run.
var ErrNoBrowser = errors.New("no browser to render pages with: install Chromium (Debian: apt-get install chromium) or set browser.path in the config file")

// Find is the browser's executable: path if given, else the first of
// chromium, chromium-browser, google-chrome and google-chrome-stable on
// PATH.
func Find(path string) (string, error) {
	if path != "" {
		if p, err := exec.LookPath(path); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%w (%s cannot be run)", ErrNoBrowser, path)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Get makes one of the browser's requests, as heed makes every request:
// through the guarded, polite client, and for a crawl only where
// robots.txt allows it. Its response is the final one, redirects
// followed.
type Get func(ctx context.Context, req fetch.Request) (*fetch.Response, error)

// Page is a rendered page.
type Page struct {
	URL  string // the document's URL
	HTML []byte // the document after its scripts ran
	// Requests is how many of the browser's requests heed made; Refused
	// how many it did not make (a scheme other than http(s), a resource
	// not fetched, a request past a budget, one the guard or robots.txt
	// refused).
	Requests, Refused int
	Bytes             int64
}

// Browser renders pages in one headless Chromium, started when first
// needed and reused, a tab for each page. The browser makes no request
// of its own: every request of a page is paused before it is sent, and
// answered by heed (Get) or failed; what cannot be paused is blocked (a
// proxy that goes nowhere, no name resolution, WebSocket, WebRTC and
// service workers taken out of the page's scripts). A Browser is safe for
// concurrent use.
type Browser struct {
	cfg  Config
	tabs chan struct{}

	mu       sync.Mutex
	ctx      context.Context // the browser's
	cancel   context.CancelFunc
	started  bool
	startErr error
}

// New returns a Browser; the browser starts with the first page.
func New(cfg Config) *Browser {
	cfg.fill()
	return &Browser{cfg: cfg, tabs: make(chan struct{}, cfg.Tabs)}
}

// Available reports whether a browser can be started (ErrNoBrowser if
// not), without starting it.
func (b *Browser) Available() error {
	_, err := Find(b.cfg.Path)
	return err
}

// flags make the browser unable to reach the network but through heed:
// every connection it would open goes to a proxy that is not there (for
// loopback too), no host name resolves, and nothing speaks UDP.
func flags() []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("proxy-server", "socks5://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("force-webrtc-ip-handling-policy", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,NetworkPrediction,IsolateOrigins,site-per-process,DnsOverHttps,AutofillServerCommunication,OptimizationHints,MediaRouter,InterestFeedContentSuggestions"),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-remote-fonts", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("js-flags", "--max-old-space-size=512"),
		chromedp.Flag("blink-settings", "imagesEnabled=false"),
	}
}

// blockScript runs in every frame before the page's own scripts: what
// the browser would do on a connection of its own is taken away.
const blockScript = `(() => {
	const gone = ["WebSocket", "WebSocketStream", "WebTransport", "RTCPeerConnection", "webkitRTCPeerConnection",
		"RTCDataChannel", "SharedWorker"];
	for (const name of gone) {
		try { Object.defineProperty(window, name, {value: undefined, configurable: false, writable: false}); } catch (e) {}
	}
	try { Object.defineProperty(navigator, "serviceWorker", {value: undefined, configurable: false}); } catch (e) {}
	try { Object.defineProperty(navigator, "sendBeacon", {value: () => false, configurable: false}); } catch (e) {}
	try { window.open = () => null; } catch (e) {}
})();`

func (b *Browser) start() (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return b.ctx, b.startErr
	}
	b.started = true
	path, err := Find(b.cfg.Path)
	if err != nil {
		b.startErr = err
		return nil, err
	}
	dir, err := os.MkdirTemp("", "heed-browser-")
	if err != nil {
		b.startErr = err
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], flags()...)
	opts = append(opts, chromedp.ExecPath(path), chromedp.UserDataDir(dir))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		os.RemoveAll(dir)
		b.startErr = fmt.Errorf("%w: %s: %v", ErrNoBrowser, path, err)
		return nil, b.startErr
	}
	b.ctx = ctx
	b.cancel = func() {
		cancel()
		cancelAlloc()
		os.RemoveAll(dir)
	}
	return ctx, nil
}

// Close stops the browser.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
	b.started, b.startErr = true, errors.New("the browser is closed")
	return nil
}

// ErrBudget is wrapped by the error of a page whose rendering took all
// its time.
var ErrBudget = errors.New("the page's rendering ran out of time")

// Render renders the page whose document heed fetched (doc, a 2xx HTML
// response), in a tab of its own with cookies, storage and cache of its
// own, discarded after. The document is answered from doc; every other
// request of the page from get, within the page's budgets. The page is
// read once its requests have been quiet for a while after it loaded,
// or when its time is nearly spent.
func (b *Browser) Render(ctx context.Context, doc *fetch.Response, get Get) (*Page, error) {
	bctx, err := b.start()
	if err != nil {
		return nil, err
	}
	select {
	case b.tabs <- struct{}{}:
		defer func() { <-b.tabs }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tctx, closeTab := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	defer closeTab()
	if err := chromedp.Do(tctx); err != nil {
		return nil, fmt.Errorf("render: open a tab: %w", err)
	}
	t := chromedp.FromContext(tctx).Target
	deadline := time.Now().Add(b.cfg.PageTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	pctx, cancel := context.WithDeadline(tctx, deadline)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()

	r := &tab{b: b, t: t, ctx: pctx, doc: doc, get: get, page: &Page{URL: doc.URL}}
	chromedp.Listen(tctx, func(ev any) {
		if e, ok := ev.(*cdpfetch.EventRequestPaused); ok {
			r.wg.Add(1)
			go r.answer(e)
		}
	})
	defer r.wg.Wait()
	if _, err := cdp.Call(pctx, t, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if _, err := cdp.Call(pctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: blockScript}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	navErr := chromedp.Do(pctx, chromedp.Navigate(doc.URL))
	if navErr != nil && pctx.Err() == nil {
		return nil, fmt.Errorf("render: %w", navErr)
	}
	// Quiet: no request in flight or begun for a while.
	for pctx.Err() == nil {
		if r.inflight.Load() == 0 && time.Since(time.Unix(0, r.last.Load())) > quiet {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// What the page has is read with what time is left, or a moment
	// more if none is: a page that spent its time is read as it stands.
	rctx, rcancel := context.WithTimeout(tctx, time.Second)
	defer rcancel()
	if pctx.Err() == nil {
		rctx, rcancel = pctx, cancel
	}
	html, err := chromedp.Run(rctx, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &heed.Error{Kind: heed.TooLarge, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w (%v): %v", ErrBudget, b.cfg.PageTimeout, err)}
	}
	r.mu.Lock()
	p := *r.page
	r.mu.Unlock()
	p.HTML = []byte(html)
	return &p, nil
}

// wanted reports whether a page's request of a resource of this type is
// made: documents, scripts and their XHR and fetch calls, which build the
// page's text; stylesheets, images, media and fonts only with Resources;
// nothing else (favicons, pings, reports, prefetches, event streams).
func (b *Browser) wanted(t network.ResourceType) bool {
	switch t {
	case network.ResourceTypeDocument, network.ResourceTypeScript, network.ResourceTypeXHR, network.ResourceTypeFetch:
		return true
	case network.ResourceTypeStylesheet, network.ResourceTypeImage, network.ResourceTypeMedia, network.ResourceTypeFont:
		return b.cfg.Resources
	}
	return false
}

// quiet is how long a page's requests must have rested for it to be
// taken as rendered.
const quiet = 200 * time.Millisecond

// tab is one page's rendering.
type tab struct {
	b    *Browser
	t    *chromedp.Target
	ctx  context.Context
	doc  *fetch.Response
	get  Get
	wg   sync.WaitGroup
	docs atomic.Bool // the document was answered from doc

	inflight atomic.Int32
	last     atomic.Int64 // unix nanoseconds of the last request's start or end

	mu    sync.Mutex
	page  *Page
	count int
	bytes int64
}

// answer answers one request the page made: from heed, or not at all.
func (r *tab) answer(e *cdpfetch.EventRequestPaused) {
	defer r.wg.Done()
	r.inflight.Add(1)
	r.last.Store(time.Now().UnixNano())
	defer func() {
		r.last.Store(time.Now().UnixNano())
		r.inflight.Add(-1)
	}()
	ctx := context.WithoutCancel(r.ctx) // the answer reaches the tab even as it closes
	fail := func(reason network.ErrorReason) {
		r.mu.Lock()
		r.page.Refused++
		r.mu.Unlock()
		cdp.Call(ctx, r.t, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: reason})
	}
	u, err := url.Parse(e.Request.URL)
	switch {
	case err != nil || u.Scheme != "http" && u.Scheme != "https":
		fail(network.ErrorReasonBlockedByClient)
		return
	case e.Request.Method != http.MethodGet && e.Request.Method != http.MethodHead:
		// heed only ever reads: a page's POST is not sent.
		fail(network.ErrorReasonBlockedByClient)
		return
	case !r.b.wanted(e.ResourceType):
		fail(network.ErrorReasonBlockedByClient)
		return
	case r.ctx.Err() != nil:
		fail(network.ErrorReasonTimedOut)
		return
	}
	r.mu.Lock()
	over := r.count >= r.b.cfg.MaxRequests || r.bytes >= r.b.cfg.MaxBytes
	if !over {
		r.count++
		r.page.Requests++
	}
	r.mu.Unlock()
	if over {
		fail(network.ErrorReasonBlockedByClient)
		return
	}
	var resp *fetch.Response
	if e.ResourceType == network.ResourceTypeDocument && e.Request.URL == r.doc.URL && r.docs.CompareAndSwap(false, true) {
		resp = r.doc // fetched already, on its host's turn
	} else {
		r.mu.Lock()
		left := r.b.cfg.MaxBytes - r.bytes
		r.mu.Unlock()
		req := fetch.Request{URL: e.Request.URL, NoRetry: true, MaxBytes: left}
		if a, ok := e.Request.Headers["Accept"].(string); ok && a != "" {
			req.Accept = heed.Clip(a, 256)
		}
		resp, err = r.get(r.ctx, req)
		if err != nil {
			reason := network.ErrorReasonConnectionFailed
			if errors.Is(err, fetch.ErrRefused) {
				reason = network.ErrorReasonAccessDenied
			}
			fail(reason)
			return
		}
	}
	r.mu.Lock()
	r.bytes += int64(len(resp.Body))
	r.page.Bytes = r.bytes
	r.mu.Unlock()
	var headers []*cdpfetch.HeaderEntry
	for name, values := range resp.Header {
		switch http.CanonicalHeaderKey(name) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Set-Cookie", "Location", "Connection":
			continue // the body is whole and decoded; no cookie is kept
		}
		for _, v := range values {
			headers = append(headers, &cdpfetch.HeaderEntry{Name: name, Value: v})
		}
	}
	status := int64(resp.Status)
	if status < 200 || status > 599 || status >= 300 && status < 400 {
		status = http.StatusBadGateway // redirects were followed by heed
	}
	cdp.Call(ctx, r.t, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
		RequestID: e.RequestID, ResponseCode: status, ResponseHeaders: headers, Body: resp.Body,
	})
}
