// Package render renders pages that build their content with JavaScript,
// in headless Chromium driven over the DevTools protocol (chromedp), and
// decides when a page needs it (Needs).
//
// The browser makes no request of its own. Every request of a page is
// paused before it is sent (the DevTools Fetch domain) and answered by
// heed's guarded, polite client, or failed: schemes other than http(s),
// images, media and fonts (unless asked for), requests past a page's
// budgets, and whatever the guard or robots.txt refuses. What cannot be
// paused cannot leave: the browser's only proxy goes nowhere, loopback
// included; no host name resolves; QUIC and WebRTC's UDP are off; and
// WebSocket, WebRTC, service workers and sendBeacon are taken out of
// every frame and dedicated worker before its scripts run (a worker
// starts paused until then). A page opens no window: the popup
// blocker refuses them, window.open and document.open's window give
// nothing, and a window that got past both is closed. Each page has a tab and a browser
// context of its own (cookies, storage and cache), discarded after it,
// and so a renderer process of its own, stopped when it holds more memory
// than the page's budget. The browser runs in Chromium's sandbox, as the
// user nobody when heed runs as root, and writes only in a directory of
// heed's, removed when it closes.
//
// It may not import internal/crawl, internal/ingest, internal/cli or
// internal/mcp: it renders what it is handed.
package render
