package expr

// NonDeterministicCall returns the name of the first non-deterministic
// function e calls (RAND, UUID, NOW, CURRENT_TIMESTAMP, ...), or "" when it
// calls none. Unlike IsDeterministic it names the function, for Flink's
// non-deterministic update message.
func NonDeterministicCall(e Expr) string {
	if e == nil {
		return ""
	}
	if name := funcName(e); name != "" {
		if d, found := registry[name]; found && !d.info.Deterministic {
			return name
		}
	}
	kids, _ := operands(e)
	for _, k := range kids {
		if n := NonDeterministicCall(k); n != "" {
			return n
		}
	}
	return ""
}
