package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
)

// Defaults of Config.
const (
	DefaultPageTimeout = 20 * time.Second
	DefaultMaxRequests = 200
	DefaultMaxBytes    = 20 << 20
	DefaultMaxMemory   = 1 << 30
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
	// MaxMemory is how much memory a page's renderer process may hold:
	// past it the process is killed, and the page fails (Linux only,
	// where it is weighed from /proc).
	MaxMemory int64
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
	if c.MaxMemory <= 0 {
		c.MaxMemory = DefaultMaxMemory
	}
}

// ErrNoBrowser is wrapped by the error of a rendering without a browser:
// none was found on PATH, or the one configured cannot be run.
var ErrNoBrowser = errors.New("no browser to render pages with: install Chromium (Debian: apt-get install chromium) or set browser.path in the config file")

// ErrNoSandbox is wrapped by the error of a rendering where Chromium's
// sandbox cannot run. Pages are rendered in it, and never without it.
var ErrNoSandbox = errors.New("the browser's sandbox cannot run here: Chromium's sandbox needs unprivileged user namespaces, which this system refuses (heed run as root starts the browser as the user nobody), or its setuid helper: allow them (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp profile that lets unshare and clone make user namespaces), or install the helper (Debian: apt-get install chromium-sandbox)")

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
	// Cut names the budget the page spent before it was quiet ("time",
	// "requests", "bytes"), when it did: it was read as it stood then.
	Cut string
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
	failedAt time.Time // when a start last failed: it is tried again a while after
	closed   bool

	killed        atomic.Int64 // renderers killed for their memory
	browserKilled atomic.Int64 // browsers killed for their processes' memory
}

// retryStart is how long after a failed start the browser is tried again.
const retryStart = 30 * time.Second

// readMoment is how long reading a rendered page's DOM may take, past
// its time: a second was cut short on a busy machine (two cores, the
// browser's processes and a crawl sharing them), and the page failed.
const readMoment = 3 * time.Second

// reset forgets a browser that died, for the next page to start anew.
func (b *Browser) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
	b.started, b.startErr = false, nil
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
		// Chromium's popup blocker refuses a page's windows, which no
		// user opens.
		chromedp.Flag("disable-popup-blocking", false),
		chromedp.Flag("js-flags", "--max-old-space-size=512"),
		chromedp.Flag("blink-settings", "imagesEnabled=false"),
	}
}

// blockScript runs in every frame and every dedicated worker before the
// page's own scripts: what the browser would do on a connection or in a
// window of its own is taken away. What lives on a prototype is taken
// off the prototype, where a script would else find it
// (Object.getOwnPropertyDescriptor); document.open with three arguments
// is window.open.
const blockScript = `(() => {
	const g = globalThis;
	const gone = ["WebSocket", "WebSocketStream", "WebTransport", "RTCPeerConnection", "webkitRTCPeerConnection",
		"RTCDataChannel", "SharedWorker"];
	for (const name of gone) {
		try { Object.defineProperty(g, name, {value: undefined, configurable: false, writable: false}); } catch (e) {}
	}
	for (const nav of [g.Navigator, g.WorkerNavigator]) {
		for (const name of ["serviceWorker", "sendBeacon"]) {
			try { delete nav.prototype[name]; } catch (e) {}
		}
	}
	if (!g.Document) {
		return; // a worker
	}
	try { Object.defineProperty(g, "open", {value: () => null, configurable: false, writable: false}); } catch (e) {}
	try {
		const open = Document.prototype.open;
		Object.defineProperty(Document.prototype, "open", {value: function (...args) { return args.length > 2 ? null : open.apply(this, args); }, configurable: false, writable: false});
	} catch (e) {}
})();`

// workersPause has the dedicated workers of a page (or of a worker)
// start paused: each runs only once blockScript ran in it (worker).
var workersPause = target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: &flat,
	Filter: target.Filter{{Type: "worker"}, {Exclude: true}}}

var flat = true

// maxWorkers is how many dedicated workers of a page run at most; more
// stay paused, and never run.
const maxWorkers = 32

// worker takes out of a dedicated worker, started paused, what the
// page's frames lose, has its own workers start paused too, and lets it
// run. A worker this fails for stays paused: it never runs. The worker
// is let go of with the page's tab.
func (r *tab) worker(tctx context.Context, id target.ID) {
	if r.workers.Add(1) > maxWorkers {
		return
	}
	wctx, _ := chromedp.NewContext(tctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	if err := chromedp.Do(wctx); err != nil {
		return
	}
	w := chromedp.FromContext(wctx).Target
	chromedp.Listen(wctx, func(ev any) {
		if e, ok := ev.(*target.EventAttachedToTarget); ok && e.TargetInfo.Type == "worker" {
			go r.worker(tctx, e.TargetInfo.TargetID)
		}
	})
	if _, err := cdp.Call(wctx, w, target.SetAutoAttach, workersPause); err != nil {
		return
	}
	if _, err := cdp.Call(wctx, w, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: blockScript}); err != nil {
		return
	}
	cdp.Call(wctx, w, cdpruntime.RunIfWaitingForDebugger, cdp.Empty{})
}

