package ledger_test

import (
	"testing"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/ledger/ledgertest"
)

func TestMemory(t *testing.T) {
	ledgertest.Run(t, func(*testing.T) ledger.Ledger { return &ledger.Memory{} })
}
