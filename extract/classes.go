package extract

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/html"
)

// wordKind says which word lists a class token belongs to (hasWord).
type wordKind uint8

const (
	negativeWord wordKind = 1 << iota
	positiveWord
	boilerplateWord
	knownWord // the token was looked up
)

// kind is what a class token is, remembered: pages repeat their classes.
func (s *selector) kind(token string) wordKind {
	if k, ok := s.words[token]; ok {
		return k
	}
	k := knownWord
	t := []string{token}
	if hasWord(t, negativeWords) {
		k |= negativeWord
	}
	if hasWord(t, positiveWords) {
		k |= positiveWord
	}
	if hasWord(t, boilerplateWords) || exactBoilerplateWords[token] {
		k |= boilerplateWord
	}
	if s.words == nil {
		s.words = map[string]wordKind{}
	}
	s.words[token] = k
	return k
}

// nodeKinds is what any of an element's class and id words are,
// remembered per element: scoring, cleaning and rendering all ask.
func (s *selector) nodeKinds(n *html.Node) wordKind {
	class, id := attr(n, "class"), attr(n, "id")
	if class == "" && id == "" {
		return 0
	}
	if k, ok := s.elemKinds[n]; ok {
		return k
	}
	key := classKey{class, id}
	k, ok := classKinds.get(key)
	if !ok {
		k = s.kinds(classTokens(n))
		classKinds.put(key, k)
	}
	if s.elemKinds == nil {
		s.elemKinds = map[*html.Node]wordKind{}
	}
	s.elemKinds[n] = k
	return k
}

// classKey is an element's class and id attributes.
type classKey struct{ class, id string }

// classCache remembers what the words of a class and id are, across
// pages: a site's pages share their classes, and splitting and looking up
// each element's words is much of extraction's work otherwise. It holds at
// most maxClassKeys, and is emptied when full.
type classCache struct {
	mu sync.RWMutex
	m  map[classKey]wordKind
}

const maxClassKeys = 1 << 14

var classKinds classCache

func (c *classCache) get(k classKey) (wordKind, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

func (c *classCache) put(k classKey, v wordKind) {
	if len(k.class)+len(k.id) > 256 {
		return // a long class list is seldom seen twice, and would cost memory
	}
	// The page's strings are slices of the page: copies, so as not to
	// keep whole pages alive.
	k = classKey{strings.Clone(k.class), strings.Clone(k.id)}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxClassKeys {
		c.m = make(map[classKey]wordKind)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// kinds is what any of an element's class tokens are.
func (s *selector) kinds(tokens []string) wordKind {
	var k wordKind
	for _, t := range tokens {
		k |= s.kind(t)
	}
	return k
}

var (
	negativeWords = []string{
		"ad", "ads", "advert", "banner", "breadcrumb", "byline", "combx", "comment", "community",
		"consent", "cookie", "disqus", "footer", "gdpr", "header", "hidden", "menu", "meta", "modal",
		"nav", "navbar", "newsletter", "outbrain", "pager", "pagination", "popup", "promo", "related",
		"remark", "rss", "share", "sharing", "shoutbox", "sidebar", "skyscraper", "social", "sponsor",
		"subscribe", "tags", "taboola", "toolbar", "widget", "masthead", "signup", "login", "recommend",
		"trending", "popular", "toc", "footnote", "copyright", "legal",
	}
	positiveWords = []string{
		"article", "body", "blog", "content", "entry", "hentry", "main", "page", "post", "prose",
		"story", "text", "markdown", "docs", "documentation", "e-content", "rich",
	}
	// boilerplateWords mark an element as boilerplate when it is also short
	// or mostly links (see softBoilerplate).
	boilerplateWords = []string{
		"advert", "ad", "ads", "banner", "breadcrumb", "comment", "comments", "consent", "cookie",
		"disqus", "gdpr", "newsletter", "outbrain", "popup", "modal", "promo", "related", "share",
		"sharing", "sidebar", "signup", "social", "sponsor", "sponsored", "subscribe", "taboola",
		"recommended", "trending", "popular", "skip", "toolbar", "widget", "pagination", "pager", "navigation",
		"menu", "footer", "masthead", "topbar", "navbar",
	}
	// exactBoilerplateWords mark boilerplate as boilerplateWords do, but
	// only as whole class words: "reviews" is not "previews".
	exactBoilerplateWords = map[string]bool{
		"caption": true, "credit": true, "credits": true, "avatar": true,
		"byline": true, "reviews": true,
	}
	// pictureWords mark what goes with a picture: the picture itself stays.
	pictureWords = map[string]bool{"caption": true, "credit": true, "credits": true}
)

// classTokens splits an element's class and id into lower-case words,
// leaving out utility classes that style an element rather than name it
// (see utilityClass).
func classTokens(n *html.Node) []string {
	class, id := attr(n, "class"), attr(n, "id")
	if class == "" && id == "" {
		return nil
	}
	if strings.ContainsAny(class, ":[") || strings.Contains(class, "overflow-") {
		// A hiding word beside variants is undone by them, or the element
		// is not shown at all ("hidden md:block"): a utility too.
		var kept []string
		for _, c := range strings.Fields(class) {
			if !utilityClass(c) && hiddenClass(lowerASCII(c)) == notHidden {
				kept = append(kept, c)
			}
		}
		class = strings.Join(kept, " ")
	}
	return strings.FieldsFunc(strings.ToLower(class+" "+id), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
}

// utilityClass reports whether a class word is a CSS utility that says how
// an element looks, not what it is: a variant or arbitrary value of a
// utility framework ("md:flex", "min-h-[150px]"), or overflow clipping
// ("overflow-hidden"), whose words would read as a hidden element.
func utilityClass(c string) bool {
	return strings.ContainsAny(c, ":[") || strings.HasPrefix(c, "overflow-")
}

// hasWord reports whether a token is one of words, starts with one of
// more than three letters, or holds one of more than six ("topcomments").
func hasWord(tokens, words []string) bool {
	for _, t := range tokens {
		for _, w := range words {
			if t == w || len(w) > 3 && strings.HasPrefix(t, w) || len(w) > 6 && strings.Contains(t, w) {
				return true
			}
		}
	}
	return false
}

// classWords are an element's class words, lower case, without digits
// ("post-12" is "post-").
func classWords(n *html.Node) []string {
	var words []string
	for f := range strings.FieldsSeq(attr(n, "class")) {
		words = append(words, strings.Map(func(r rune) rune {
			if '0' <= r && r <= '9' {
				return -1
			}
			return unicode.ToLower(r)
		}, f))
	}
	return words
}

func sharesWord(a, b []string) bool {
	for _, w := range a {
		if slices.Contains(b, w) {
			return true
		}
	}
	return false
}
