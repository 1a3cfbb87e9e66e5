package mysqlconn

import (
	"cmp"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"
)

// This file owns starbench's own prepared-statement path: once
// go-sql-driver has opened and authenticated a connection, the statements
// a workload repeats are prepared, executed and closed here, on the same
// socket, with the MySQL binary protocol. A workload neither decodes rows
// nor looks at column types, so a result is read packet by packet and
// skipped. Per query that saves the driver's three allocations (result
// header slices, the rows object), its column bookkeeping and its type
// dispatch. It is used only on plain connections (no TLS, no compression);
// the driver keeps everything else: connecting, text statements, LOAD DATA
// and closing.

// Protocol constants (MySQL client/server protocol, MariaDB extensions).
const (
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19

	capCompress         = 1 << 5
	capSSL              = 1 << 11
	capDeprecateEOF     = 1 << 24
	capOptionalMetadata = 1 << 25 // MySQL 8: a flag in every result set
	capQueryAttributes  = 1 << 27 // MySQL 8: attributes in every execution
	capMySQL            = 1       // CLIENT_LONG_PASSWORD: absent on MariaDB
	capCacheMeta        = 1 << 4  // MariaDB's extended MARIADB_CLIENT_CACHE_METADATA

	statusMoreResults = 0x0008

	maxPayload = 1<<24 - 1

	typeTiny     = 0x01
	typeDouble   = 0x05
	typeNull     = 0x06
	typeLongLong = 0x08
	typeString   = 0xfe
	flagUnsigned = 0x80 // in the second byte of a parameter type

	wireBufferDirect = readAheadSize // reads bypass the socket's read-ahead
	wireBufferSmall  = 4 << 10       // many connections: the read-ahead is pooled
	wireKeptPacket   = 64 << 10      // larger packet buffers are not kept
)

// errWireState is returned when the server's answer does not fit the
// protocol: the connection is then out of step and counts as lost.
var errWireState = fmt.Errorf("%w: unexpected packet from the server", mysql.ErrInvalidConn)

// handshake is what the client asked for in its handshake response (the
// capabilities the connection uses: the driver keeps only those the server
// offers).
type handshake struct {
	written           bool // the driver has written its first packet
	seen              bool // which was whole: capabilities and ext are known
	capabilities, ext uint32
}

// sniffConn records the capabilities of the first packet the driver
// writes (the handshake response or the TLS request) and otherwise passes
// everything through. A first write too short to hold them leaves them
// unknown, and the connection to the driver alone.
type sniffConn struct {
	net.Conn
	hs handshake
}

func (c *sniffConn) Write(p []byte) (int, error) {
	if !c.hs.written && len(p) >= 4+32 {
		c.hs.seen = true
		payload := p[4:]
		c.hs.capabilities = binary.LittleEndian.Uint32(payload)
		if c.hs.capabilities&capMySQL == 0 {
			c.hs.ext = binary.LittleEndian.Uint32(payload[28:])
		}
	}
	c.hs.written = true
	return c.Conn.Write(p)
}

// wireConn speaks the binary protocol for prepared statements on a
// connection the driver opened. It is used by one goroutine at a time,
// between the driver's own commands.
type wireConn struct {
	conn          net.Conn
	deprecateEOF  bool
	cacheMetadata bool
	readTimeout   time.Duration
	writeTimeout  time.Duration
	location      *time.Location // of times sent as parameters

	out    []byte // the packet being written, reused
	in     []byte // received bytes: in[r:w] are not consumed yet
	r, w   int
	seq    byte
	broken error  // set when the connection fell out of step
	big    []byte // a row payload larger than in, for QueryRows
}

// wireUnusable are the capabilities under which a connection's bytes are
// not the plain protocol wireConn speaks. go-sql-driver v1.10 never asks
// for the last two; should a later one, they would change the formats of
// executions and results.
const wireUnusable = capSSL | capCompress | capOptionalMetadata | capQueryAttributes

// newWireConn returns a wireConn for a connection whose handshake c saw, or
// nil when its bytes are not plain protocol (see wireUnusable).
func newWireConn(c *sniffConn, cfg *mysql.Config, direct bool) *wireConn {
	hs := c.hs
	if !hs.seen || hs.capabilities&wireUnusable != 0 {
		return nil
	}
	size := wireBufferSmall
	if direct {
		size = wireBufferDirect
	}
	return &wireConn{
		conn:          c.Conn,
		deprecateEOF:  hs.capabilities&capDeprecateEOF != 0,
		cacheMetadata: hs.ext&capCacheMeta != 0,
		readTimeout:   cfg.ReadTimeout,
		writeTimeout:  cfg.WriteTimeout,
		location:      cmp.Or(cfg.Loc, time.UTC),
		out:           make([]byte, 0, 256),
		in:            make([]byte, size),
	}
}

