//go:build !linux

package render

import (
	"errors"
	"os"

	"github.com/chromedp/chromedp"
)

// sandboxed are the options that start the browser in Chromium's
// sandbox: where heed runs as root, which Chromium's sandbox does not
// take, it does not start the browser (on Linux it starts it as the
// user nobody).
func sandboxed(dir string) ([]chromedp.ExecAllocatorOption, error) {
	if os.Geteuid() == 0 {
		return nil, errors.New("Chromium's sandbox does not run as root: run heed as another user to render pages")
	}
	return []chromedp.ExecAllocatorOption{chromedp.Flag("no-sandbox", false)}, nil
}
