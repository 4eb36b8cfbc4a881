package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
)

// failure is what the command line makes of an error of the service: the
// exit code by its kind and cause, and the message with what the user can
// do at the command line. It is the CLI's one table from kinds to exit
// codes and hints; MCP has its own, in agents' words.
func failure(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		return &exitError{code: ExitConfig, err: err}
	}
	var missing *ingest.NoStashError
	if errors.As(err, &missing) {
		if missing.Files {
			return &exitError{code: ExitUsage, err: fmt.Errorf("%v; 'heed reindex' rebuilds it from them", missing)}
		}
		return &exitError{code: ExitUsage, err: fmt.Errorf("%v; 'heed crawl URL' or 'heed add URL' makes one there, and --stash or HEED_STASH names another", missing)}
	}
	var ns *ingest.NoSourceError
	if errors.As(err, &ns) {
		return &exitError{code: ExitFailed, err: fmt.Errorf("%v; 'heed ls' lists the sources", ns)}
	}
	var oe *crawlopt.Error
	if errors.As(err, &oe) {
		return &exitError{code: ExitUsage, err: fmt.Errorf("%s must be %s", flagOf(oe.Name), oe.Want)}
	}
	var disallowed *crawl.Disallowed
	if errors.As(err, &disallowed) && disallowed.HostUnreachable() {
		return &exitError{code: ExitFailed, err: fmt.Errorf("cannot reach %s: %s", hostOf(err), disallowed.Decision.Cause)}
	}
	code := ExitFailed
	switch {
	case heed.KindOf(err) == heed.Invalid, errors.Is(err, crawl.ErrStartRefused):
		// DESIGN: a start URL robots.txt refuses is a usage error.
		code = ExitUsage
	case errors.Is(err, context.Canceled):
		return &exitError{code: ExitFailed, err: errors.New("interrupted; what was stored is in the stash")}
	}
	return &exitError{code: code, err: withHint(err)}
}

// withHint is err with what the user can do about it at the command line
// after it, if hint knows.
func withHint(err error) error {
	if h := hint(err); h != "" {
		return fmt.Errorf("%w; %s", err, h)
	}
	return err
}

// hostOf is the host of the URL an error names, or "the site".
func hostOf(err error) string {
	var he *heed.Error
	if errors.As(err, &he) {
		if u, perr := url.Parse(he.URL); perr == nil && u.Host != "" {
			return u.Host
		}
	}
	return "the site"
}

// flagOf is the flag of a setting: the config file's max_pages is
// --max-pages.
func flagOf(setting string) string { return "--" + strings.ReplaceAll(setting, "_", "-") }

// hint says what the user can do about an error at the command line, or
// "".
func hint(err error) string {
	var refused *fetch.RefusedError
	var disallowed *crawl.Disallowed
	var recorded *ingest.RecordedError
	var empty *ingest.EmptyError
	switch {
	case errors.As(err, &refused):
		return fmt.Sprintf("to allow it, pass --allow-net %s or add it to allow_net in the config file", refused.Prefix)
	case errors.As(err, &disallowed):
		return "to crawl it anyway, pass --no-robots (respect_robots: false in the config)"
	case errors.As(err, &recorded) && recorded.URL != "":
		return fmt.Sprintf("'heed sync %s' ingests it again", recorded.Name)
	case errors.As(err, &recorded):
		return fmt.Sprintf("'heed sync %s' ingests it again, --name gives another name", recorded.Name)
	case errors.As(err, &empty) && empty.Cause == nil:
		return "the lines above say why"
	}
	return ""
}
