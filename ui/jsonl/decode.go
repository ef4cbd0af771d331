package jsonl

import "ilinkdash/ilink/schema"

// Decode sets r's decoded key and value with the schemas of p (the pair
// matching r's topic or queue): a side whose codec decodes gets its JSON
// document, one that does not its error; a null side, or one without a
// codec, is left alone (a codec that decodes to nothing without an error
// still counts as decoded). It reports whether any side had a codec.
func (r *Record) Decode(p schema.Pair) bool {
	r.KeyDecoded, r.KeyError = decodeSide(p.Key.Codec, r.Key)
	r.ValueDecoded, r.ValueError = decodeSide(p.Value.Codec, r.Value)
	return p.Decodes()
}

func decodeSide(c schema.Codec, b []byte) ([]byte, string) {
	if c == nil || b == nil {
		return nil, ""
	}
	doc, err := c.Decode(b)
	if err != nil {
		return nil, err.Error()
	}
	if doc == nil {
		doc = []byte{} // decoded to nothing, without an error: still decoded
	}
	return doc, ""
}
