package extract

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShopListingKeepsPrices: a shop's listing, as WooCommerce
// writes it, is its products with their sizes and prices. The block model
// leaves out most of the price lines, and not all of them, so that the
// listing reads one way for some products and another for the rest.
func TestShopListingKeepsPrices(t *testing.T) {
	names := []string{"Glass Cup", "Travel Mug", "Tumbler", "Flask", "Coffee Cup", "Tea Cup", "Espresso Cup", "Water Bottle", "Lunch Box", "Straw Set", "Cup Sleeve", "Lid"}
	var items strings.Builder
	for i, name := range names {
		fmt.Fprintf(&items, `<li class="product type-product post-%d status-publish instock product_cat-cups has-post-thumbnail purchasable product-type-simple">`+
			`<a href="https://shop.example/product/p%d/" class="woocommerce-LoopProduct-link woocommerce-loop-product__link"><img src="/i/%d.jpg" alt="" width="400" height="550">`+
			`<h2 class="woocommerce-loop-product__title">%s</h2><div class="product_size_price"><span class="cup-size">S • %dml</span> `+
			`<span class="price"><span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">$</span>%d.95</bdi></span></span></div></a>`+
			`<a href="?add-to-cart=%d" class="button add_to_cart_button">Add to cart</a></li>`+"\n", 1000+i, i, i, name, 100+20*i, 20+i, i)
	}
	page := `<html><head><title>Shop</title></head><body class="archive post-type-archive-product woocommerce">` +
		`<header class="site-header"><nav><a href="/">Home</a> <a href="/shop/">Shop</a></nav></header>` +
		`<main id="main" class="site-main"><header class="woocommerce-products-header"><h1 class="page-title">Shop</h1></header>` +
		`<p class="woocommerce-result-count">Showing all 12 results</p><ul class="products columns-4">` + items.String() + `</ul></main>` +
		`<footer class="site-footer"><p>Shop Ltd</p></footer></body></html>`
	md := extractMarkdown(t, page, "https://shop.example/shop/")
	var missing []string
	for i := range names {
		if price := fmt.Sprintf("$%d.95", 20+i); !strings.Contains(md, price) {
			missing = append(missing, price)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d prices left out (%s):\n%s", len(missing), len(names), strings.Join(missing, " "), md)
	}
}

// TestReadMoreNotDoubled: a story shows its opening paragraph and
// keeps the whole text, opening paragraph and all, in a panel its "Read
// more" button opens. Showing the panel beside the excerpt writes the
// opening paragraph twice.
func TestReadMoreNotDoubled(t *testing.T) {
	first := strings.Repeat("The first paragraph of the long story begins here and sets the scene. ", 2)
	var more strings.Builder
	for _, who := range []string{"the mayor", "the builders", "the river authority", "the town's school"} {
		fmt.Fprintf(&more, "<p>More of the story follows, with details of what %s did and when, and why it mattered to the town that spring.</p>", who)
	}
	page := `<html><body><main><h1>Story</h1><div class="excerpt"><p>` + first + `</p></div>` +
		`<button aria-controls="full" aria-expanded="false">Read more</button>` +
		`<div id="full" hidden><p>` + first + `</p>` + more.String() + `</div></main></body></html>`
	md := extractMarkdown(t, page, "https://paper.example/story")
	if !strings.Contains(md, "what the builders did") {
		t.Errorf("the rest of the story is missing:\n%s", md)
	}
	if n := strings.Count(md, "begins here and sets the scene. The first"); n != 1 {
		t.Errorf("the opening paragraph is written %d times:\n%s", n, md)
	}
}

// TestWriteModelKeepsThresholds: the generated model must split
// where the trained one did. A split's threshold is one of the values the
// training blocks take (a quantile), and a block at it goes left; written
// with six significant digits, a threshold rounded down sends those
// blocks right. On the tune half, 769 of 92,580 blocks change side of
// blockThreshold between the trained trees and blockmodel.go.
func TestWriteModelKeepsThresholds(t *testing.T) {
	cut := math.Log1p(3) // fLetters of a block of three letters
	trees := []treeNode{
		{feature: fLetters, threshold: cut, left: 1, right: 2},
		{leaf: true, value: -1},
		{leaf: true, value: 1},
	}
	src := string(writeModel(trees))
	m := regexp.MustCompile(`threshold: ([^,]+),`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no threshold in:\n%s", src)
	}
	got, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	if got != cut {
		var x [nFeatures]float64
		x[fLetters] = cut
		trained := walkTree(trees, 0, &x)
		written := walkTree([]treeNode{{feature: fLetters, threshold: got, left: 1, right: 2}, trees[1], trees[2]}, 0, &x)
		t.Errorf("threshold %v written as %s: a block at it scores %v trained, %v as written", cut, m[1], trained, written)
	}
}