// closePopups closes, as soon as the browser tells of it, every window a
// page opened (a target with an opener) that the popup blocker and the
// pages' script let through: heed's tabs are the only pages.
func closePopups(ctx context.Context) {
	chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCreated); ok && e.TargetInfo.Type == "page" && e.TargetInfo.OpenerID != "" {
			go cdp.Call(ctx, chromedp.FromContext(ctx).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: e.TargetInfo.TargetID})
		}
	})
}

// socketRoom is how long the path of the browser's directory may be:
// Chromium makes a socket at TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket
// (its TMPDIR is that directory), a Unix socket's path holds 107 bytes,
// and where it does not fit Chromium fails to start.
const socketRoom = 107 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")

// browserDir makes the browser's directory: in the temporary directory,
// or in /tmp where that one's path leaves no room for Chromium's socket
// (the length of the name os.MkdirTemp makes varies: a TMPDIR near the
// limit failed now and then).
func browserDir() (string, error) {
	dir, err := os.MkdirTemp("", "heed-browser-")
	if err != nil || len(dir) <= socketRoom || runtime.GOOS == "windows" {
		return dir, err
	}
	os.Remove(dir)
	if short, err := os.MkdirTemp("/tmp", "heed-browser-"); err == nil {
		return short, nil
	}
	return "", fmt.Errorf("the temporary directory's path (%s) is too long for the socket the browser makes there: set TMPDIR to a shorter one, such as /tmp", os.TempDir())
}

// startWait is how long a browser may take to answer as it starts: one
// that has not answered by then is stopped, and tried again a while
// after (retryStart).
const startWait = time.Minute

// start starts the browser, or returns the one started. A page whose
// context (ctx) ends while the browser starts stops waiting for it: the
// browser is stopped, and the next page starts one anew.
func (b *Browser) start(rctx context.Context) (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started && (b.startErr == nil || b.closed || time.Since(b.failedAt) < retryStart) {
		return b.ctx, b.startErr
	}
	b.started, b.failedAt = true, time.Now()
	path, err := Find(b.cfg.Path)
	if err != nil {
		b.startErr = err
		return nil, err
	}
	ctx, stop, err := launch(rctx, path)
	var ex exited
	if errors.As(err, &ex) {
		// It exited as it started: once, that may be the moment's (a
		// busy machine); a second start decides.
		ctx, stop, err = launch(rctx, path)
	}
	switch {
	case err != nil && rctx.Err() != nil:
		// The page gave up, not the browser: the next page starts one
		// anew.
		b.started = false
		return nil, rctx.Err()
	case err != nil:
		b.startErr = err
		return nil, err
	}
	b.ctx, b.startErr = ctx, nil
	closePopups(ctx)
	if p := chromedp.FromContext(ctx).Browser.Process(); p != nil {
		go b.watch(ctx, p.Pid, b.cfg.MaxMemory)
	}
	b.cancel = stop
	return ctx, nil
}

// exited is the cause of a start whose browser process exited as it
// started, rather than not answering or finding no sandbox: start tries
// it once more.
type exited struct{ error }

