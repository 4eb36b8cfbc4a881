package extract
import ("testing";"bytes";"fmt";"os";"path/filepath";"strings")
func TestZZDbg(t *testing.T){
	for _, p := range docsPages(t) {
		if p.PageType != os.Getenv("G") { continue }
		raw, _ := p.HTML(docsDir)
		truth, _ := os.ReadFile(filepath.Join(docsDir, p.Truth))
		doc, _ := Extract(bytes.NewReader(raw), Options{URL: p.URL, ContentType: "text/html"})
		s := scoreDoc(p, string(truth), doc.Markdown)
		if os.Getenv("ID") != "" && p.ID == os.Getenv("ID") { fmt.Println(doc.Markdown); fmt.Println("HEADINGS", p.Headings) }
		fmt.Printf("%s f1=%.3f h=%d/%d c=%d/%d nav=%v\n", p.ID, s.f1, s.headingsOK, s.headings, s.codeFenced, s.code, s.nav)
		_ = strings.Contains
	}
}
