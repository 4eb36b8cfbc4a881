package extract

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	if hasWord(t, boilerplateWords) || exactBoilerplateWords()[token] {
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
	k := s.classKinds(class, id)
	if k&(negativeWord|boilerplateWord) != 0 {
		// What calls it chrome may be the name of its heading.
		if c, i := s.classID(n); c != class || i != id {
			k = s.classKinds(c, i)
		}
	}
	if s.elemKinds == nil {
		s.elemKinds = map[*html.Node]wordKind{}
	}
	s.elemKinds[n] = k
	return k
}

// classKinds is what the words of a class and id are.
func (s *selector) classKinds(class, id string) wordKind {
	if class == "" && id == "" {
		return 0
	}
	key := classKey{class, id}
	k, ok := classKinds.get(key)
	if !ok {
		k = s.kinds(splitClass(class, id))
		classKinds.put(key, k)
	}
	return k
}

// classID is an element's class and id, less an id named after the
// heading the element opens with (namedAfter). Documentation generators
// name each heading, or the section it opens, after the heading's text
// (Sphinx's section "related-topics" titled "Related topics", docutils'
// numbered ones, MkDocs', mdBook's and rustdoc's headings, asciidoc's
// "_comments"): such a name says what the section is about, not that it
// is a page's chrome. A heading named after itself is never chrome; a
// section is taken at its name when the page names its sections so
// (systematicNames) and it stands among sections so named
// (amongSections), since a shop's "Reviews" section, or a site's "Most
// popular" or "Newsletter" box, may be named after its heading too. Generators name by
// id; a class word stays what it says, since a site's "related-posts"
// or "share" box is styled by the name of its heading.
func (s *selector) classID(n *html.Node) (class, id string) {
	class, id = attr(n, "class"), attr(n, "id")
	if _, ok := s.namedTitle(n); ok && (isHeading(n) || s.namedTitles >= systematicNames && s.amongSections(n)) {
		id = ""
	}
	return class, id
}

// amongSections reports whether a section named after its heading is one
// of a document's sections, as a generator nests them: within a section
// so named, beside another, or holding one. A site's box named after its
// label ("newsletter", "related-posts") stands among paragraphs.
func (s *selector) amongSections(n *html.Node) bool {
	if s.namedKids[n] > 0 {
		return true
	}
	p := n.Parent
	if p == nil {
		return false
	}
	if s.namedKids[p] >= 2 {
		return true
	}
	_, ok := s.namedTitle(p)
	return ok && !isHeading(p)
}

// systematicNames is how many headings a page names (each itself, or the
// section it opens) for it to name its sections after their headings, as
// generators do, rather than name one box after its label.
const systematicNames = 3

// namedTitle returns the names of the heading an element opens with
// (titleNames), if its id is named after it.
func (s *selector) namedTitle(n *html.Node) ([2]string, bool) {
	st := s.stats[n]
	if st == nil || st.title == nil {
		return [2]string{}, false
	}
	id := attr(n, "id")
	if id == "" {
		return [2]string{}, false
	}
	title := s.titleNames(st.title)
	if title[0] == "" {
		return title, false
	}
	return title, namedAfter(id, title)
}

// countNamed counts the headings under body that are named, each itself
// or the section it opens (namedTitle), and the sections so named that
// each element holds as children: once, after measure and before any
// class is read.
func (s *selector) countNamed(body *html.Node) {
	s.namedTitles = 0
	s.namedKids = map[*html.Node]int{}
	seen := map[*html.Node]bool{}
	for n := range descendants(body) {
		if n.Type != html.ElementNode {
			continue
		}
		if _, ok := s.namedTitle(n); ok {
			if !isHeading(n) && n.Parent != nil {
				s.namedKids[n.Parent]++
			}
			if !seen[s.stats[n].title] {
				seen[s.stats[n].title] = true
				s.namedTitles++
			}
		}
	}
}

// titleNames are the names a heading's text makes (nameKey): of all of
// it, and of it without the section number a generator put before it
// ("5.1. Usage", docutils' "4\u00a0\u00a0\u00a0License"), which the
// generator's id leaves out. They are read once per heading and no
// further than a name runs; "" when the text is longer.
func (s *selector) titleNames(h *html.Node) [2]string {
	if t, ok := s.titles[h]; ok {
		return t
	}
	var names [2]string
	if t, ok := boundedText(h, maxTitleName); ok {
		names[0] = nameKey(t)
		if rest, ok := cutSectionNumber(t); ok {
			names[1] = nameKey(rest)
		}
	}
	if s.titles == nil {
		s.titles = map[*html.Node][2]string{}
	}
	s.titles[h] = names
	return names
}

