// heed's PDF reader in TestPDFDev:
//
//	go -C bench test -run TestPDFDev -v

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
