package ast

// Hint is one query hint of a SELECT, /*+ NAME('key' = 'value', ...) */,
// such as Flink's STATE_TTL('orders' = '1d').
type Hint struct {
	Loc
	// Name is the hint's name in upper case.
	Name string
	// Options are the key-value options in order.
	Options []*HintOption
}

// HintOption is one 'key' = 'value' of a hint.
type HintOption struct {
	Loc
	Key, Value string
}
