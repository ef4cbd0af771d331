package views

import "ilinkdash/ilink/jsonl"

// The tail's JSON lines format is package ilink/jsonl, shared with `tail
// --format json`, `search -o json` and `publish --from-jsonl`.

// AppendTailJSON appends r as one JSON lines record (jsonl.Append).
func AppendTailJSON(dst []byte, r *TailRecord) []byte { return jsonl.Append(dst, r) }

// ParseTailJSON decodes one JSON lines record (jsonl.Parse).
func ParseTailJSON(line []byte) (TailRecord, error) { return jsonl.Parse(line) }

const hexLower = "0123456789abcdef"
