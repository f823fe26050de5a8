package nexmark

// splittable is java.util.SplittableRandom, bit for bit: the generator
// Flink's Nexmark source draws every random value from (nexmark-flink
// since 2024; earlier versions used java.util.Random). Only the methods
// the generator calls are implemented, with the JDK's algorithms
// (SplittableRandom and RandomSupport.boundedNextInt of JDK 17, the same
// as JDK 8's).
type splittable struct{ seed uint64 }

// goldenGamma is SplittableRandom's GOLDEN_GAMMA, the increment of a
// generator made with new SplittableRandom(seed).
const goldenGamma = 0x9e3779b97f4a7c15

// newSplittable is new SplittableRandom(seed).
func newSplittable(seed int64) splittable { return splittable{seed: uint64(seed)} }

func (r *splittable) nextSeed() uint64 {
	r.seed += goldenGamma
	return r.seed
}

// mix64 is SplittableRandom.mix64 (David Stafford's Mix13).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// mix32 is SplittableRandom.mix32 (Stafford's Mix04, upper 32 bits).
func mix32(z uint64) int32 {
	z = (z ^ (z >> 33)) * 0x62a9d9ed799705f5
	return int32(((z ^ (z >> 28)) * 0xcb24d0a5c88c35b3) >> 32)
}

// nextInt is nextInt().
func (r *splittable) nextInt() int32 { return mix32(r.nextSeed()) }

// nextLong is nextLong().
func (r *splittable) nextLong() int64 { return int64(mix64(r.nextSeed())) }

// nextDouble is nextDouble(): 53 random bits scaled to [0, 1).
func (r *splittable) nextDouble() float64 {
	return float64(mix64(r.nextSeed())>>11) * (1.0 / (1 << 53))
}

// nextIntn is nextInt(bound) for bound > 0: the low bits for a power of
// two, else the rejection loop of RandomSupport.boundedNextInt (which
// draws again while the candidate falls in the over-represented tail).
func (r *splittable) nextIntn(bound int32) int32 {
	rv := r.nextInt()
	m := bound - 1
	if bound&m == 0 {
		return rv & m
	}
	// Java: for (int u = r >>> 1; u + m - (r = u % bound) < 0; u = nextInt() >>> 1);
	// with int arithmetic that wraps.
	u := int32(uint32(rv) >> 1)
	for {
		rv = u % bound
		if u+m-rv >= 0 {
			return rv
		}
		u = int32(uint32(r.nextInt()) >> 1)
	}
}

// nextLongn is Nexmark's LongGenerator.nextLong(random, n): nextInt(n)
// when n fits an int, else Math.abs(nextLong() % n) (skewed, as the
// original says).
func (r *splittable) nextLongn(n int64) int64 {
	if n < 1<<31-1 {
		return int64(r.nextIntn(int32(n)))
	}
	v := r.nextLong() % n
	if v < 0 {
		v = -v // Math.abs; v > math.MinInt64 because |v| < n
	}
	return v
}
