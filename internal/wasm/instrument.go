package wasm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// errNoHostImport: the module does not import eddy.host.
var errNoHostImport = errors.New("it does not import eddy.host, which every module built with ptf/wasmguest does")

// yieldEvery is how many loop iterations a module runs between two calls
// of the host's yield (a call of eddy.host with an empty request).
const yieldEvery = 1 << 16

// instrument adds a budget check at the head of every loop of a module's
// code,
//
//	global.get $budget  i32.const 1  i32.sub  global.set $budget
//	global.get $budget  i32.eqz
//	if
//	  (call $eddy.host with an empty request)  drop
//	  i32.const yieldEvery  global.set $budget
//	end
//
// and the global itself. Every unbounded computation in WebAssembly runs
// through a loop (Go compiles each function into one), so a module calls
// the host at least every yieldEvery iterations. There the host stops a
// call that ran past its time limit, and the Go runtime gets a point where
// it can preempt the goroutine: machine code wazero generated cannot be
// preempted, and a garbage collection waits for every goroutine. wazero's
// own mechanism (WithCloseOnContextDone) calls out of the module at every
// loop header and starts a goroutine per call, which made Go guests
// several times slower; this check is a few instructions.
//
// The module must import eddy.host (every module built with
// ptf/wasmguest does). The rest of the module is copied as it is, except
// DWARF sections (their code offsets would be wrong). Instructions outside
// the MVP, sign extension, saturating truncation, bulk memory, reference
// types and tail calls (SIMD, threads, exceptions, GC) are refused.
func instrument(code []byte) ([]byte, error) {
	if len(code) < 8 || string(code[:4]) != "\x00asm" || binary.LittleEndian.Uint32(code[4:8]) != 1 {
		return nil, errors.New("not a WebAssembly module (version 1)")
	}
	type section struct {
		id   byte
		body []byte
	}
	var sections []section
	for r := (&reader{b: code[8:]}); len(r.b) > 0; {
		id := r.byte()
		n := r.u32()
		body := r.bytes(int(n))
		if r.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.err)
		}
		if id == 0 {
			nr := &reader{b: body}
			name := string(nr.bytes(int(nr.u32())))
			if strings.HasPrefix(name, ".debug") || name == "sourceMappingURL" || name == "external_debug_info" {
				continue
			}
		}
		sections = append(sections, section{id, body})
	}
	// The index of the new global: after the imported and defined ones.
	var importedGlobals, definedGlobals uint32
	host := int64(-1)                        // the function index of the import eddy.host
	globalAt, exportAt, codeAt := -1, -1, -1 // positions of sections 6, 7 and 10
	for i, s := range sections {
		switch s.id {
		case 2:
			n, h, err := scanImports(s.body)
			if err != nil {
				return nil, fmt.Errorf("import section: %w", err)
			}
			importedGlobals, host = n, h
		case 6:
			globalAt = i
			r := &reader{b: s.body}
			definedGlobals = r.u32()
			if r.err != nil {
				return nil, fmt.Errorf("global section: %w", r.err)
			}
		case 7:
			exportAt = i
		case 10:
			codeAt = i
		}
	}
	if host < 0 {
		return nil, errNoHostImport
	}
	idx := importedGlobals + definedGlobals
	newGlobal := []byte{0x7F, 0x01, 0x41} // mutable i32 = yieldEvery
	newGlobal = appendSLEB(newGlobal, yieldEvery)
	newGlobal = append(newGlobal, 0x0B)

	// Sections in order; insert the global and export sections where the
	// module lacks them (before the first section that must follow them).
	order := func(id byte) int {
		// The canonical order of non-custom sections; data count (12)
		// sits between element (9) and code (10), tags (13) before globals.
		return map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}[id]
	}
	insert := func(id byte, body []byte) {
		at := len(sections)
		for i, s := range sections {
			if s.id != 0 && order(s.id) > order(id) {
				at = i
				break
			}
		}
		sections = append(sections[:at], append([]section{{id, body}}, sections[at:]...)...)
	}
	if globalAt < 0 {
		insert(6, []byte{0})
	}
	_ = exportAt
	for i, s := range sections {
		switch s.id {
		case 6:
			b, err := appendToVector(s.body, newGlobal)
			if err != nil {
				return nil, fmt.Errorf("global section: %w", err)
			}
			sections[i].body = b
		case 10:
			codeAt = i
		}
	}
	if codeAt >= 0 {
		b, err := instrumentCode(sections[codeAt].body, idx, uint32(host))
		if err != nil {
			return nil, fmt.Errorf("code section: %w", err)
		}
		sections[codeAt].body = b
	}
	out := append([]byte(nil), code[:8]...)
	for _, s := range sections {
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(s.body)))
		out = append(out, s.body...)
	}
	return out, nil
}