// wireStmt is a statement prepared by a wireConn.
type wireStmt struct {
	c      *wireConn
	id     uint32
	params int
	types  []byte // parameter types last sent (2 bytes each)
	next   []byte // the types of this execution
	// columns are the result's columns, for decoding rows (QueryRows);
	// values is the row handed to its callback, reused.
	columns []column
	values  []driver.Value
}

// fail marks the connection as out of step and returns err.
func (c *wireConn) fail(err error) error {
	if c.broken == nil {
		c.broken = err
	}
	return err
}

// begin starts a command packet.
func (c *wireConn) begin(command byte) {
	c.out = append(c.out[:0], 0, 0, 0, 0, command)
}

// send writes the command packet in c.out (split into packets of the
// largest payload when it is longer).
func (c *wireConn) send() error {
	if c.broken != nil {
		return c.broken
	}
	if c.r != c.w {
		return c.fail(errWireState) // bytes nobody asked for
	}
	if c.writeTimeout > 0 {
		if err := c.conn.SetWriteDeadline(time.Now().Add(c.writeTimeout)); err != nil {
			return c.fail(err)
		}
	}
	defer c.trim()
	payload := len(c.out) - 4
	if payload < maxPayload {
		putHeader(c.out, payload, 0)
		c.seq = 1
		if _, err := c.conn.Write(c.out); err != nil {
			return c.fail(err)
		}
		return nil
	}
	// A payload of 16 MiB or more goes in full packets and a shorter last
	// one (empty when the length is a multiple).
	var header [4]byte
	data, seq := c.out[4:], byte(0)
	for {
		n := min(len(data), maxPayload)
		putHeader(header[:], n, seq)
		seq++
		if _, err := c.conn.Write(header[:]); err != nil {
			return c.fail(err)
		}
		if _, err := c.conn.Write(data[:n]); err != nil {
			return c.fail(err)
		}
		data = data[n:]
		if n < maxPayload {
			break
		}
	}
	c.seq = seq
	return nil
}

// trim lets go of a packet buffer a large statement grew, so that a
// session does not keep it for the rest of the run.
func (c *wireConn) trim() {
	if cap(c.out) > wireKeptPacket {
		c.out = make([]byte, 0, 256)
	}
}

func putHeader(b []byte, n int, seq byte) {
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), seq
}

// fill makes at least n bytes (n <= len(c.in)) available in c.in[c.r:c.w].
func (c *wireConn) fill(n int) error {
	if c.w-c.r >= n {
		return nil
	}
	if c.r > 0 {
		c.w = copy(c.in, c.in[c.r:c.w])
		c.r = 0
	}
	if c.readTimeout > 0 {
		if err := c.conn.SetReadDeadline(time.Now().Add(c.readTimeout)); err != nil {
			return c.fail(err)
		}
	}
	for c.w < n {
		m, err := c.conn.Read(c.in[c.w:])
		c.w += m
		if err != nil && c.w < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return c.fail(err)
		}
	}
	return nil
}

