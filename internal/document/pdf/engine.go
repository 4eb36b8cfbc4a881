package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/heedhq/heed"
)

// MaxMemoryBytes is the most memory the PDF engine may take for one
// document, the file included: a document that needs more is refused
// (ErrLimit), whatever its size on disk.
const MaxMemoryBytes = 512 << 20

// wasmPage is the size of a WebAssembly memory page.
const wasmPage = 64 << 10

// engine is PDFium, compiled to WebAssembly and run by wazero in this
// process: no cgo, no helper process, and a sandbox that sees no file
// system. It is compiled when the first document is read, not before,
// so that commands that read none pay nothing for it.
var engine struct {
	sync.Mutex
	pool pdfium.Pool
}

// instance is a fresh PDFium for one document: the engine's pool makes
// a new one each time, so that nothing a hostile document did to one is
// there for the next.
func instance(ctx context.Context) (pdfium.Pdfium, error) {
	engine.Lock()
	if engine.pool == nil {
		p, err := start()
		if err != nil {
			engine.Unlock()
			return nil, err
		}
		engine.pool = p
	}
	p := engine.pool
	engine.Unlock()
	return p.GetInstanceWithContext(ctx)
}

// start compiles the engine, with its machine code cached on disk
// (cacheDir) where a cache directory exists: compiling takes about 2 s,
// loading it back about 60 ms.
func start() (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().
		// PDFium's module needs WebAssembly's exception handling (its
		// setjmp and longjmp are lowered to it).
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(MaxMemoryBytes / wasmPage)
	if dir := cacheDir(); dir != "" {
		if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(c)
		}
	}
	p, err := webassembly.Init(webassembly.Config{
		MinIdle:  0,
		MaxIdle:  runtime.GOMAXPROCS(0),
		MaxTotal: runtime.GOMAXPROCS(0),
		// The engine sees no file: documents are handed to it as bytes.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the PDF engine: %w", err)
	}
	return p, nil
}

// cacheDir is where the engine's compiled code is kept: heed's folder in
// the user's cache directory, made readable by the user only, since the
// code in it is run. "" when there is none.
func cacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(base, "heed", "pdfium")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByUs(fi) {
		// Code others may write, or that another user's folder holds, is
		// not code to run.
		return ""
	}
	return dir
}

// errBusy is returned when no engine frees up in time: a cause that may
// pass (heed.Transient), so that a crawl asks for the document again
// rather than record it failed.
var errBusy = &heed.Error{Kind: heed.Transient, Op: "pdf", Err: errors.New("the PDF engine is busy")}

// borrow is an engine for one document, waited for at most
// instanceWait while others' documents hold them all.
func borrow(ctx context.Context) (pdfium.Pdfium, error) {
	wait, cancel := context.WithTimeout(ctx, instanceWait)
	defer cancel()
	in, err := instance(wait)
	return in, borrowError(ctx, wait, err)
}

// borrowError is the error of asking for an engine: errBusy where the
// wait for one ran out (wait's deadline, not ctx's), else what kept it
// from starting, said. wait must not be cancelled yet: a cancelled wait
// would take every error for the wait's.
func borrowError(ctx, wait context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil && errors.Is(wait.Err(), context.DeadlineExceeded):
		return errBusy
	}
	return fmt.Errorf("pdf: %w", err)
}

// instanceWait is how long a document waits for an engine.
const instanceWait = 2 * time.Minute
