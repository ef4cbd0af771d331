package config

import "ilinkdash/ilink/topicrules"

// ParseBytes reads a byte count by the one size rule of the dashboard, the
// CLI and the engine (topicrules.ParseSize): a whole number, optionally
// with B, k/KiB, m/MiB, g/GiB or t/TiB, all binary ("16MiB" = "16m").
func ParseBytes(s string) (int64, error) { return topicrules.ParseSize(s) }

// FormatBytes writes n in the largest binary unit that divides it
// ("16MiB"), the form ParseBytes reads.
func FormatBytes(n int64) string { return topicrules.FormatSize(n) }
