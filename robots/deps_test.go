package robots

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoNetwork keeps the robots packages free of the network (fetching is
// a Loader's job; DESIGN: a package never reaches up) and of regular
// expressions (matching is a forward-only segment scan).
func TestNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/heedhq/heed/robots/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list gave too few packages to trust: %v", deps)
	}
	for _, dep := range deps {
		switch {
		case dep == "net/http", strings.HasPrefix(dep, "net/http/"), dep == "net":
			t.Errorf("robots depends on %s", dep)
		case dep == "regexp":
			t.Errorf("robots depends on regexp; patterns must be matched by the segment scan")
		case strings.Contains(dep, ".") && !strings.HasPrefix(dep, "github.com/heedhq/heed"):
			t.Errorf("robots depends on third-party package %s", dep)
		}
	}
}
