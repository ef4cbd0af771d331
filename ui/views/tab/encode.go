package tab

import (
	"fmt"

	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
)

// EncodeJSON encodes doc, the JSON a form's value or body expands to
// (templates expanded), with c, the value codec of the topic's or queue's
// decode rule (issue 25): the publish form and the queue put form encode
// alike. JSON that does not fit is an error naming the schema and, through
// the codec, the field. An empty encoding is an empty value, never nil (a
// null value).
func EncodeJSON(c schema.Codec, doc []byte) ([]byte, error) {
	b, err := c.Encode(doc)
	if err != nil {
		return nil, fmt.Errorf("does not fit %s: %w", c.Name(), err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// EncodedWith is how a form's preview says what encodes its JSON.
func EncodedWith(c schema.Codec) string { return "the JSON, with " + common.S(c.Name()) }
