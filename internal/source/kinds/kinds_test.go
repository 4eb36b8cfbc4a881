package kinds

import (
	"flag"
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/heedhq/heed/internal/config"
)

var update = flag.Bool("update", false, "rewrite schema/config.schema.json")

// TestSchemaUpToDate fails when schema/config.schema.json no longer matches
// the config file's Go types and the kinds of source; run with -update to
// regenerate it.
func TestSchemaUpToDate(t *testing.T) {
	got, err := config.Schema(Names())
	if err != nil {
		t.Fatal(err)
	}
	const file = "../../../schema/config.schema.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/source/kinds -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("schema/config.schema.json is stale: run go test ./internal/source/kinds -update")
	}
	// The schema is itself valid JSON describing every setting, and its
	// kinds are the registry's.
	var m map[string]any
	if err := yaml.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	props := m["$defs"].(map[string]any)["source"].(map[string]any)["properties"].(map[string]any)
	for _, key := range []string{"url", "respect_robots", "max_pages", "max_depth", "include", "exclude", "delay"} {
		if props[key] == nil {
			t.Errorf("schema lacks sources.*.%s", key)
		}
	}
	var enum []string
	for _, v := range props["kind"].(map[string]any)["enum"].([]any) {
		enum = append(enum, v.(string))
	}
	if !slices.Equal(enum, Names()) {
		t.Errorf("the schema's kinds are %v, the registry's %v", enum, Names())
	}
}

// TestMakeTheKinds: every kind but the website is made, in the order
// listed, and the website is last; a broken setting is refused.
func TestMakeTheKinds(t *testing.T) {
	made, err := Make(&config.Config{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range made {
		names = append(names, k.Name())
	}
	if want := Names()[:len(Names())-1]; !slices.Equal(names, want) || Names()[len(Names())-1] != "website" {
		t.Errorf("made %v of %v; want all but the website, which is last", names, Names())
	}
	if _, err := Make(&config.Config{Bluesky: &config.Bluesky{APIBase: "ftp://appview"}}, func(string) string { return "" }); err == nil {
		t.Errorf("a Bluesky base that is not an http(s) URL was taken")
	}
	for _, k := range All {
		if k.Help == "" {
			t.Errorf("kind %s has no help", k.Name)
		}
	}
}