// maxTitleName is the most of a heading's text read to name it.
const maxTitleName = 256

// cutSectionNumber returns a heading's text after the number of its
// section, if it opens with one: dotted ("5.1", "5.", "5.1.2.") or
// bound to the title by no-break spaces, as generators number sections.
// "3 Comments" counts comments and keeps its number.
func cutSectionNumber(t string) (string, bool) {
	t = strings.TrimLeft(t, " \t\n\r")
	i, dots := 0, 0
	for i < len(t) && ('0' <= t[i] && t[i] <= '9' || t[i] == '.' && i > 0) {
		if t[i] == '.' {
			dots++
		}
		i++
	}
	if i == 0 {
		return "", false
	}
	rest := t[i:]
	if dots == 0 && !strings.HasPrefix(rest, "\u00a0") {
		return "", false
	}
	return rest, true
}

// nameKey is a name or a heading's text without case and separators:
// its letters and digits, lower case, so that "related-topics",
// "related_topics" and "Related topics" are one.
func nameKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// namedAfter reports whether an id is a heading's text made
// a name (titleNames), itself or with a number after it that tells apart
// sections of one title ("recommendation-1").
func namedAfter(name string, title [2]string) bool {
	if name == "" || len(name) > 2*maxTitleName {
		return false
	}
	same := func(name string) bool {
		return keyIs(name, title[0]) || title[1] != "" && keyIs(name, title[1])
	}
	if same(name) {
		return true
	}
	i := strings.LastIndexAny(name, "-_")
	return i > 0 && i < len(name)-1 && strings.Trim(name[i+1:], "0123456789") == "" && same(name[:i])
}

// keyIs reports whether nameKey(name) is key, without making it.
func keyIs(name, key string) bool {
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		k, size := utf8.DecodeRuneInString(key)
		if size == 0 || k != unicode.ToLower(r) {
			return false
		}
		key = key[size:]
	}
	return key == ""
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
	exactBoilerplateWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"caption": true, "credit": true, "credits": true, "avatar": true,
			"byline": true, "reviews": true, "usertitle": true, "userstats": true,
		}
	})
	// pictureWords mark what goes with a picture: the picture itself stays.
	pictureWords = sync.OnceValue(func() map[string]bool { return map[string]bool{"caption": true, "credit": true, "credits": true} })
)

// classTokens splits an element's class and id into lower-case words,
// leaving out utility classes that style an element rather than name it
// (see utilityClass).
func classTokens(n *html.Node) []string {
	return splitClass(attr(n, "class"), attr(n, "id"))
}

// tokens are an element's class words (classTokens), less those of an
// id taken from its heading (classID).
func (s *selector) tokens(n *html.Node) []string {
	return splitClass(s.classID(n))
}

// splitClass splits a class and id into lower-case words, as classTokens
// says.
func splitClass(class, id string) []string {
	if class == "" && id == "" {
		return nil
	}
	if strings.Contains(class, "hentry") || strings.Contains(class, "status-publish") {
		class = dropTaxonomy(class)
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
	words := strings.FieldsFunc(strings.ToLower(class+" "+id), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	// A page builder's every element is a widget of it ("elementor-widget
	// elementor-widget-text-editor"): a paragraph, a heading, the post's
	// content. The word says what built it, not that it is chrome.
	out := words[:0]
	for i, w := range words {
		if w == "widget" && i > 0 && words[i-1] == "elementor" {
			continue
		}
		out = append(out, w)
	}
	return out
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

// hasClass reports whether n's class attribute holds one of names, as a
// class of its own, letter for letter.
func hasClass(n *html.Node, names ...string) bool {
	for c := range strings.FieldsSeq(attr(n, "class")) {
		if slices.Contains(names, c) {
			return true
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

// dropTaxonomy leaves out of a post's classes those that say what the
// post is filed under: WordPress's post_class gives a post's wrapper
// "category-<slug>" and "tag-<slug>" beside "hentry" and
// "status-publish", and a post filed under "reviews" or "social-media"
// is not a box of reviews or of share buttons.
func dropTaxonomy(class string) string {
	fields := strings.Fields(class)
	post := false
	for _, c := range fields {
		if c == "hentry" || c == "status-publish" {
			post = true
		}
	}
	if !post {
		return class
	}
	kept := fields[:0]
	for _, c := range fields {
		if !strings.HasPrefix(c, "category-") && !strings.HasPrefix(c, "tag-") {
			kept = append(kept, c)
		}
	}
	return strings.Join(kept, " ")
}
