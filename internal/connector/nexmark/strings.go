package nexmark

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
)

// The seeds of the generator's static tables. Flink draws them from
// unseeded generators (new SplittableRandom()), so they differ in every
// JVM; Eddy fixes them so that every run generates the same events (see
// docs/decisions/0019-nexmark.md).
const (
	// extraSeed seeds StringsGenerator.REUSABLE_EXTRA_STRING.
	extraSeed = 0x6e65786d61726b01
	// urlSeed seeds BidGenerator's static generator (HOT_URLS, then
	// CHANNEL_URL_CACHE).
	urlSeed = 0x6e65786d61726b02
)

const (
	minStringLength   = 3           // StringsGenerator.MIN_STRING_LENGTH
	reusableExtraSize = 1024 * 1024 // length of REUSABLE_EXTRA_STRING
)

// The word lists of PersonGenerator and BidGenerator.
var (
	usStates    = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities    = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames  = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames   = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	hotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// statics are the generator's precomputed tables, built once.
type statics struct {
	// extra is REUSABLE_EXTRA_STRING: every 'extra' value is a substring.
	extra string
	// hotURLs are the URLs of the hot channels.
	hotURLs [4]string
	// channels and channelURLs are CHANNEL_URL_CACHE.
	channels, channelURLs [channelsNumber]string
	// creditCards are CREDIT_CARD_STRINGS ("0000" ... "9999").
	creditCards [10000]string
}

var (
	tablesOnce sync.Once
	tables     *statics
)

// static returns the tables, computing them on first use (about 2 ms).
func static() *statics {
	tablesOnce.Do(func() {
		t := &statics{}
		r := newSplittable(extraSeed)
		// During its own static initialisation REUSABLE_EXTRA_STRING is
		// still null, so nextExactString builds the string char by char.
		t.extra = buildExactString(&r, reusableExtraSize)
		u := newSplittable(urlSeed)
		for i := range t.hotURLs {
			t.hotURLs[i] = baseURL(&u)
		}
		for i := range t.channels {
			url := baseURL(&u)
			if u.nextIntn(10) > 0 {
				url += "&channel_id=" + strconv.Itoa(int(javaAbs32(int32(bits.Reverse32(uint32(i))))))
			}
			t.channels[i] = "channel-" + strconv.Itoa(i)
			t.channelURLs[i] = url
		}
		for i := range t.creditCards {
			s := strconv.Itoa(i)
			t.creditCards[i] = strings.Repeat("0", 4-len(s)) + s
		}
		tables = t
	})
	return tables
}

// javaAbs32 is Math.abs(int): Integer.MIN_VALUE stays negative.
func javaAbs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// baseURL is BidGenerator.getBaseUrl.
func baseURL(r *splittable) string {
	return "https://www.nexmark.com/" + nextString(r, 5, '_') + "/" + nextString(r, 5, '_') + "/" +
		nextString(r, 5, '_') + "/" + "item.htm?query=1"
}

// nextString is StringsGenerator.nextString(random, maxLength, special):
// 3 to maxLength-1 letters, each the special character with probability
// 1/13, then String.trim().
func nextString(r *splittable, maxLength int32, special byte) string {
	n := minStringLength + r.nextIntn(maxLength-minStringLength)
	var buf [128]byte
	b := buf[:0]
	for ; n > 0; n-- {
		if r.nextIntn(13) == 0 {
			b = append(b, special)
		} else {
			b = append(b, byte('a'+r.nextIntn(26)))
		}
	}
	return javaTrim(b)
}

// javaTrim is String.trim(): it removes characters up to ' ' at both
// ends.
func javaTrim(b []byte) string {
	i, j := 0, len(b)
	for i < j && b[i] <= ' ' {
		i++
	}
	for j > i && b[j-1] <= ' ' {
		j--
	}
	return string(b[i:j])
}

// buildExactString is nextExactString's loop: letters from 'a' plus the
// remainder of a random int by 26. Java's remainder takes the sign of the
// dividend, so negative ints give characters below 'a' ('H' to '`'), as
// Flink's do.
func buildExactString(r *splittable, length int) string {
	b := make([]byte, 0, length)
	var rnd int32
	n := 0
	for ; length > 0; length-- {
		if n == 0 {
			rnd = r.nextInt()
			n = 6 // log_26(2^31)
		}
		b = append(b, byte('a'+rnd%26))
		rnd /= 26
		n--
	}
	return string(b)
}

// nextExactString is StringsGenerator.nextExactString once the reusable
// string exists: a random substring of it (no copy).
func (t *statics) nextExactString(r *splittable, length int32) string {
	if length < reusableExtraSize/2 {
		off := r.nextIntn(reusableExtraSize - length)
		return t.extra[off : off+length]
	}
	return buildExactString(r, int(length))
}

// nextExtra is StringsGenerator.nextExtra: padding so that currentSize
// plus its length averages desiredAverageSize.
func (t *statics) nextExtra(r *splittable, currentSize, desiredAverageSize int) string {
	if currentSize > desiredAverageSize {
		return ""
	}
	desiredAverageSize -= currentSize
	delta := int32(math.Round(float64(desiredAverageSize) * 0.2))
	minSize := int32(desiredAverageSize) - delta
	size := minSize
	if delta != 0 {
		size += r.nextIntn(2 * delta)
	}
	return t.nextExactString(r, size)
}

// nextPrice is PriceGenerator.nextPrice: Math.round(10^(u*6) * 100).
func nextPrice(r *splittable) int64 {
	return int64(math.Round(javaPow10(r.nextDouble()*6.0) * 100.0))
}
