package stash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
)

// LogFile is the stash's log of crawls, in its root: what each crawl
// stored and what it skipped, and why. No snapshot is ever written there.
const LogFile = "log.md"

// AppendLog adds an entry (Markdown) to the stash's log.
func (s *Stash) AppendLog(entry string) error {
	if !s.writer {
		return heed.ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, err := readRegular(s.root, LogFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stash: log: %w", err)
	}
	if len(old) == 0 {
		old = []byte("# heed's log\n\nWhat each crawl into this stash stored, and what it skipped and why.\n")
	}
	data := append(old, []byte("\n"+strings.TrimSpace(entry)+"\n")...)
	if err := atomicfile.WriteIn(s.root, LogFile, data); err != nil {
		return fmt.Errorf("stash: log: %w", err)
	}
	return nil
}

// Optimize merges the full-text index into one segment, which makes
// searches faster after many writes. Reindex does it; a crawl that
// stored many pages does too.
func (s *Stash) Optimize(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("stash: optimize: %w", err)
	}
	return nil
}
