package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestListingOfCards: a listing whose items are cards, each one link
// around its heading and description, is the page's content, ahead of a
// paragraph beside it: its text is read, not followed. In an article, the same cards after the story
// are teasers of other stories and stay out.
func TestListingOfCards(t *testing.T) {
	var cards strings.Builder
	for i, name := range []string{"Riverside", "Hilltop", "Lakeshore", "Old Mill", "Pine Ridge", "Cedar Hollow"} {
		fmt.Fprintf(&cards, `<div class="col"><a class="card" href="/trails/%d"><h3>%s Trail</h3><p>Difficulty: intermediate. Length: %d miles of singletrack through the woods, with two creek crossings.</p></a></div>`, i, name, i+3)
	}
	listing := `<html><head><title>Trails</title></head><body><header><nav><a href="/">Home</a> <a href="/trails">Trails</a> <a href="/join">Join</a></nav></header>
<div class="page"><h1>Trails</h1><p>Our volunteers build and keep these trails.</p><div class="grid">` + cards.String() + `</div></div>
<div class="about"><h2>About the club</h2><p>` + strings.Repeat("The club was founded in 1994 by riders who wanted trails close to the city, and it has grown since. ", 3) + `</p></div>
<footer><a href="/privacy">Privacy</a> <a href="/contact">Contact</a></footer></body></html>`
	doc, err := Extract(strings.NewReader(listing), Options{URL: "https://trails.example/trails/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Riverside Trail", "Pine Ridge Trail", "two creek crossings"} {
		if !strings.Contains(doc.Markdown, w) {
			t.Errorf("listing: no %q in:\n%s", w, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Privacy") {
		t.Errorf("listing: the footer kept:\n%s", doc.Markdown)
	}

	story := "<p>" + strings.Repeat("The county opened a new trail along the river on Saturday, after two years of volunteer work. ", 8) + "</p>"
	article := `<html><head><meta property="og:type" content="article"><title>New trail</title></head><body><article><h1>New trail</h1>` + story + story + `</article>
<section class="more"><h2>More stories</h2>` + cards.String() + `</section></body></html>`
	doc, err = Extract(strings.NewReader(article), Options{URL: "https://news.example/new-trail"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Markdown, "volunteer work") {
		t.Errorf("article: the story is missing:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "Riverside Trail") {
		t.Errorf("article: the teasers kept:\n%s", doc.Markdown)
	}
}

// TestTeaserPicturesAreNotText: a page that calls itself an article but
// is a topic's listing of stories, each a picture with its caption, a
// linked title and a linked teaser, keeps its stories' text. Cleaning an
// article takes the linked teasers for clutter; what is left is
// pictures, whose long addresses are not text a reader sees, so the
// cleaning took the content and the page is read whole.
func TestTeaserPicturesAreNotText(t *testing.T) {
	var items strings.Builder
	for i := range 8 {
		img := fmt.Sprintf("https://images.example/dims/crop/4983x2803+0+0/resize/700/quality/85/format/jpeg/?url=https%%3A%%2F%%2Fbucket.example%%2Fda%%2Fb1%%2F%032x.jpg", i)
		fmt.Fprintf(&items, `<article class="item"><div class="item-image"><a href="/story/%d"><img src="%s" alt="Picture %d"></a></div>
<div class="credit-caption"><p>The bay at low water in the spring of the year the study began, seen from the old pier. <b class="credit">Staff photographer</b></p></div>
<div class="item-info"><h2 class="title"><a href="/story/%d">Story number %d about the tides</a></h2>
<p class="teaser"><a href="/story/%d">Scientists measured the tides of the bay for twenty years and found the highest water %d hours after the moon.</a></p></div></article>`, i, img, i, i, i, i, i+2)
	}
	page := `<html><head><meta property="og:type" content="article"><title>Science</title></head><body><main><h1>Science</h1>` + items.String() + `</main></body></html>`
	md := extractMarkdown(t, page, "https://news.example/sections/science/")
	wantAll(t, "topic page", md, "Story number 0 about the tides", "highest water 9 hours", "Story number 7")
}

func TestShownLetters(t *testing.T) {
	for md, want := range map[string]int{
		"a b":                              2,
		"[link](https://example.com/x)":    5,
		"![alt](https://e.com/a_(b).png)!": 6,
		"[x](unclosed\nyz":                 4,
		"é\u00a0ü":                         2,
		// An escaped bracket ends no link; after an escaped backslash,
		// a bracket does.
		`\[[1](https://e.com/n)\](2019)`: 12,
		`[a\\](https://e.com/x)`:         4,
	} {
		if got := shownLetters(md); got != want {
			t.Errorf("shownLetters(%q) = %d, want %d", md, got, want)
		}
	}
}

// TestCardCaptionTitled: a shop's listing whose cards put their title,
// description and price in a "caption" beside the picture keeps them. A
// picture's caption is set apart; one with a heading is what the card
// says.
func TestCardCaptionTitled(t *testing.T) {
	var cards strings.Builder
	for i, name := range []string{"Gear bag, large", "Gear bag, small", "Cutlery roll", "Dining set", "Canopy shelf", "Water tank"} {
		fmt.Fprintf(&cards, `<li class="product"><div class="product-block"><div class="product-img-wrap"><a href="/p/%d"><img src="/img/%d.webp" alt="%s"></a></div>
<div class="product-caption"><div class="posted-in"><a href="/c/gear">Gear</a></div><h3 class="woocommerce-loop-product__title"><a href="/p/%d">%s</a></h3>
<div class="short-description">A sturdy bag for the trip, number %d.</div><span class="price">$%d.00</span>
<div class="add_to_cart"><a href="?add-to-cart=%d" class="button">Add to cart</a></div></div></div></li>`, i, i, name, i, name, i, 20+i, i)
	}
	page := `<html><head><title>Outdoor gear</title></head><body><header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header>
<main><h1>Outdoor gear</h1><p class="woocommerce-result-count">Showing 1–6 of 6 results</p><ul class="products columns-3">` + cards.String() + `</ul></main>
<footer><a href="/privacy">Privacy</a></footer></body></html>`
	md := extractMarkdown(t, page, "https://shop.example/gear/")
	wantAll(t, "shop listing", md, "Gear bag, large", "Water tank", "number 3", "$25.00")
}

// TestSiteCreditsTitledStayOut: a site's credits under a heading of
// their own are still the site's, not the page's.
func TestSiteCreditsTitledStayOut(t *testing.T) {
	body := strings.Repeat("The cottage sleeps four, with two bedrooms, a kitchen, a garden and a view of the bay, and the beach is a short walk away. ", 4)
	page := `<html><head><title>Sea cottage</title></head><body><div id="page">
<div id="content"><h1>Sea cottage</h1><p>` + body + `</p><p>Book by phone or by email; we answer within a day.</p></div>
<div id="credits"><h4>Credits</h4><p>Site by Pixel Agency. Photos by Sam Roe.</p></div>
</div></body></html>`
	md := extractMarkdown(t, page, "https://cottage.example/")
	if !strings.Contains(md, "sleeps four") || strings.Contains(md, "Pixel Agency") {
		t.Errorf("want the cottage without the site's credits:\n%s", md)
	}
}

// TestShopArchiveIsNoArticle: a WooCommerce product category that an SEO
// plugin calls an article is a listing still: its cards, each one link
// around the product's code, title and price, are its content, not
// teasers of other stories.
func TestShopArchiveIsNoArticle(t *testing.T) {
	var cards strings.Builder
	for i, name := range []string{"Quiet mower for small lawns", "Mower for half an acre", "Mower for three quarters of an acre", "Mower for an acre and more"} {
		fmt.Fprintf(&cards, `<div class="col-md-4 items-listing"><a href="/p/kr%d/" class="item-img-listing"><div class="box-sku"><h4 class="sku-code">KR16%d</h4></div><img src="/img/%d.png"><div class="item-title-listing"><h3>%s</h3><div class="price-wrap"><span class="price">$ %d,099.99</span></div></div></a></div>`, i, i, i, name, i+2)
	}
	page := `<html><head><meta property="og:type" content="article"><title>Robotic lawn mowers</title></head>
<body class="archive tax-product_cat term-robotic-lawn-mowers woocommerce woocommerce-page"><header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header>
<section id="site-content"><h1>Robotic lawn mowers</h1><p class="term-description">` + strings.Repeat("Our robotic mowers cut the grass quietly, every day, in rain or sun, and find their way back to the dock when the job is done. ", 3) + `</p><div class="row">` + cards.String() + `</div></section>
<footer><a href="/privacy">Privacy</a></footer></body></html>`
	md := extractMarkdown(t, page, "https://mowers.example/category/robotic/")
	wantAll(t, "product category", md, "Quiet mower for small lawns", "KR163", "$ 5,099.99")
}