// appendSLEB appends x in signed LEB128, the encoding of i32.const.
func appendSLEB(b []byte, x int64) []byte {
	for {
		c := byte(x & 0x7F)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendToVector returns a vector section's body with one more entry.
func appendToVector(body, entry []byte) ([]byte, error) {
	r := &reader{b: body}
	n := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	out := binary.AppendUvarint(nil, uint64(n)+1)
	out = append(out, r.b...)
	return append(out, entry...), nil
}

// scanImports counts the global imports of an import section and finds
// the function index of eddy.host (-1 when it is not imported).
func scanImports(body []byte) (globals uint32, host int64, err error) {
	r := &reader{b: body}
	n := r.u32()
	host = -1
	var funcs int64
	for i := uint32(0); i < n && r.err == nil; i++ {
		mod := string(r.bytes(int(r.u32())))
		name := string(r.bytes(int(r.u32())))
		switch kind := r.byte(); kind {
		case 0x00: // func: typeidx
			r.u32()
			if mod == "eddy" && name == "host" {
				host = funcs
			}
			funcs++
		case 0x01: // table: reftype, limits
			r.byte()
			r.limits()
		case 0x02: // memory: limits
			r.limits()
		case 0x03: // global: valtype, mut
			r.byte()
			r.byte()
			globals++
		case 0x04: // tag: attribute, typeidx
			r.byte()
			r.u32()
		default:
			return 0, -1, fmt.Errorf("import kind %#x", kind)
		}
	}
	return globals, host, r.err
}

// instrumentCode rewrites every function body of a code section.
func instrumentCode(body []byte, global, host uint32) ([]byte, error) {
	g := binary.AppendUvarint(nil, uint64(global))
	check := append([]byte{0x23}, g...)     // global.get $budget
	check = append(check, 0x41, 0x01, 0x6B) // i32.const 1, i32.sub
	check = append(check, 0x24)             // global.set $budget
	check = append(check, g...)
	check = append(check, 0x23) // global.get $budget
	check = append(check, g...)
	check = append(check, 0x45, 0x04, 0x40) // i32.eqz, if (void)
	for range 6 {
		check = append(check, 0x41, 0x00) // i32.const 0: an empty request
	}
	check = append(check, 0x10) // call $eddy.host
	check = binary.AppendUvarint(check, uint64(host))
	check = append(check, 0x1A, 0x41) // drop, i32.const yieldEvery
	check = appendSLEB(check, yieldEvery)
	check = append(check, 0x24) // global.set $budget
	check = append(check, g...)
	check = append(check, 0x0B) // end
	r := &reader{b: body}
	n := r.u32()
	out := binary.AppendUvarint(nil, uint64(n))
	var fn []byte
	for i := uint32(0); i < n; i++ {
		size := r.u32()
		b := r.bytes(int(size))
		if r.err != nil {
			return nil, r.err
		}
		var err error
		fn, err = instrumentFunc(fn[:0], b, check)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", i, err)
		}
		out = binary.AppendUvarint(out, uint64(len(fn)))
		out = append(out, fn...)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d bytes after the function bodies", len(r.b))
	}
	return out, nil
}

// instrumentFunc copies a function body, inserting check after the block
// type of every loop.
func instrumentFunc(out, body, check []byte) ([]byte, error) {
	r := &reader{b: body}
	locals := r.u32()
	for i := uint32(0); i < locals && r.err == nil; i++ {
		r.u32()  // count
		r.byte() // valtype
	}
	if r.err != nil {
		return nil, r.err
	}
	out = append(out, body[:len(body)-len(r.b)]...)
	for len(r.b) > 0 {
		start := r.b
		op := r.byte()
		isLoop := op == 0x03
		if err := r.immediates(op); err != nil {
			return nil, err
		}
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, start[:len(start)-len(r.b)]...)
		if isLoop {
			out = append(out, check...)
		}
	}
	return out, nil
}

