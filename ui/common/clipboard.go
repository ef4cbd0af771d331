package common

import tea "charm.land/bubbletea/v2"

// ClipboardMax bounds an OSC 52 copy (terminals cap the sequence).
const ClipboardMax = 1 << 20

// CopyToClipboard puts text on the terminal's clipboard (OSC 52) and
// flashes what was copied, with its size. A text over ClipboardMax is not
// sent: the error flash names it (tooLarge, e.g. "the value of P3@1234
// is"), its size and the bound, then advice ("" or " (w saves …)").
func CopyToClipboard(text, copied, tooLarge, advice string) tea.Cmd {
	size := Bytes(int64(len(text)))
	if len(text) > ClipboardMax {
		return Flash(LevelError, tooLarge+" "+size+"; OSC 52 copies at most "+Bytes(ClipboardMax)+advice)
	}
	return tea.Batch(tea.SetClipboard(text), Flash(LevelOK, "copied "+copied+" ("+size+") to the clipboard (OSC 52)"))
}
