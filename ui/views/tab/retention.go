package tab

import (
	"strings"

	"ilinkdash/ilink/topicrules"
)

// Retention formats a topic's retention as the forms accept it, so the
// topic list, the config pane and the create dialog say the same: "7d",
// "36h", "forever", "30d/1GiB" (topicrules.FormatRetention, FormatSize).
func Retention(ms, bytes int64) string {
	var parts []string
	if ms > 0 {
		parts = append(parts, topicrules.FormatRetention(ms))
	}
	if bytes > 0 {
		parts = append(parts, topicrules.FormatSize(bytes))
	}
	if len(parts) == 0 {
		return "forever"
	}
	return strings.Join(parts, "/")
}
