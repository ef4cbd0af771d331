// Package numfmt is the one way counts are written for people, in the
// dashboard, the CLI and the health rules alike: exact with thousands
// separators (12,345; -1,234) and with their noun in agreement (1 topic,
// 3 redeliveries).
package numfmt

import (
	"strconv"
	"strings"
)

// Integer is any integer type a count comes in.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Thousands formats n exactly with comma grouping: 12,345,678, -1,234.
func Thousands[N Integer](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if len(s) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.WriteString(sign)
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Plural formats a count (with Thousands) and its noun, singular for
// exactly one: "1 topic", "0 topics", "3 redeliveries", "2 partitions".
// The plural adds "s", or turns a consonant's "y" into "ies"; nouns with
// another plural use PluralOf.
func Plural[N Integer](n N, noun string) string {
	return PluralOf(n, noun, PluralNoun(noun))
}

// PluralOf is Plural with an explicit plural form: PluralOf(n, "it", "them").
func PluralOf[N Integer](n N, one, many string) string {
	return Thousands(n) + " " + Agree(n, one, many)
}

// Agree returns one when n is exactly 1, else many; for the words that
// follow a count: "1 group needs attention", "2 groups need attention".
func Agree[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PluralNoun is the regular plural of an English noun (the last word of a
// phrase): entry → entries, day → days, partition → partitions.
func PluralNoun(noun string) string {
	if len(noun) >= 2 && strings.HasSuffix(noun, "y") && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])) {
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