// reader decodes the parts of a module the instrumentation needs; the
// first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail("truncated")
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// leb skips an LEB128 number of at most max bytes.
func (r *reader) leb(max int) uint64 {
	var x uint64
	var s uint
	for i := 0; i < max; i++ {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		x |= uint64(c&0x7F) << s
		s += 7
		if c&0x80 == 0 {
			return x
		}
	}
	r.fail("LEB128 number too long")
	return 0
}

func (r *reader) u32() uint32 { return uint32(r.leb(5)) }

func (r *reader) limits() {
	flags := r.byte()
	r.leb(10)
	if flags&1 != 0 {
		r.leb(10)
	}
}

// blockType skips a block type: empty, a value type, or a type index.
func (r *reader) blockType() {
	if len(r.b) > 0 && (r.b[0] == 0x40 || (r.b[0] >= 0x6F && r.b[0] <= 0x7F)) {
		r.byte()
		return
	}
	r.leb(5) // s33 type index
}

// immediates skips the immediates of op.
func (r *reader) immediates(op byte) error {
	switch {
	case op == 0x00, op == 0x01, op == 0x05, op == 0x0B, op == 0x0F, op == 0x1A, op == 0x1B, op == 0xD1:
	case op >= 0x45 && op <= 0xC4: // numeric
	case op == 0x02, op == 0x03, op == 0x04:
		r.blockType()
	case op == 0x0C, op == 0x0D: // br, br_if
		r.u32()
	case op == 0x0E: // br_table
		n := r.u32()
		for i := uint32(0); i <= n && r.err == nil; i++ {
			r.u32()
		}
	case op == 0x10, op == 0x12: // call, return_call
		r.u32()
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect
		r.u32()
		r.u32()
	case op == 0x1C: // select t*
		n := r.u32()
		for i := uint32(0); i < n && r.err == nil; i++ {
			r.byte()
		}
	case op >= 0x20 && op <= 0x26: // locals, globals, table.get/set
		r.u32()
	case op >= 0x28 && op <= 0x3E: // loads and stores: memarg
		align := r.u32()
		if align&0x40 != 0 {
			r.u32() // memory index (multi-memory)
		}
		r.leb(10)
	case op == 0x3F, op == 0x40: // memory.size, memory.grow
		r.u32()
	case op == 0x41:
		r.leb(5)
	case op == 0x42:
		r.leb(10)
	case op == 0x43:
		r.bytes(4)
	case op == 0x44:
		r.bytes(8)
	case op == 0xD0: // ref.null
		r.leb(5)
	case op == 0xD2: // ref.func
		r.u32()
	case op == 0xFC:
		switch sub := r.u32(); {
		case sub <= 7: // saturating truncations
		case sub == 8: // memory.init
			r.u32()
			r.u32()
		case sub == 9, sub == 11, sub == 13, sub == 15, sub == 16, sub == 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
			r.u32()
		case sub == 10, sub == 12, sub == 14: // memory.copy, table.init, table.copy
			r.u32()
			r.u32()
		default:
			return fmt.Errorf("the module uses the instruction 0xFC %d, which Eddy cannot instrument", sub)
		}
	case op == 0xFD:
		return errors.New("the module uses SIMD instructions (0xFD), which Eddy does not run; build it without SIMD")
	case op == 0xFE:
		return errors.New("the module uses atomic instructions (0xFE, threads), which Eddy does not run")
	default:
		return fmt.Errorf("the module uses the instruction %#x, which Eddy cannot instrument (exceptions, GC or another proposal)", op)
	}
	return r.err
}
