package consumer

import (
	"slices"
	"strings"
)

// systemPrefix starts the names of internal topics (spec T-10).
const systemPrefix = "SYSTEM."

// MatchPattern reports whether topic matches the glob pattern (ilink-spec
// §3.4): '*' matches any run of characters, the separator '.' included
// (spec T-13); '?' matches one character; every other character, '.'
// included, matches only itself (T-14). Internal topics, whose names start
// with "SYSTEM.", match only a pattern that itself starts with "SYSTEM."
// (T-15, T-16). A pattern without wildcards matches the one topic of that
// name under the same SYSTEM. rule.
func MatchPattern(pattern, topic string) bool {
	if strings.HasPrefix(topic, systemPrefix) && !strings.HasPrefix(pattern, systemPrefix) {
		return false
	}
	return globMatch(pattern, topic)
}

// IsPattern reports whether s holds a wildcard, i.e. names a pattern
// subscription rather than one topic (topic names cannot hold '*' or '?').
func IsPattern(s string) bool { return strings.ContainsAny(s, "*?") }

// globMatch matches with '*' and '?' by the classic linear backtracking
// over the last star, which never takes exponential time.
func globMatch(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]) && p[pi] != '*':
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			mark++
			si = mark
			pi = star + 1
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchTopics returns the topics that match pattern, sorted.
func matchTopics(pattern string, topics []string) []string {
	var out []string
	for _, t := range topics {
		if MatchPattern(pattern, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
