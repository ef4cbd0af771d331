package ui

import "ilinkdash/ui/sanitize"

// Sanitize turns untrusted bytes from the network (record keys, values,
// headers, names, error texts) into single-line text that is safe to show
// on a terminal: escape sequences (CSI, OSC — terminated or not —, DCS,
// APC, PM, SOS), C0 and C1 controls, bidi overrides and isolates,
// zero-width and other format characters become visible inert glyphs
// (␛, ␇, \u202e, \x9b…), invalid UTF-8 bytes show as \xNN, binary values
// are shown in escaped form. The full policy is documented in package
// ui/sanitize, which holds the implementation (so the views and the
// headless commands share it without importing the dashboard).
func Sanitize(b []byte) string { return sanitize.Bytes(b) }

// SanitizeString is Sanitize for a string.
func SanitizeString(s string) string { return sanitize.String(s) }

// SanitizeMultiline is Sanitize keeping line feeds (detail panes).
func SanitizeMultiline(b []byte) string { return sanitize.Multiline(b) }

// TruncateWidth truncates sanitized text to at most w terminal cells,
// never splitting a rune and accounting for wide runes; it ends with "…"
// when something was cut.
func TruncateWidth(s string, w int) string { return sanitize.Truncate(s, w) }
