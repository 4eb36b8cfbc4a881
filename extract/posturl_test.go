package extract

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// A blog post whose page says nothing of what it is (no og:type, no
// JSON-LD), as many shops' and companies' blogs send them, with a grid
// of other posts' cards under it: its address says it is a post, so the
// cards are the clutter they are in an article.
func TestPostURLIsAnArticle(t *testing.T) {
	var cards strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&cards, `<div class="card"><a href="/blogs/news/other-post-%d"><img src="/p%d.jpg" alt=""></a><h3><a href="/blogs/news/other-post-%d">Other post %d</a></h3><p>Other post %d says what it is about, briefly.</p></div>`, i, i, i, i, i)
	}
	page := `<html><head><title>How to set up a desk</title></head><body><main><h1>How to set up a desk</h1>` +
		`<p>` + revSentences("The desk post", 6) + `</p><p>` + revSentences("The second part", 5) + `</p>` +
		`<h2>Read next</h2><div class="grid">` + cards.String() + `</div></main></body></html>`
	extract := func(u string) string {
		doc, err := Extract(strings.NewReader(page), Options{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		return doc.Markdown
	}
	md := extract("https://example.com/blogs/news/how-to-set-up-a-desk")
	wantAll(t, "post", md, "The desk post goes on", "The second part goes on")
	if strings.Contains(md, "Other post 1 says") {
		t.Errorf("a post's address: want the post without the other posts' cards:\n%s", md)
	}
	// The same page at an address that says nothing keeps them: a page
	// of cards may be what the page is for.
	if md := extract("https://example.com/desk"); !strings.Contains(md, "Other post 1 says") {
		t.Errorf("no post's address: want the cards kept:\n%s", md)
	}
}

func TestPostURL(t *testing.T) {
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"https://example.com/blog/how-to-set-up-a-desk", true},
		{"https://example.com/blogs/news/ergonomic-desk-step-by-step/", true},
		{"https://example.com/us/blog/how-does-mapping-work", true},
		{"https://example.com/news/world/article/esper-says-us-providing.html", true},
		{"https://example.com/Stories/three_words_here", true},
		{"https://example.com/blog/", false},                   // the blog's front page
		{"https://example.com/blog/page/2", false},             // a page of it
		{"https://example.com/blog/category/desk-tips", false}, // two words: a category, a tag
		{"https://example.com/blog/tag/home-office-desk-setups", false},
		{"https://example.com/how-to-set-up-a-desk", false}, // no section says it is a post
		{"https://example.com/products/standing-desk-pro-max", false},
		{"https://example.com/news-and-events/more-about-us", false},
		{"https://example.com/blog/two-words", false}, // a section of the blog, or a short post
		{"https://example.com/blog/author/jane-doe-smith", false},
		{"https://example.com/news/topics/sea-walls-and-tides", false},
		{"https://example.com/blog/archive/2024-in-review", false},
		{"https://shop.example/blogs/news/tagged/care-and-cleaning-guides", false},
		// Help centres file their guides as articles: documentation, by
		// its host or by its path.
		{"https://support.example.com/hc/en-us/articles/360001234567-How-to-set-up-single-sign-on", false},
		{"https://example.com/hc/en-us/articles/360001234567-how-to-set-up-sso", false},
		{"https://example.intercom.help/en/articles/1234-how-to-invite-your-team", false},
		{"https://docs.example.com/article/123-how-to-do-it", false},
		{"https://example.com/help/articles/how-to-reset-a-password", false},
		// A developers' site's blog is a blog.
		{"https://developer.example.com/blog/how-we-built-the-new-renderer", true},
		{"https://developers.example.com/articles/2024/05/01/faster-builds-with-caches", true},
		{"", false},
	} {
		u, _ := url.Parse(c.url)
		if got := postURL(u); got != c.want {
			t.Errorf("postURL(%q) = %v, want %v", c.url, got, c.want)
		}
	}
	if postURL(nil) {
		t.Error("postURL(nil) = true")
	}
}

// A help centre's page, at an address that files it among articles: its
// table of links to other guides and its screenshots are what it says,
// not an article's clutter.
func TestHelpCentrePageIsNoPost(t *testing.T) {
	page := `<html><head><title>Setting up SSO</title></head><body><main><article><h1>Setting up SSO</h1><p>` + revSentences("Single sign-on", 3) + `</p>` +
		`<h2>Supported providers</h2><table><tr><th>Provider</th><th>Guide</th></tr>` +
		`<tr><td><a href="/hc/en-us/articles/1-okta">Okta</a></td><td><a href="/hc/en-us/articles/1-okta">Okta SSO guide</a></td></tr>` +
		`<tr><td><a href="/hc/en-us/articles/2-azure">Azure AD</a></td><td><a href="/hc/en-us/articles/2-azure">Azure AD SSO guide</a></td></tr>` +
		`<tr><td><a href="/hc/en-us/articles/3-google">Google</a></td><td>Use SAML settings</td></tr></table>` +
		`<h2>Steps</h2><div class="steps"><p>Open Admin.</p><img src="/s1.png" alt="Admin"><img src="/s2.png" alt="Security"><img src="/s3.png" alt="SSO tab"></div><p>` +
		revSentences("Configure", 4) + `</p></article></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://support.example.com/hc/en-us/articles/360001234567-How-to-set-up-single-sign-on"})
	if err != nil {
		t.Fatal(err)
	}
	wantAll(t, "help centre", doc.Markdown, "Okta SSO guide", "SSO tab", "Configure goes on")
}