// packet reads the next packet's header and returns its payload length.
func (c *wireConn) packet() (int, error) {
	if err := c.fill(4); err != nil {
		return 0, err
	}
	h := c.in[c.r : c.r+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != c.seq {
		return 0, c.fail(errWireState)
	}
	c.seq++
	c.r += 4
	return n, nil
}

// nextPacket reads the next packet's header and makes the first k bytes
// of its payload (all of it when shorter) available as p; an empty
// payload, which no answer starts with or ends in, is out of step.
func (c *wireConn) nextPacket(k int) (n int, p []byte, err error) {
	if n, err = c.packet(); err != nil {
		return 0, nil, err
	}
	if n == 0 {
		return 0, nil, c.fail(errWireState)
	}
	p, err = c.peek(min(n, k))
	return n, p, err
}

// peek makes the first n bytes of a packet's payload available as
// c.in[c.r:c.r+n] (n is cut to the buffer's size).
func (c *wireConn) peek(n int) ([]byte, error) {
	n = min(n, len(c.in))
	if err := c.fill(n); err != nil {
		return nil, err
	}
	return c.in[c.r : c.r+n], nil
}

// skip consumes n bytes, reading and dropping what is not buffered.
func (c *wireConn) skip(n int) error {
	for {
		m := min(n, c.w-c.r)
		c.r += m
		n -= m
		if n == 0 {
			return nil
		}
		if err := c.fill(min(n, len(c.in))); err != nil {
			return err
		}
	}
}

// skipPacket consumes a payload of n bytes and, when it filled a whole
// packet, the packets that continue it.
func (c *wireConn) skipPacket(n int) error {
	for {
		if err := c.skip(n); err != nil {
			return err
		}
		if n < maxPayload {
			return nil
		}
		var err error
		if n, err = c.packet(); err != nil {
			return err
		}
	}
}

// serverError reads an error packet of n bytes (the first is 0xff).
func (c *wireConn) serverError(n int) error {
	p, err := c.peek(n)
	if err != nil {
		return err
	}
	if len(p) < 3 {
		return c.fail(errWireState)
	}
	me := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	msg := p[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(me.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	me.Message = string(msg)
	if err := c.skipPacket(n); err != nil {
		return err
	}
	return me
}

// okPacket reads an OK packet of n bytes (the first byte is 0x00, or 0xfe
// where it ends rows) and returns its affected rows and status flags.
func (c *wireConn) okPacket(n int) (affected int64, status uint16, err error) {
	p, err := c.peek(n)
	if err != nil {
		return 0, 0, err
	}
	rows, m1 := lengthEncoded(p[1:])
	_, m2 := lengthEncoded(p[1+m1:])
	at := 1 + m1 + m2
	if m1 == 0 || m2 == 0 || len(p) < at+2 {
		return 0, 0, c.fail(errWireState)
	}
	status = binary.LittleEndian.Uint16(p[at:])
	return int64(rows), status, c.skipPacket(n)
}

// lengthEncoded decodes a length-encoded integer at the start of p and
// returns it with its size (0 when p is too short or it is not one).
func lengthEncoded(p []byte) (uint64, int) {
	if len(p) == 0 {
		return 0, 0
	}
	switch p[0] {
	case 0xfc:
		if len(p) >= 3 {
			return uint64(binary.LittleEndian.Uint16(p[1:])), 3
		}
	case 0xfd:
		if len(p) >= 4 {
			return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
		}
	case 0xfe:
		if len(p) >= 9 {
			return binary.LittleEndian.Uint64(p[1:]), 9
		}
	case 0xfb, 0xff:
	default:
		return uint64(p[0]), 1
	}
	return 0, 0
}

// skipPackets consumes n packets and then, on connections that still use
// them, the EOF packet after column or parameter definitions.
func (c *wireConn) skipPackets(n int) error {
	if !c.deprecateEOF {
		n++
	}
	for range n {
		m, err := c.packet()
		if err != nil {
			return err
		}
		if err := c.skipPacket(m); err != nil {
			return err
		}
	}
	return nil
}

// prepare prepares query on the server.
func (c *wireConn) prepare(query string) (*wireStmt, error) {
	c.begin(comStmtPrepare)
	c.out = append(c.out, query...)
	if err := c.send(); err != nil {
		return nil, err
	}
	n, p, err := c.nextPacket(12)
	if err != nil {
		return nil, err
	}
	switch {
	case p[0] == 0xff:
		return nil, c.serverError(n)
	case len(p) < 9 || p[0] != 0:
		return nil, c.fail(errWireState)
	}
	st := &wireStmt{
		c:      c,
		id:     binary.LittleEndian.Uint32(p[1:]),
		params: int(binary.LittleEndian.Uint16(p[7:])),
	}
	columns := int(binary.LittleEndian.Uint16(p[5:]))
	if err := c.skipPacket(n); err != nil {
		return nil, err
	}
	if st.params > 0 {
		if err := c.skipPackets(st.params); err != nil {
			return nil, err
		}
	}
	if columns > 0 {
		if st.columns, err = c.readColumns(columns); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// execute runs the statement with args (the driver's value types) and
// reads its whole result, reporting the rows affected.
func (s *wireStmt) execute(args []driver.Value) (int64, error) {
	if err := s.send(args); err != nil {
		return 0, err
	}
	affected, err := s.c.result()
	if err != nil {
		s.types = s.types[:0] // the server may not have kept them
	}
	return affected, err
}

// send sends an execution of the statement with args.
func (s *wireStmt) send(args []driver.Value) error {
	c := s.c
	if len(args) != s.params {
		return fmt.Errorf("statement has %d placeholders, got %d arguments", s.params, len(args))
	}
	c.begin(comStmtExecute)
	c.out = binary.LittleEndian.AppendUint32(c.out, s.id)
	c.out = append(c.out, 0, 1, 0, 0, 0) // no cursor, one iteration
	if s.params > 0 {
		if err := s.appendParams(args); err != nil {
			return err
		}
	}
	return c.send()
}

// appendParams appends the NULL bitmap, the types when they changed since
// the last execution (the server keeps them), and the values.
func (s *wireStmt) appendParams(args []driver.Value) error {
	c := s.c
	s.next = s.next[:0]
	for i, a := range args {
		t, ok := paramType(a)
		if !ok {
			return fmt.Errorf("parameter %d: cannot send a %T", i+1, a)
		}
		s.next = append(s.next, t[0], t[1])
	}
	nulls := len(c.out)
	for range (len(args) + 7) / 8 {
		c.out = append(c.out, 0)
	}
	if string(s.next) == string(s.types) {
		c.out = append(c.out, 0)
	} else {
		c.out = append(append(c.out, 1), s.next...)
		s.types, s.next = s.next, s.types
	}
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			c.out[nulls+i/8] |= 1 << (i % 8)
		case int64:
			c.out = binary.LittleEndian.AppendUint64(c.out, uint64(v))
		case uint64:
			c.out = binary.LittleEndian.AppendUint64(c.out, v)
		case float64:
			c.out = binary.LittleEndian.AppendUint64(c.out, math.Float64bits(v))
		case bool:
			c.out = append(c.out, boolByte(v))
		case string:
			c.out = append(appendLengthEncoded(c.out, uint64(len(v))), v...)
		case []byte:
			c.out = append(appendLengthEncoded(c.out, uint64(len(v))), v...)
		case time.Time:
			c.out = appendTime(c.out, v.In(c.location))
		}
	}
	return nil
}

// paramType is the type (and flags byte) a value is sent as.
func paramType(a driver.Value) ([2]byte, bool) {
	switch a.(type) {
	case nil:
		return [2]byte{typeNull}, true
	case int64:
		return [2]byte{typeLongLong}, true
	case uint64:
		return [2]byte{typeLongLong, flagUnsigned}, true
	case float64:
		return [2]byte{typeDouble}, true
	case bool:
		return [2]byte{typeTiny}, true
	case string, []byte, time.Time:
		return [2]byte{typeString}, true
	}
	return [2]byte{}, false
}

// appendTime appends a time as the server reads a DATETIME written as
// text ('0000-00-00' for the zero time, as go-sql-driver sends it).
func appendTime(b []byte, t time.Time) []byte {
	text := "0000-00-00"
	if !t.IsZero() {
		text = t.Format("2006-01-02 15:04:05.999999")
	}
	return append(appendLengthEncoded(b, uint64(len(text))), text...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func appendLengthEncoded(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n <= 0xffff:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n <= 0xffffff:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// result reads the answer to an execution: an OK, an error, or result
// sets whose rows are skipped; and the results that follow while the
// server says more exist. It reports the affected rows of the last.
func (c *wireConn) result() (int64, error) {
	for {
		n, p, err := c.nextPacket(10)
		if err != nil {
			return 0, err
		}
		var affected int64
		var status uint16
		switch {
		case p[0] == 0xff:
			return 0, c.serverError(n)
		case p[0] == 0x00:
			if affected, status, err = c.okPacket(n); err != nil {
				return 0, err
			}
		default:
			if status, err = c.resultSet(n, p); err != nil {
				return 0, err
			}
		}
		if status&statusMoreResults == 0 {
			return affected, nil
		}
	}
}

// resultSet reads a result set whose column count packet (n bytes, the
// first of them in p) has been reached, and returns the closing status.
func (c *wireConn) resultSet(n int, p []byte) (uint16, error) {
	columns, m := lengthEncoded(p)
	if m == 0 || columns == 0 {
		return 0, c.fail(errWireState)
	}
	metadata := true
	if c.cacheMetadata {
		metadata = len(p) > m && p[m] == 1
	}
	if err := c.skipPacket(n); err != nil {
		return 0, err
	}
	if metadata {
		if err := c.skipPackets(int(columns)); err != nil {
			return 0, err
		}
	}
	for {
		n, p, err := c.nextPacket(1)
		if err != nil {
			return 0, err
		}
		switch {
		case p[0] == 0xff:
			return 0, c.serverError(n)
		case p[0] == 0xfe && n < maxPayload && c.deprecateEOF:
			_, status, err := c.okPacket(n)
			return status, err
		case p[0] == 0xfe && n < maxPayload:
			p, err := c.peek(n)
			if err != nil {
				return 0, err
			}
			if len(p) < 5 {
				return 0, c.fail(errWireState)
			}
			return binary.LittleEndian.Uint16(p[3:]), c.skipPacket(n)
		}
		if err := c.skipPacket(n); err != nil {
			return 0, err
		}
	}
}

// close frees the statement on the server (no answer is sent).
func (s *wireStmt) close() error {
	c := s.c
	c.begin(comStmtClose)
	c.out = binary.LittleEndian.AppendUint32(c.out, s.id)
	return c.send()
}
