package azhttp

import (
	"bytes"
	"encoding/xml"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// MaxXMLDepth bounds how deeply the elements of a request document may
// nest. Azure's documents go five levels deep at most; a deeper one is
// an attack on the parser (Go's skips unknown elements without a bound)
// and is refused.
const MaxXMLDepth = 64

var (
	errXMLDTD   = azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. (DTDs are not allowed)")
	errXMLDepth = azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. (Elements nest more than %d deep)", MaxXMLDepth)
)

// CheckXML refuses, with 400 InvalidXmlDocument, a request document that
// declares a DTD (or any other <!...> directive) or nests too deeply.
// Go's decoder never fetches an external entity and never expands one it
// was not given (an undefined entity is a syntax error), but it skips a
// DOCTYPE silently; Azure's parsers prohibit DTDs outright, so such a
// document is refused, not half-read. Syntax errors are left to the
// decode that follows. A document with no "<!" and fewer tags than the
// depth bound — nearly every one — costs two scans and no parse.
func CheckXML(body []byte) error {
	if !bytes.Contains(body, []byte("<!")) && bytes.Count(body, []byte("<")) <= MaxXMLDepth {
		return nil
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	depth := 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			return nil
		}
		switch tok.(type) {
		case xml.Directive:
			return errXMLDTD
		case xml.StartElement:
			if depth++; depth > MaxXMLDepth {
				return errXMLDepth
			}
		case xml.EndElement:
			depth--
		}
	}
}
