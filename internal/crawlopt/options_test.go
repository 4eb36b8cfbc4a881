package crawlopt

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Errorf("Defaults().Validate() = %v", err)
	}
	// The zero value is no crawl: it is refused, not read as the defaults.
	var zero Options
	var oe *Error
	if err := zero.Validate(); !errors.As(err, &oe) || oe.Name != "max_pages" {
		t.Errorf("Options{}.Validate() = %v, want max_pages refused", err)
	}
}

// TestZeroIsZero: a zero depth, delay and Crawl-delay cap are settings of
// their own, valid as they are.
func TestZeroIsZero(t *testing.T) {
	o := Defaults()
	o.MaxDepth, o.Delay, o.MaxCrawlDelay = 0, 0, 0
	if err := o.Validate(); err != nil {
		t.Errorf("max_depth 0, delay 0s: %v", err)
	}
	if o.MaxDepth != 0 || o.Delay != 0 || o.MaxCrawlDelay != 0 {
		t.Errorf("Validate changed the options: %+v", o)
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"no pages", func(o *Options) { o.MaxPages = 0 }, "max_pages must be a whole number above 0"},
		{"negative depth", func(o *Options) { o.MaxDepth = -1 }, "max_depth must be 0 (the start URL only) or more"},
		{"no deadline", func(o *Options) { o.Deadline = 0 }, "deadline must be longer than 0"},
		{"negative delay", func(o *Options) { o.Delay = -time.Second }, "delay must be 0 or more"},
		{"negative cap", func(o *Options) { o.MaxCrawlDelay = -time.Second }, "max_crawl_delay must be 0 or more"},
		{"no hosts", func(o *Options) { o.Hosts = 0 }, "hosts must be a whole number above 0"},
		{"no render", func(o *Options) { o.Render = "" }, "render must be auto, always or never"},
		{"odd render", func(o *Options) { o.Render = "sometimes" }, "render must be auto, always or never"},
	} {
		o := Defaults()
		tt.set(&o)
		err := o.Validate()
		var oe *Error
		if !errors.As(err, &oe) || err.Error() != tt.want {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestJSONRoundTrip: the options read back as they were written, but
// Hosts, which a team's row does not keep.
func TestJSONRoundTrip(t *testing.T) {
	o := Defaults()
	o.Start, o.Source, o.Tags = "https://docs.example.com/guide/", "docs", []string{"a"}
	o.MaxDepth, o.Delay, o.NoRobots, o.NoSitemaps, o.Render, o.Hosts = 0, 0, true, true, "never", 9
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	back := Defaults()
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	o.Hosts = Defaults().Hosts
	if !reflect.DeepEqual(back, o) {
		t.Errorf("read back %+v\nwant %+v", back, o)
	}
}
