package runtime

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/eddy-sql/eddy/types"
)

// hll is the HyperLogLog sketch of APPROX_COUNT_DISTINCT with precision
// hllP: 2^14 registers, a relative standard error of 1.04/sqrt(2^14) =
// 0.81%, the precision Flink's batch HyperLogLogPlusPlus uses (relativeSD
// 0.01).
//
// A small set is exact: until it holds hllSparseMax distinct 64-bit
// hashes it keeps them (sorted) and counts them; then it switches to the
// dense registers (16 KiB, what the hashes took). The dense estimate is
// Ertl's improved estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017), which needs no bias tables and is
// unbiased from small to large cardinalities.
//
// A sketch cannot forget a value, so APPROX_COUNT_DISTINCT does not
// retract; the planner rejects it over updating input.
type hll struct {
	hashes []uint64 // the exact phase; nil once dense
	regs   []uint8  // the dense phase: len 1<<hllP, or nil
}

const (
	hllP         = 14
	hllM         = 1 << hllP
	hllQ         = 64 - hllP // bits of the hash left for the rank
	hllSparseMax = hllM / 8  // as many hashes as the registers take bytes
)

// hashValue returns the 64-bit hash of a value, stable across processes
// (the state is stored): the value's FNV hash, finalized by MurmurHash3's
// fmix64 so that every bit depends on every input bit.
func hashValue(v types.Value) uint64 {
	vals := [1]types.Value{v}
	h := types.Hash64(vals[:])
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func (h *hll) add(x uint64) {
	if h.regs == nil {
		i, found := slices.BinarySearch(h.hashes, x)
		if found {
			return
		}
		if len(h.hashes) < hllSparseMax {
			h.hashes = slices.Insert(h.hashes, i, x)
			return
		}
		h.regs = make([]uint8, hllM)
		for _, y := range h.hashes {
			h.set(y)
		}
		h.hashes = nil
	}
	h.set(x)
}

// set records hash x in the registers: the low hllP bits pick the
// register, the rank is 1 + the number of trailing zeros of the rest
// (capped at hllQ+1).
func (h *hll) set(x uint64) {
	idx := x & (hllM - 1)
	rank := uint8(bits.TrailingZeros64(x>>hllP|1<<hllQ) + 1)
	if rank > h.regs[idx] {
		h.regs[idx] = rank
	}
}

// count returns the estimated number of distinct values.
func (h *hll) count() int64 {
	if h.regs == nil {
		return int64(len(h.hashes))
	}
	var hist [hllQ + 2]int
	for _, r := range h.regs {
		hist[r]++
	}
	m := float64(hllM)
	z := m * hllTau(1-float64(hist[hllQ+1])/m)
	for k := hllQ; k >= 1; k-- {
		z = (z + float64(hist[k])) * 0.5
	}
	z += m * hllSigma(float64(hist[0])/m)
	const alphaInf = 0.5 / math.Ln2
	return int64(math.Round(alphaInf * m * m / z))
}

// hllSigma is Ertl's sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1).
func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// hllTau is Ertl's tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3.
func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// merge adds the values of o to h (the union of the two sets).
func (h *hll) merge(o *hll) {
	if o.regs == nil {
		for _, x := range o.hashes {
			h.add(x)
		}
		return
	}
	if h.regs == nil {
		old := h.hashes
		h.regs, h.hashes = slices.Clone(o.regs), nil
		for _, x := range old {
			h.set(x)
		}
		return
	}
	for i, r := range o.regs {
		h.regs[i] = max(h.regs[i], r)
	}
}

// append encodes the sketch: 0, the hash count and the hashes (8 bytes
// each, little-endian); or 1 and the registers.
func (h *hll) append(dst []byte) []byte {
	if h.regs != nil {
		return append(append(dst, 1), h.regs...)
	}
	dst = append(dst, 0)
	dst = binary.AppendUvarint(dst, uint64(len(h.hashes)))
	for _, x := range h.hashes {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	return dst
}

var errHLL = errors.New("malformed HyperLogLog sketch")

// decodeHLL decodes what append wrote and returns the rest of b.
func decodeHLL(b []byte) (*hll, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errHLL
	}
	switch b[0] {
	case 1:
		if len(b) < 1+hllM {
			return nil, nil, errHLL
		}
		return &hll{regs: slices.Clone(b[1 : 1+hllM])}, b[1+hllM:], nil
	case 0:
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > hllSparseMax || uint64(len(b)-1-k) < 8*n {
			return nil, nil, errHLL
		}
		b = b[1+k:]
		h := &hll{hashes: make([]uint64, n)}
		for i := range h.hashes {
			h.hashes[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		return h, b[8*n:], nil
	}
	return nil, nil, errHLL
}

// approxCountDistinctFunc is APPROX_COUNT_DISTINCT(x): BIGINT NOT NULL.
type approxCountDistinctFunc struct{}

func (approxCountDistinctFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	if x.hll == nil {
		x.hll = &hll{}
	}
	x.hll.add(hashValue(args[0]))
	return nil
}

func (approxCountDistinctFunc) retract(*accState, []types.Value) error {
	return errors.New("APPROX_COUNT_DISTINCT cannot retract a row: a HyperLogLog sketch cannot forget a value; use COUNT(DISTINCT x) over an updating input")
}

func (approxCountDistinctFunc) merge(dst, src *accState) error {
	if src.ext == nil || src.ext.hll == nil {
		return nil
	}
	x := dst.x()
	if x.hll == nil {
		x.hll = &hll{}
	}
	x.hll.merge(src.ext.hll)
	return nil
}

func (approxCountDistinctFunc) value(s *accState) types.Value {
	if s.ext == nil || s.ext.hll == nil {
		return types.NewInt(0)
	}
	return types.NewInt(s.ext.hll.count())
}
