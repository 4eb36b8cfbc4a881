//go:build heedpdf

// heed's PDF reader in TestPDFDev. The build tag keeps the bench module
// building on branches that do not have internal/document/pdf yet: drop
// it once the reader is on main.
//
//	go -C bench test -tags heedpdf -run TestPDFDev -v

package bench

import (
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf"
)

func init() {
	pdfExtractors = append(pdfExtractors, pdfExtractor{name: "heed", markdown: true, run: func(raw []byte, _ string) (string, error) {
		doc, err := pdf.Read(raw, extract.Options{})
		if err != nil {
			return "", err
		}
		return doc.Markdown, nil
	}})
}
