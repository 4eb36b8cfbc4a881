package memstore

import (
	"testing"

	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/history/historytest"
)

func TestHistory(t *testing.T) {
	historytest.Run(t, func(t *testing.T, r history.Retention) historytest.Store {
		return &Store{Retention: r}
	})
}
