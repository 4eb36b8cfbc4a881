// Package crawlopt holds a crawl's options, in the one type that every
// door fills and the crawler runs with: the command line binds its flags
// to it, a website source's entry in the config file is decoded over it,
// a team's crawl row stores it as JSON, and an agent's web_crawl is
// clamped into it within the user's limits.
//
// Its defaults are those of Defaults, and a zero is a zero: a MaxDepth of
// 0 crawls the start URL only, a Delay of 0 waits none. No layer reads a
// zero as "the default".
//
// It depends on no third-party package, nor on heed's other packages:
// the config file's package and the crawler's both import it.
package crawlopt
