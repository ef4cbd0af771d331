package common

// Ring is a fixed-capacity history of float64 samples, oldest dropped
// first. Views keep one per row (rates, lag, depth) to draw sparklines.
type Ring struct {
	buf  []float64
	head int // next write position
	n    int
}

// NewRing returns an empty ring of capacity n (at least 1).
func NewRing(n int) *Ring {
	if n < 1 {
		n = 1
	}
	return &Ring{buf: make([]float64, n)}
}

// Push appends a sample.
func (r *Ring) Push(v float64) {
	r.buf[r.head] = v
	r.head = (r.head + 1) % len(r.buf)
	if r.n < len(r.buf) {
		r.n++
	}
}

// Len is the number of samples held.
func (r *Ring) Len() int { return r.n }

// Cap is the capacity.
func (r *Ring) Cap() int { return len(r.buf) }

// At returns the i-th sample, 0 = oldest held.
func (r *Ring) At(i int) float64 {
	start := (r.head - r.n + len(r.buf)) % len(r.buf)
	return r.buf[(start+i)%len(r.buf)]
}

// Last returns the newest sample (0 when empty).
func (r *Ring) Last() float64 {
	if r.n == 0 {
		return 0
	}
	return r.At(r.n - 1)
}

// Values appends the last (up to) n samples, oldest first, to dst.
func (r *Ring) Values(dst []float64, n int) []float64 {
	if n > r.n || n <= 0 {
		n = r.n
	}
	for i := r.n - n; i < r.n; i++ {
		dst = append(dst, r.At(i))
	}
	return dst
}
