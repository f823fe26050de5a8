package state

import "github.com/eddy-sql/eddy/internal/store"

// Key layout (see the store package documentation):
//
//	state:  PrefixState ns(esc) key(esc) name(esc) kind [suffix]
//	        kind 'v': value; 'L': list head and tail; 'l' idx(u64 BE): list
//	        element; 'm' mapkey(raw): map entry
//	timers: PrefixTimer ns(esc) 0x01 time(i64) key(esc) name(raw)        -> ""
//	        PrefixTimer ns(esc) 0x02 key(esc) 0x00 time(i64)             -> ""
//	        PrefixTimer ns(esc) 0x02 key(esc) 0x01 name(raw)             -> time(i64)
//
// The by-time timer keys give the firing order (time, key bytes, name) with
// the unnamed timer (empty name) first; the by-key keys find a key's timers
// for replacement, deletion and inspection.
const (
	kindValue    = 'v'
	kindListMeta = 'L'
	kindListElem = 'l'
	kindMap      = 'm'

	timerByTime  = 0x01
	timerByKey   = 0x02
	timerUnnamed = 0x00
	timerNamed   = 0x01
)

func appendNSPrefix(dst []byte, ns string) []byte {
	return store.AppendString(append(dst, store.PrefixState), ns)
}

func appendKeyPrefix(dst []byte, ns string, key []byte) []byte {
	return store.AppendBytes(appendNSPrefix(dst, ns), key)
}

func appendEntryKey(dst []byte, ns, name string, key []byte, kind byte) []byte {
	return append(store.AppendString(appendKeyPrefix(dst, ns, key), name), kind)
}

func appendTimerNS(dst []byte, ns string) []byte {
	return store.AppendString(append(dst, store.PrefixTimer), ns)
}

func appendTimerByTime(dst []byte, ns string, t int64, key []byte, name string) []byte {
	dst = append(appendTimerNS(dst, ns), timerByTime)
	dst = store.AppendInt64(dst, t)
	return append(store.AppendBytes(dst, key), name...)
}

func appendTimerByKey(dst []byte, ns string, key []byte) []byte {
	return store.AppendBytes(append(appendTimerNS(dst, ns), timerByKey), key)
}

func appendUnnamedIndex(dst []byte, ns string, key []byte, t int64) []byte {
	return store.AppendInt64(append(appendTimerByKey(dst, ns, key), timerUnnamed), t)
}

func appendNamedIndex(dst []byte, ns string, key []byte, name string) []byte {
	return append(append(appendTimerByKey(dst, ns, key), timerNamed), name...)
}
