// Package sourcetest helps test source kinds: an Env whose client reaches
// loopback servers and nothing else, a real stash in a temporary
// directory, warnings kept, and a clock that moves only when slept on.
package sourcetest