// launch starts the browser at path and waits for it to answer, or for
// rctx to end; stop stops it and removes its directory. On an error the
// process is stopped and its directory removed.
func launch(rctx context.Context, path string) (ctx context.Context, stop func(), err error) {
	// The one directory the browser writes in, removed when it closes:
	// its profile, its home (caches, configuration) and its temporary
	// directory (what Chromium makes there, such as
	// org.chromium.Chromium.*, would outlive a browser that is stopped;
	// TMPDIR is the directory itself, to keep the path of the socket
	// Chromium makes there short).
	dir, err := browserDir()
	if err != nil {
		return nil, nil, fmt.Errorf("render: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], flags()...)
	// Its environment is its own, and none of heed's (no secret of
	// heed's is handed to the browser).
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"), "TMPDIR=" + dir}
	for _, name := range []string{"PATH", "LANG", "LANGUAGE", "LC_ALL", "TZ"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	opts = append(opts, chromedp.ExecPath(path), chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.NoInheritEnv, chromedp.Env(env...))
	sandbox, err := sandboxed(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("render: %w", err)
	}
	opts = append(opts, sandbox...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	stop = func() {
		cancel()
		cancelAlloc()
		os.RemoveAll(dir)
	}
	// A browser that does not answer (hung as it starts) does not hold
	// the page, nor heed, for ever: it is stopped.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	wait := time.NewTimer(startWait)
	defer wait.Stop()
	select {
	case err = <-started:
		if err == nil {
			return ctx, stop, nil
		}
		stop()
		if strings.Contains(err.Error(), "No usable sandbox") {
			return nil, nil, fmt.Errorf("%w (%s: %v)", ErrNoSandbox, path, err)
		}
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrNoBrowser, path, exited{err})
	case <-wait.C:
		err = fmt.Errorf("%w: %s: it did not answer in %v", ErrNoBrowser, path, startWait)
	case <-rctx.Done():
		err = rctx.Err()
	}
	cancel() // stops the process, and so ends chromedp.Do
	cancelAlloc()
	<-started
	os.RemoveAll(dir)
	return nil, nil, err
}

// Close stops the browser.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
	b.started, b.closed, b.startErr = true, true, errors.New("the browser is closed")
	return nil
}

// ErrBudget is wrapped by the error of a page whose rendering spent a
// budget before anything could be read of it, or whose DOM grew past the
// byte budget.
var ErrBudget = errors.New("the page's rendering spent its budget")

// answerers is how many of a page's requests are answered at once; the
// rest wait, in a queue of queueLen, and a page that fills the queue has
// spent its budget.
const (
	answerers = 6
	queueLen  = 256
)

// Render renders the page whose document heed fetched (doc, a 2xx HTML
// response), in a tab of its own with cookies, storage and cache of its
// own, discarded after. The document is answered from doc; every other
// request of the page from get, within the page's budgets. The page is
// read once its requests have been quiet for a while after it loaded,
// or when a budget is spent (Page.Cut says which).
func (b *Browser) Render(ctx context.Context, doc *fetch.Response, get Get) (*Page, error) {
	p, err := b.render(ctx, doc, get)
	if errors.Is(err, errBrowserGone) {
		// The browser died (killed, crashed): a new one, once.
		b.reset()
		p, err = b.render(ctx, doc, get)
	}
	return p, err
}

// errBrowserGone is the cause of a tab that could not be opened.
var errBrowserGone = errors.New("the browser is gone")

func (b *Browser) render(ctx context.Context, doc *fetch.Response, get Get) (*Page, error) {
	bctx, err := b.start(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case b.tabs <- struct{}{}:
		defer func() { <-b.tabs }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	deadline := time.Now().Add(b.cfg.PageTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	tctx, closeTab := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	defer closeTab()
	// A browser that does not answer (hung, stopped) does not hold the
	// page for ever: past the page's time, it is taken as gone.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(tctx) }()
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case err := <-opened:
		if err != nil {
			return nil, fmt.Errorf("render: open a tab: %w: %v", errBrowserGone, err)
		}
	case <-wait.C:
		closeTab()
		<-opened
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("render: open a tab: %w: it did not answer in %v", errBrowserGone, b.cfg.PageTimeout)
	case <-ctx.Done():
		closeTab()
		<-opened
		return nil, ctx.Err()
	}
	t := chromedp.FromContext(tctx).Target
	pctx, cancel := context.WithDeadline(tctx, deadline)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()

	r := &tab{b: b, t: t, ctx: pctx, cancel: cancel, doc: doc, get: get, page: &Page{URL: doc.URL},
		queue: make(chan *cdpfetch.EventRequestPaused, queueLen), done: make(chan struct{})}
	r.last.Store(time.Now().UnixNano())
	var wg sync.WaitGroup
	for range answerers {
		wg.Go(r.answerAll)
	}
	defer func() {
		// The page is done with: its tab ends first, so that nothing
		// waits on it, then its answers.
		cancel()
		closeTab()
		close(r.done)
		wg.Wait()
	}()
	killed, browserKilled := b.killed.Load(), b.browserKilled.Load()
	chromedp.Listen(tctx, func(ev any) {
		switch e := ev.(type) {
		case *cdpfetch.EventRequestPaused:
			select {
			case r.queue <- e:
			default:
				r.spend("requests")
			}
		case *target.EventAttachedToTarget:
			if e.TargetInfo.Type == "worker" {
				go r.worker(tctx, e.TargetInfo.TargetID)
			}
		case *inspector.EventTargetCrashed:
			// Its renderer is gone: killed for its memory (the only
			// renderers heed kills), or crashed (a JavaScript heap
			// past its limit). Nothing is left to read.
			r.mu.Lock()
			r.crashed = true
			r.mu.Unlock()
			r.cancel()
		}
	})
	if _, err := cdp.Call(pctx, t, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if _, err := cdp.Call(pctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: blockScript}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if _, err := cdp.Call(pctx, t, target.SetAutoAttach, workersPause); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	navErr := chromedp.Do(pctx, chromedp.Navigate(doc.URL))
	if navErr != nil && pctx.Err() == nil {
		return nil, fmt.Errorf("render: %w", navErr)
	}
	// Quiet: no request in flight, and none begun or ended for a while
	// since the page loaded (what its scripts do after load counts).
	r.last.Store(time.Now().UnixNano())
	for pctx.Err() == nil {
		if r.inflight.Load() == 0 && time.Since(time.Unix(0, r.last.Load())) > quiet {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pctx.Err() != nil && ctx.Err() == nil {
		r.spend("time")
	}
	// What the page has is read with a moment of its own (readMoment): a
	// page that spent its time is read as it stands. A DOM larger than
	// the byte budget is not read at all.
	rctx, rcancel := context.WithTimeout(tctx, readMoment)
	defer rcancel()
	html, err := chromedp.Run(rctx, chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const h = document.documentElement.outerHTML; return h.length > %d ? "" : h; })()`, b.cfg.MaxBytes)))
	r.mu.Lock()
	crashed := r.crashed
	r.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case b.browserKilled.Load() > browserKilled:
		// Which page made the browser hold it is not known: each page
		// rendering then may be tried again (a cause that may pass).
		return nil, &heed.Error{Kind: heed.Transient, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w: the browser's processes held more than %d MB of memory together, and it was stopped, with the pages rendering in it", ErrBudget, b.cfg.MaxMemory*int64(b.cfg.Tabs+2)>>20)}
	case crashed && b.killed.Load() > killed:
		return nil, &heed.Error{Kind: heed.TooLarge, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w: the page's renderer held more than %d MB of memory, and was stopped", ErrBudget, b.cfg.MaxMemory>>20)}
	case crashed:
		return nil, &heed.Error{Kind: heed.TooLarge, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w: the page's renderer crashed (its scripts ran out of memory, or the browser failed)", ErrBudget)}
	case err != nil:
		return nil, &heed.Error{Kind: heed.TooLarge, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w (%v, %d requests, %d bytes): %v", ErrBudget, b.cfg.PageTimeout, b.cfg.MaxRequests, b.cfg.MaxBytes, err)}
	case html == "":
		return nil, &heed.Error{Kind: heed.TooLarge, Op: "render", URL: doc.URL, Err: fmt.Errorf("%w: the page's DOM grew past %d bytes", ErrBudget, b.cfg.MaxBytes)}
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
func (b *Browser) wanted(e *cdpfetch.EventRequestPaused) bool {
	h := func(name string) string {
		for k, v := range e.Request.Headers {
			if strings.EqualFold(k, name) {
				s, _ := v.(string)
				return strings.ToLower(s)
			}
		}
		return ""
	}
	if strings.Contains(h("Sec-Purpose"), "prefetch") || strings.Contains(h("Purpose"), "prefetch") || strings.Contains(h("Accept"), "text/event-stream") {
		return false
	}
	switch e.ResourceType {
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
	b      *Browser
	t      *chromedp.Target
	ctx    context.Context
	cancel context.CancelFunc
	doc    *fetch.Response
	get    Get
	queue  chan *cdpfetch.EventRequestPaused
	done   chan struct{}

	inflight atomic.Int32
	workers  atomic.Int32 // dedicated workers started
	last     atomic.Int64 // unix nanoseconds of the last request's start or end

	mu       sync.Mutex
	page     *Page
	count    int   // requests paused, answered or not
	bytes    int64 // bytes taken and reserved
	mainDoc  cdp.FrameID
	answered bool // the document was answered from doc
	crashed  bool // the page's renderer is gone
}

// spend ends the page's rendering for a spent budget: it is read as it
// stands, and says so.
func (r *tab) spend(budget string) {
	r.mu.Lock()
	if r.page.Cut == "" {
		r.page.Cut = budget
	}
	r.mu.Unlock()
	r.cancel()
}

// answerAll answers the page's requests until the page is done.
func (r *tab) answerAll() {
	for {
		select {
		case e := <-r.queue:
			r.answer(e)
		case <-r.done:
			return
		}
	}
}

// call sends a command about a paused request, bounded in time: the
// answer reaches the tab even as the page's time ends, and never waits
// on a tab that is gone.
func (r *tab) call(f func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 2*time.Second)
	defer cancel()
	f(ctx)
}

// answer answers one request the page made: from heed, or not at all.
func (r *tab) answer(e *cdpfetch.EventRequestPaused) {
	r.inflight.Add(1)
	r.last.Store(time.Now().UnixNano())
	defer func() {
		r.last.Store(time.Now().UnixNano())
		r.inflight.Add(-1)
	}()
	fail := func(reason network.ErrorReason) {
		r.mu.Lock()
		r.page.Refused++
		r.mu.Unlock()
		r.call(func(ctx context.Context) error {
			_, err := cdp.Call(ctx, r.t, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: reason})
			return err
		})
	}
	// Every request the page makes counts against its budget, refused or
	// not: a page that asks without end spends it, and is read as it
	// stands.
	r.mu.Lock()
	r.count++
	over := r.count > r.b.cfg.MaxRequests
	first := e.ResourceType == network.ResourceTypeDocument && !r.answered
	if first {
		r.answered, r.mainDoc = true, e.FrameID
	}
	again := !first && e.ResourceType == network.ResourceTypeDocument && e.FrameID == r.mainDoc
	r.mu.Unlock()
	if over {
		fail(network.ErrorReasonBlockedByClient)
		r.spend("requests")
		return
	}
	u, err := url.Parse(e.Request.URL)
	switch {
	case err != nil || u.Scheme != "http" && u.Scheme != "https":
		fail(network.ErrorReasonBlockedByClient)
		return
	case again:
		// The page would be another: the page rendered is the one asked
		// for (a script's location.replace, a meta refresh, is not
		// followed). A 204 keeps the browser on the page it has.
		r.mu.Lock()
		r.page.Refused++
		r.mu.Unlock()
		r.call(func(ctx context.Context) error {
			_, err := cdp.Call(ctx, r.t, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: http.StatusNoContent})
			return err
		})
		return
	case e.Request.Method != http.MethodGet && e.Request.Method != http.MethodHead:
		// heed only ever reads: a page's POST is not sent.
		fail(network.ErrorReasonBlockedByClient)
		return
	case !r.b.wanted(e):
		fail(network.ErrorReasonBlockedByClient)
		return
	case r.ctx.Err() != nil:
		fail(network.ErrorReasonTimedOut)
		return
	}
	var resp *fetch.Response
	if first {
		resp = r.doc // fetched already, on its host's turn
		r.mu.Lock()
		r.bytes += int64(len(resp.Body))
		r.mu.Unlock()
	} else {
		// A response may take what is left of the budget when it is
		// asked for; requests at once (answerers at most) may together
		// take more, and then the last to end is refused: what the page
		// is given never passes the budget.
		r.mu.Lock()
		left := r.b.cfg.MaxBytes - r.bytes
		r.mu.Unlock()
		if left <= 0 {
			fail(network.ErrorReasonBlockedByClient)
			r.spend("bytes")
			return
		}
		req := fetch.Request{URL: e.Request.URL, NoRetry: true, MaxBytes: left}
		if a, ok := e.Request.Headers["Accept"].(string); ok && a != "" {
			req.Accept = heed.Clip(a, 256)
		}
		resp, err = r.get(r.ctx, req)
		if err == nil {
			r.mu.Lock()
			over := r.bytes+int64(len(resp.Body)) > r.b.cfg.MaxBytes
			if !over {
				r.bytes += int64(len(resp.Body))
			}
			r.mu.Unlock()
			if over {
				fail(network.ErrorReasonBlockedByClient)
				r.spend("bytes")
				return
			}
		} else if heed.KindOf(err) == heed.TooLarge {
			fail(network.ErrorReasonBlockedByClient)
			r.spend("bytes")
			return
		}
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
	r.page.Requests++
	r.page.Bytes = r.bytes
	r.mu.Unlock()
	var headers []*cdpfetch.HeaderEntry
	for name, values := range resp.Header {
		switch http.CanonicalHeaderKey(name) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Set-Cookie", "Location", "Connection", "Refresh":
			continue // the body is whole and decoded; no cookie is kept; the page is not sent elsewhere
		}
		for _, v := range values {
			headers = append(headers, &cdpfetch.HeaderEntry{Name: name, Value: v})
		}
	}
	status := int64(resp.Status)
	if status < 200 || status > 599 || status >= 300 && status < 400 {
		status = http.StatusBadGateway // redirects were followed by heed
	}
	r.call(func(ctx context.Context) error {
		_, err := cdp.Call(ctx, r.t, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
			RequestID: e.RequestID, ResponseCode: status, ResponseHeaders: headers, Body: resp.Body,
		})
		return err
	})
}
