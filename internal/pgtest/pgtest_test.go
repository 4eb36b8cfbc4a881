package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A cluster starts, takes connections on its URL and makes databases.
func TestCluster(t *testing.T) {
	c := Start(t)
	defer c.Stop()
	url := c.Database(t)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(context.Background(), "SHOW server_version").Scan(&v); err != nil || v == "" {
		t.Fatalf("server_version %q: %v", v, err)
	}
}
