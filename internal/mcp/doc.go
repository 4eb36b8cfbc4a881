// Package mcp serves heed's abilities to agents over the Model Context
// Protocol: web_fetch, web_crawl and web_grep read the web; stash_search,
// stash_read, stash_sources and stash_changes read the stash, and so do
// its resources (heed://snapshot/{id}, heed://sources), listed in pages
// and subscribed to, their subscribers told of what this server's
// crawls store.
//
// It is one of the two doors onto the ingest service: it turns tool
// arguments into the service's requests and renders its results, with the
// message for agents its one table (toolError) has for each kind of
// error. Every tool call, from every session connected to a Server, goes
// through the one service, and so shares one robots.txt cache and one
// per-host schedule, so two agents crawling one host do not double its
// load; and every tool call that uses the stash shares one open stash.
//
// Every result is sized for a model's context: it takes at most
// max_chars characters as JSON ([DefaultChars] unless the agent asks for
// less, never more than the user's limit). What does not fit is cut where
// Markdown allows (a part of a page ends at a paragraph or line break, and
// never in a code block it leaves open) and comes on request, by
// next_start_index or by a cursor into the list the result was cut from.
//
// What an agent may do is what the user configured, and no less polite:
// no tool argument turns robots.txt off, reaches a network the guarded
// client refuses, or goes past a limit of [Limits] (an argument above a
// limit is lowered to it, and the result says so).
//
// It may not import internal/cli, internal/stash, internal/source or
// internal/config: it is a door onto the ingest service.
package mcp
