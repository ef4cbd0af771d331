package search

import (
	"bytes"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/schema"
)

// matcher is the match of records of topic: Match on the bytes when its
// value has no codec (or nothing asks for one), else on its decoded form.
// A record is decoded only when a criterion reads the decoded value, and
// once: the field terms alone go through schema.NewMatcher (a codec's own
// way of finding a field, where it has one), the value criteria and the
// field terms together through one Decode. Before either, a value whose
// bytes lack a literal that every match holds (schema.Literal) is passed
// over undecoded.
func (s *Spec) matcher(topic string) (func(*consumer.Record) bool, error) {
	codec := s.Schemas.Topic(topic).Value.Codec
	valueText := len(s.ValueContains) > 0 || s.ValueRegex != nil
	var lits [][]byte
	if codec != nil {
		lits = s.literals(codec)
	}
	switch {
	case len(s.Fields) > 0 && codec == nil:
		// A field term cannot match a value without a schema.
		return func(*consumer.Record) bool { return false }, nil
	case codec == nil || (!valueText && len(s.Fields) == 0):
		return s.Match, nil
	case !valueText:
		ms := make([]schema.Matcher, len(s.Fields))
		for i, f := range s.Fields {
			m, err := schema.NewMatcher(codec, f)
			if err != nil {
				return nil, err
			}
			ms[i] = m
		}
		return func(r *consumer.Record) bool {
			if !holds(r.Value, lits) || !s.match(r, r.Value) {
				return false
			}
			for _, m := range ms {
				if ok, err := m.Match(r.Value); err != nil || !ok {
					return false
				}
			}
			return true
		}, nil
	}
	return func(r *consumer.Record) bool {
		if !holds(r.Value, lits) {
			return false
		}
		if r.Value == nil {
			return len(s.Fields) == 0 && s.match(r, nil)
		}
		doc, err := codec.Decode(r.Value)
		if err != nil {
			// It does not decode: the value criteria see its bytes, and
			// no field can match.
			return len(s.Fields) == 0 && s.match(r, r.Value)
		}
		if !s.match(r, doc) {
			return false
		}
		for _, f := range s.Fields {
			if ok, err := f.MatchJSON(doc); err != nil || !ok {
				return false
			}
		}
		return true
	}, nil
}

// literals are the bytes every value matching the spec's value text and
// field terms holds verbatim, as far as codec vouches for them: a term's
// value is in the decoded document as JSON writes it.
func (s *Spec) literals(codec schema.Codec) [][]byte {
	var lits [][]byte
	if l := schema.Literal(codec, s.ValueContains); l != nil {
		lits = append(lits, l)
	}
	for _, f := range s.Fields {
		if l := schema.Literal(codec, schema.JSONStringContent(f.Value)); l != nil {
			lits = append(lits, l)
		}
	}
	return lits
}

// holds reports whether v contains every literal.
func holds(v []byte, lits [][]byte) bool {
	for _, l := range lits {
		if !bytes.Contains(v, l) {
			return false
		}
	}
	return true
}
