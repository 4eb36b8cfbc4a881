package website

import (
	"context"
	"errors"
	"net/url"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/source"
)

// Name is the kind's name in the config file.
const Name = "website"

// Kind is the website kind.
type Kind struct {
	// Crawl crawls the site from in.URL into the source in.Name, through
	// env's client, and says what it came to. A nil summary means the
	// crawl did not start.
	Crawl func(ctx context.Context, env *source.Env, in source.Input) (*crawl.Summary, error)
}

func (Kind) Name() string          { return Name }
func (Kind) Match(u *url.URL) bool { return true }

// Ingest crawls the site. A crawl that ran returns its result with its
// error, if it had one (a store that could not be written): the source
// is still what it was asked to be. A crawl refused at its door (a start
// URL robots.txt disallows, a setting no crawl can run with) returns no
// result.
func (k Kind) Ingest(ctx context.Context, env *source.Env, in source.Input) (*source.Result, error) {
	if k.Crawl == nil {
		return nil, errors.New("website: no crawler")
	}
	sum, err := k.Crawl(ctx, env, in)
	if sum == nil {
		if err == nil {
			err = &heed.Error{Kind: heed.Internal, Op: "crawl", URL: in.URL, Err: errors.New("the crawl said nothing")}
		}
		return nil, err
	}
	return &source.Result{URL: in.URL, Crawl: sum}, err
}
