package feed

import (
	"strings"
	"testing"
)

// An item with no link, date, author or ID writes its content right
// after its heading; content that starts with a list item "ID: ..." is
// read back as the item's ID.
func TestContentNotReadAsFields(t *testing.T) {
	doc := `<?xml version="1.0"?><rss version="0.91"><channel><title>c</title><link>https://e.com/</link><description>d</description>` +
		`<item><title>Notice</title><description>&lt;ul&gt;&lt;li&gt;ID: whatever&lt;/li&gt;&lt;/ul&gt;&lt;p&gt;Body.&lt;/p&gt;</description></item></channel></rss>`
	f, err := Read([]byte(doc), "https://e.com/feed", 10)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := Document(f.Description, f.Items, "")
	second, n, fresh := Document(f.Description, f.Items, first)
	third, n3, _ := Document(f.Description, f.Items, second)
	if n != 1 || fresh != 0 || strings.Count(third, "## Notice") != 1 {
		t.Errorf("the same feed synced again: %d items, %d new, then %d:\n--- first\n%s\n--- third\n%s", n, fresh, n3, first, third)
	}
}
