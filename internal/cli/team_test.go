package cli

import (
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/pgtest"
)

// heed migrate --db creates the schemas, then has nothing to do; $HEED_DB
// names the database too; a wrong password fails without showing it.
func TestMigrateCommand(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	code, out, stderr := run(t, "", "migrate", "--db", url)
	if code != 0 || !strings.Contains(out, "version 0 to 1") {
		t.Fatalf("exit %d, %q, %q", code, out, stderr)
	}
	t.Setenv("HEED_DB", url)
	code, out, stderr = run(t, "", "migrate")
	if code != 0 || !strings.Contains(out, "nothing to do") {
		t.Errorf("again, from HEED_DB: exit %d, %q, %q", code, out, stderr)
	}
	bad := strings.Replace(url, "heed:pw@", "heed:n0t-th3-pw@", 1)
	code, out, stderr = run(t, "", "migrate", "--db", bad)
	if code != 1 || strings.Contains(out+stderr, "n0t-th3") || !strings.Contains(stderr, "heed:") {
		t.Errorf("a wrong password: exit %d, %q, %q", code, out, stderr)
	}
}
