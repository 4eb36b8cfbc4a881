package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/stash"
)

// BenchmarkStashChanges lists what changed in a stash of n pages that
// all changed within the week, one in ten changed and the rest new: a
// first call, with diffs, and the call its cursor gives. A call reads a
// part of the stash's changes (changesRead pages) and compares the
// versions of at most maxCompared pages, so its time and its result's
// size stay level as n grows.
//
//	go test -run '^$' -bench StashChanges -benchtime 20x ./internal/mcp
func BenchmarkStashChanges(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			st, err := stash.Open(context.Background(), dir)
			if err != nil {
				b.Fatal(err)
			}
			month, now := time.Now().AddDate(0, 0, -30), time.Now()
			for i := range n {
				u := fmt.Sprintf("https://tides.example/%05d", i)
				text := func(turns string) string {
					return "# Tides\n\nThe tide turns at " + turns + ".\n\n" + strings.Repeat("The harbour's tide tables, the same in every version.\n\n", 40)
				}
				if i%10 == 0 {
					if _, err := st.Put(context.Background(), &heed.Snapshot{Source: "tides", URL: u, Title: "Tides", FetchedAt: month, Markdown: text("noon")}); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := st.Put(context.Background(), &heed.Snapshot{Source: "tides", URL: u, Title: "Tides", FetchedAt: now, Markdown: text("dusk")}); err != nil {
					b.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
			svc := ingest.New(ingest.Config{HTTP: fetch.New(fetch.Config{}), Agent: "heed/0.1", StashDir: dir})
			s := New(Config{Service: svc})
			defer svc.Close()
			defer s.Close()
			st2, ct := sdk.NewInMemoryTransports()
			ss, err := s.MCP().Connect(context.Background(), st2, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			chars := 0
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "stash_changes", Arguments: map[string]any{"diffs": true, "max_chars": 100_000}})
				if err != nil || res.IsError {
					b.Fatalf("stash_changes: %v %v", err, res)
				}
				var out ChangesOutput
				data, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(data, &out); err != nil || out.NextCursor == "" {
					b.Fatalf("stash_changes: %v, cursor %q", err, out.NextCursor)
				}
				next, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "stash_changes", Arguments: map[string]any{"diffs": true, "max_chars": 100_000, "cursor": out.NextCursor}})
				if err != nil || next.IsError {
					b.Fatalf("stash_changes by cursor: %v %v", err, next)
				}
				chars = len(data)
			}
			b.ReportMetric(float64(chars), "structured-bytes")
		})
	}
}
