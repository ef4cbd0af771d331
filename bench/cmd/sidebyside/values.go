package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// poolSize is the number of pre-generated values. Records cycle through the
// pool, so value generation is not part of the measured work.
const poolSize = 8192

// idPrefix and idDigits describe the fixed-width header every value starts
// with: {"id":01234,  — the consumer parses the pool index back out of it to
// check that each consumed value is byte-for-byte a value that was produced.
const (
	idPrefix = `{"id":`
	idDigits = 5
	minSize  = len(idPrefix) + idDigits + 4 // header, comma, and room for a closing brace
)

// valuePool is the deterministic set of JSON-ish values both stacks send.
type valuePool struct {
	size   int
	values [poolSize][]byte
}

var (
	words  = []string{"click", "view", "purchase", "login", "logout", "search", "scroll", "share", "like", "add_to_cart"}
	paths  = []string{"/", "/home", "/cart", "/checkout", "/search", "/product/42", "/product/7", "/account", "/help", "/orders"}
	agents = []string{"ios", "android", "web", "desktop"}
	fields = []string{"user", "sess", "ev", "path", "agent", "ms", "ok", "ref", "region", "n"}
)

// newValuePool builds poolSize values of exactly size bytes. The content mixes
// a small vocabulary with random numbers, which gives a compression ratio of
// roughly 2-2.5 with lz4 on 100 B values (the ratio is measured and printed).
func newValuePool(size int) (*valuePool, error) {
	if size < minSize {
		return nil, fmt.Errorf("--size %d: want at least %d bytes", size, minSize)
	}
	p := &valuePool{size: size}
	rnd := rand.New(rand.NewPCG(0x1ee7, 0xbe7c4))
	for i := range p.values {
		var b bytes.Buffer
		b.Grow(size + 64)
		fmt.Fprintf(&b, "%s%0*d", idPrefix, idDigits, i)
		for k := 0; b.Len() < size-1; k++ {
			f := fields[(k+i)%len(fields)]
			b.WriteString(`,"`)
			b.WriteString(f)
			b.WriteString(`":`)
			switch k % 5 {
			case 0:
				b.WriteString(`"u-`)
				b.WriteString(strconv.Itoa(rnd.IntN(100000)))
				b.WriteByte('"')
			case 1:
				b.WriteByte('"')
				b.WriteString(words[rnd.IntN(len(words))])
				b.WriteByte('"')
			case 2:
				b.WriteByte('"')
				b.WriteString(paths[rnd.IntN(len(paths))])
				b.WriteByte('"')
			case 3:
				b.WriteString(strconv.Itoa(rnd.IntN(1 << 20)))
			case 4:
				b.WriteByte('"')
				b.WriteString(agents[rnd.IntN(len(agents))])
				b.WriteByte('"')
			}
		}
		v := b.Bytes()[:size-1]
		v = append(v[:size-1:size-1], '}')
		p.values[i] = v
	}
	return p, nil
}

// get returns the value of the i-th record.
func (p *valuePool) get(i int) []byte { return p.values[i%poolSize] }

// index parses the pool index out of v and reports whether v is exactly that
// pool value.
func (p *valuePool) index(v []byte) (int, bool) {
	if len(v) != p.size || !bytes.HasPrefix(v, []byte(idPrefix)) {
		return 0, false
	}
	n := 0
	for _, c := range v[len(idPrefix) : len(idPrefix)+idDigits] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n >= poolSize || !bytes.Equal(v, p.values[n]) {
		return 0, false
	}
	return n, true
}

// expectedCounts returns how often each pool value occurs among n records
// produced with get(0..n-1).
func expectedCounts(n int) []int64 {
	c := make([]int64, poolSize)
	full, rest := n/poolSize, n%poolSize
	for i := range c {
		c[i] = int64(full)
		if i < rest {
			c[i]++
		}
	}
	return c
}
