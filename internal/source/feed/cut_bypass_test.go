package feed

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigDoc is head, then item repeated (joined by sep) to about size bytes,
// then tail.
func bigDoc(head, item, tail, sep string, size int) []byte {
	var b strings.Builder
	b.WriteString(head)
	for b.Len() < size-200 {
		b.WriteString(item + sep)
	}
	return []byte(strings.TrimSuffix(b.String(), sep) + tail)
}

// bypasses are feeds of many items spelled so that a cutter matching
// bytes would miss them while gofeed reads every one: element names in
// another case, control bytes gofeed drops, declarations and comments
// Go's XML reader ends elsewhere than a byte scanner, JSON keys that
// encoding/json folds.
func bypasses(size int) map[string][]byte {
	rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`
	jf := `{"version":"https://jsonfeed.org/version/1.1","title":"t",`
	return map[string][]byte{
		"item":         bigDoc(rss, "<item/>", "</channel></rss>", "", size),
		"Item":         bigDoc(rss, "<Item/>", "</channel></rss>", "", size),
		"ITEM":         bigDoc(rss, "<ITEM></ITEM>", "</channel></rss>", "", size),
		"Channel":      bigDoc(`<?xml version="1.0"?><rss version="2.0"><Channel><title>t</title>`, "<item/>", "</Channel></rss>", "", size),
		"rdf root":     bigDoc(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>t</title></channel>`, "<ITEM/>", "</rdf:RDF>", "", size),
		"control byte": bigDoc(rss, "<it\x01em/>", "</channel></rss>", "", size),
		"directive [":  bigDoc(`<?xml version="1.0"?><!x [><rss version="2.0"><channel><title>t</title>`, "<item/>", "</channel></rss>", "", size),
		"comment ctrl": bigDoc(rss+"<!-- a --\x01>", "<item/>", "</channel></rss>", "", size),
		"latin-1":      bigDoc(`<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>caf`+"\xe9"+`</title>`, "<item/>", "</channel></rss>", "", size),
		"Entry":        bigDoc(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>`, "<Entry/>", "</feed>", "", size),
		"json Items":   bigDoc(jf+`"Items":[`, "{}", "]}", ",", size),
		"json ITEMS":   bigDoc(jf+`"items":[{}],"ITEMS":[`, "{}", "]}", ",", size),
		"json escaped": bigDoc(jf+`"\u0069tems":[`, "{}", "]}", ",", size),
		"json itemſ":   bigDoc(jf+`"itemſ":[`, "{}", "]}", ",", size),
		"categories":   bigDoc(rss, "<category/>", "</channel></rss>", "", size),
		"extensions":   bigDoc(rss+`<x:a xmlns:x="https://e.com/x">`, "<x:b/>", "</x:a></channel></rss>", "", size),
	}
}

// However a feed spells its items, gofeed is never given more than the
// items kept (or the feed is refused).
func TestCutBoundHolds(t *testing.T) {
	for name, body := range bypasses(1 << 20) {
		if !Sniff(body) {
			t.Errorf("%s: not sniffed", name)
			continue
		}
		f, err := parse(body, 50)
		if err != nil {
			t.Logf("%s: refused: %v", name, err)
			continue
		}
		if len(f.Items) > 50 {
			t.Errorf("%s: the cut did not hold: gofeed read %d items", name, len(f.Items))
		}
		if n := len(f.Categories); n > maxElements {
			t.Errorf("%s: gofeed read %d categories", name, n)
		}
	}
}

// A feed spelled in another case, oldest first, is cut to its newest
// items, not refused.
func TestCutAnyCase(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><RSS version="2.0"><CHANNEL><Title>t</Title>`)
	for i := 1; i <= 60; i++ {
		d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		fmt.Fprintf(&b, "<ITEM><Title>P%d</Title><PubDate>%s</PubDate></ITEM>", i, d.Format(time.RFC1123Z))
	}
	b.WriteString("</CHANNEL></RSS>")
	f, err := Read([]byte(b.String()), "https://e.com/", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items) != 5 || f.Items[0].Title != "P60" || f.Items[4].Title != "P56" {
		t.Errorf("kept %d items: %+v", len(f.Items), f.Items)
	}
}
