package queues

import (
	"bytes"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
)

// Decoding (issue 25): the bodies of a queue whose decode rule
// (schema.Set.Queue) gives its values a codec are decoded in the command
// that reads a page (never in Update or View), kept with the page, by
// message id, and counted in the window's bytes; the detail then offers
// the decoded format (the default), the table's BODY shows the decoded
// document (a body that does not decode its error and its bytes in hex),
// and the search finds text in the decoded document too.

// decodedPage is the decoded bodies of a page, by message id.
type decodedPage map[string]components.Decoded

// decodePage decodes the bodies of msgs with codec (nil: none).
func decodePage(codec schema.Codec, msgs []admin.QueueMessage) decodedPage {
	if codec == nil || len(msgs) == 0 {
		return nil
	}
	out := make(decodedPage, len(msgs))
	for _, m := range msgs {
		if m.Payload == nil {
			continue
		}
		d := components.Decoded{Schema: codec.Name()}
		if doc, err := codec.Decode(m.Payload); err != nil {
			d.Err = err.Error()
		} else {
			d.Doc = doc
			if d.Doc == nil {
				d.Doc = []byte{}
			}
		}
		out[string(m.ID)] = d
	}
	return out
}

// size is what the decoded bodies add to the window's bytes.
func (p decodedPage) size() (n int) {
	for _, d := range p {
		n += len(d.Doc) + len(d.Err)
	}
	return n
}

// codec is the value codec of the queue shown (nil: none).
func (v *View) codec(name string) schema.Codec { return v.Ctx.Schemas.Queue(name).Value.Codec }

// decoded is m's body as its schema decoded it (the zero Decoded when the
// queue has no codec).
func (d *queueDetail) decoded(m admin.QueueMessage) components.Decoded {
	if d.search != nil {
		return d.search.dec[string(m.ID)]
	}
	for _, p := range d.win.pages {
		if dec, ok := p.dec[string(m.ID)]; ok {
			return dec
		}
	}
	return components.Decoded{}
}

// bodyCell is the BODY column of m: the decoded document in the decoded
// format, else the bytes.
func (d *queueDetail) bodyCell(m admin.QueueMessage) string {
	if d.format == components.FormatDecoded {
		switch dec := d.decoded(m); {
		case dec.Doc != nil:
			return sanitize.Truncate(sanitize.Bytes(dec.Doc), 200)
		case dec.Err != "":
			return components.Failed(dec.Err, m.Payload)
		}
	}
	return sanitize.Truncate(sanitize.Bytes(m.Payload), 200)
}

// decodedMatches says whether needle (lower case) is in m's decoded body.
func decodedMatches(dec components.Decoded, needle []byte) bool {
	return dec.Doc != nil && bytes.Contains(bytes.ToLower(dec.Doc), needle)
}

// refreshCells makes the table's cells again (the BODY column follows
// the format).
func (d *queueDetail) refreshCells() {
	if d.search != nil {
		d.msgs.SetItems(d.search.matches)
		return
	}
	d.showWindow()
}
