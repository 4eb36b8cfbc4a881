//go:build race

package mcp

// raceEnabled: the race detector is on. Its sync.Pool drops what is put
// back at random, so allocation counts mean little under it.
const raceEnabled = true
