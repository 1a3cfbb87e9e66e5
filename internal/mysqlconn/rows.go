package mysqlconn

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Rows: TPC-C's transactions use what they read (the next order id,
// prices, the customers of a last name), so a statement can also hand its
// rows back, decoded, one at a time (QueryRows). Values are int64 or
// uint64 for integer columns, float64 for FLOAT and DOUBLE, time.Time for
// DATE, DATETIME and TIMESTAMP, nil for NULL, and []byte for the rest
// (DECIMAL and character columns as their text); a []byte is valid only
// during the call that gets it.

// column is what decoding a binary row needs of a result column.
type column struct {
	typ      byte
	unsigned bool
}

// Column types of the binary protocol (the ones decoded as numbers or
// times; every other type is a length-encoded string).
// (typeTiny, typeDouble and typeLongLong are with the parameter types in
// wire.go.)
const (
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeTimestamp  = 0x07
	typeInt24      = 0x09
	typeDate       = 0x0a
	typeTime       = 0x0b
	typeDateTime   = 0x0c
	typeYear       = 0x0d
	columnUnsigned = 0x20 // in a column definition's flags
)

// errRowTooLarge stops a row that does not fit in memory bounds we set.
var errRowTooLarge = errors.New("a result row of more than 64 MiB")

// readColumn reads a column definition packet of n bytes.
func (c *wireConn) readColumn(n int) (column, error) {
	p, err := c.payload(n)
	if err != nil {
		return column{}, err
	}
	// catalog, schema, table, org_table, name, org_name, then the
	// fixed-length fields: charset (2), length (4), type, flags (2).
	off := 0
	for range 6 {
		l, m := lengthEncoded(p[off:])
		if m == 0 || off+m+int(l) > len(p) {
			return column{}, c.fail(errWireState)
		}
		off += m + int(l)
	}
	_, m := lengthEncoded(p[off:])
	off += m
	if m == 0 || off+9 > len(p) {
		return column{}, c.fail(errWireState)
	}
	col := column{typ: p[off+6], unsigned: binary.LittleEndian.Uint16(p[off+7:])&columnUnsigned != 0}
	return col, c.consume(n)
}

// readColumns reads n column definitions (and the EOF after them on
// connections that still send it).
func (c *wireConn) readColumns(n int) ([]column, error) {
	cols := make([]column, n)
	for i := range cols {
		m, err := c.packet()
		if err != nil {
			return nil, err
		}
		if cols[i], err = c.readColumn(m); err != nil {
			return nil, err
		}
	}
	if !c.deprecateEOF {
		m, err := c.packet()
		if err != nil {
			return nil, err
		}
		if err := c.skipPacket(m); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// payload makes a whole packet of n bytes readable: in the read buffer
// when it fits (consume it after use), else in c.big (already consumed),
// following continuation packets of a payload of 16 MiB or more.
func (c *wireConn) payload(n int) ([]byte, error) {
	if n < len(c.in) && n < maxPayload {
		return c.peek(n)
	}
	c.big = c.big[:0]
	for {
		if len(c.big)+n > 64<<20 {
			return nil, c.fail(errRowTooLarge)
		}
		for left := n; left > 0; {
			if err := c.fill(min(left, len(c.in))); err != nil {
				return nil, err
			}
			m := min(left, c.w-c.r)
			c.big = append(c.big, c.in[c.r:c.r+m]...)
			c.r += m
			left -= m
		}
		if n < maxPayload {
			return c.big, nil
		}
		var err error
		if n, err = c.packet(); err != nil {
			return nil, err
		}
	}
}

// consume drops a packet payload read with payload (a no-op when it was
// copied to c.big).
func (c *wireConn) consume(n int) error {
	if n < len(c.in) && n < maxPayload {
		c.r += n
	}
	return nil
}

// queryRows executes the statement and decodes the rows of its result,
// calling row for each; the statement's other results are read and
// dropped. It reports how many rows there were.
func (s *wireStmt) queryRows(args []driver.Value, row func([]driver.Value) error) (int64, error) {
	c := s.c
	if err := s.send(args); err != nil {
		return 0, err
	}
	var rows int64
	var rowErr error
	for {
		n, p, err := c.nextPacket(10)
		if err != nil {
			return rows, err
		}
		var status uint16
		switch {
		case p[0] == 0xff:
			return rows, c.serverError(n)
		case p[0] == 0x00:
			if _, status, err = c.okPacket(n); err != nil {
				return rows, err
			}
		default:
			var m int64
			m, status, err = s.decodeResultSet(n, p, func(v []driver.Value) error {
				if rowErr == nil {
					rowErr = row(v)
				}
				return nil
			})
			rows += m
			if err != nil {
				return rows, err
			}
		}
		if status&statusMoreResults == 0 {
			return rows, rowErr
		}
	}
}

// decodeResultSet reads a result set whose column count packet (n bytes,
// the first of them in p) has been reached, decoding each row for row,
// and returns the rows and the closing status.
func (s *wireStmt) decodeResultSet(n int, p []byte, row func([]driver.Value) error) (int64, uint16, error) {
	c := s.c
	count, m := lengthEncoded(p)
	if m == 0 || count == 0 {
		return 0, 0, c.fail(errWireState)
	}
	metadata := true
	if c.cacheMetadata {
		metadata = len(p) > m && p[m] == 1
	}
	if err := c.skipPacket(n); err != nil {
		return 0, 0, err
	}
	if metadata {
		cols, err := c.readColumns(int(count))
		if err != nil {
			return 0, 0, err
		}
		s.columns = cols
	} else if len(s.columns) != int(count) {
		return 0, 0, c.fail(errWireState) // cached metadata we never saw
	}
	if cap(s.values) < len(s.columns) {
		s.values = make([]driver.Value, len(s.columns))
	}
	values := s.values[:len(s.columns)]
	var rows int64
	for {
		n, p, err := c.nextPacket(1)
		if err != nil {
			return rows, 0, err
		}
		switch {
		case p[0] == 0xff:
			return rows, 0, c.serverError(n)
		case p[0] == 0xfe && n < 0xffffff && c.deprecateEOF:
			_, status, err := c.okPacket(n)
			return rows, status, err
		case p[0] == 0xfe && n < 9:
			p, err := c.peek(n)
			if err != nil {
				return rows, 0, err
			}
			if len(p) < 5 {
				return rows, 0, c.fail(errWireState)
			}
			return rows, binary.LittleEndian.Uint16(p[3:]), c.skipPacket(n)
		}
		payload, err := c.payload(n)
		if err != nil {
			return rows, 0, err
		}
		if err := decodeRow(payload, s.columns, values, c.location); err != nil {
			return rows, 0, c.fail(err)
		}
		err = row(values)
		_ = c.consume(n)
		rows++
		if err != nil {
			return rows, 0, err
		}
	}
}

// decodeRow decodes a binary protocol row (0x00, the NULL bitmap with an
// offset of 2, then each non-NULL value) into values.
func decodeRow(p []byte, cols []column, values []driver.Value, loc *time.Location) error {
	nullBytes := (len(cols) + 7 + 2) / 8
	if len(p) < 1+nullBytes || p[0] != 0 {
		return errWireState
	}
	nulls, off := p[1:1+nullBytes], 1+nullBytes
	for i, col := range cols {
		if nulls[(i+2)/8]&(1<<((i+2)%8)) != 0 {
			values[i] = nil
			continue
		}
		v, m, err := decodeValue(p[off:], col, loc)
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		values[i], off = v, off+m
	}
	return nil
}

// decodeValue decodes one binary protocol value at the start of p and
// returns it with its size.
func decodeValue(p []byte, col column, loc *time.Location) (driver.Value, int, error) {
	fixed := func(size int) ([]byte, error) {
		if len(p) < size {
			return nil, io.ErrUnexpectedEOF
		}
		return p[:size], nil
	}
	switch col.typ {
	case typeTiny:
		b, err := fixed(1)
		if err != nil {
			return nil, 0, err
		}
		if col.unsigned {
			return int64(b[0]), 1, nil
		}
		return int64(int8(b[0])), 1, nil
	case typeShort, typeYear:
		b, err := fixed(2)
		if err != nil {
			return nil, 0, err
		}
		u := binary.LittleEndian.Uint16(b)
		if col.unsigned || col.typ == typeYear {
			return int64(u), 2, nil
		}
		return int64(int16(u)), 2, nil
	case typeLong, typeInt24:
		b, err := fixed(4)
		if err != nil {
			return nil, 0, err
		}
		u := binary.LittleEndian.Uint32(b)
		if col.unsigned {
			return int64(u), 4, nil
		}
		return int64(int32(u)), 4, nil
	case typeLongLong:
		b, err := fixed(8)
		if err != nil {
			return nil, 0, err
		}
		u := binary.LittleEndian.Uint64(b)
		if col.unsigned && u > math.MaxInt64 {
			return u, 8, nil
		}
		return int64(u), 8, nil
	case typeFloat:
		b, err := fixed(4)
		if err != nil {
			return nil, 0, err
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 4, nil
	case typeDouble:
		b, err := fixed(8)
		if err != nil {
			return nil, 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8, nil
	case typeDate, typeDateTime, typeTimestamp:
		return decodeTime(p, loc)
	case typeTime:
		return decodeDuration(p)
	}
	l, m := lengthEncoded(p)
	if m == 0 || m+int(l) > len(p) {
		return nil, 0, io.ErrUnexpectedEOF
	}
	return p[m : m+int(l)], m + int(l), nil
}

// decodeTime decodes a DATE, DATETIME or TIMESTAMP: a length (0, 4, 7 or
// 11), then year (2 bytes), month, day, hour, minute, second, microsecond
// (4 bytes) as far as the length goes.
func decodeTime(p []byte, loc *time.Location) (driver.Value, int, error) {
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return nil, 0, io.ErrUnexpectedEOF
	}
	n := int(p[0])
	var y, mo, d, h, mi, s, us int
	switch n {
	case 0:
		return time.Time{}, 1, nil
	case 11:
		us = int(binary.LittleEndian.Uint32(p[8:]))
		fallthrough
	case 7:
		h, mi, s = int(p[5]), int(p[6]), int(p[7])
		fallthrough
	case 4:
		y, mo, d = int(binary.LittleEndian.Uint16(p[1:])), int(p[3]), int(p[4])
	default:
		return nil, 0, fmt.Errorf("a date of %d bytes", n)
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, us*1000, loc), 1 + n, nil
}

// decodeDuration decodes a TIME (a length of 0, 8 or 12, the sign, days,
// hours, minutes, seconds and microseconds) as its text, [-]HH:MM:SS[.ffffff].
func decodeDuration(p []byte) (driver.Value, int, error) {
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return nil, 0, io.ErrUnexpectedEOF
	}
	n := int(p[0])
	if n == 0 {
		return []byte("00:00:00"), 1, nil
	}
	if n != 8 && n != 12 {
		return nil, 0, fmt.Errorf("a time of %d bytes", n)
	}
	sign := ""
	if p[1] == 1 {
		sign = "-"
	}
	hours := int(binary.LittleEndian.Uint32(p[2:]))*24 + int(p[6])
	text := fmt.Sprintf("%s%02d:%02d:%02d", sign, hours, p[7], p[8])
	if n == 12 {
		text += fmt.Sprintf(".%06d", binary.LittleEndian.Uint32(p[9:]))
	}
	return []byte(text), 1 + n, nil
}

// QueryRows runs the statement and calls row for each row of its result,
// decoded (see the values above); when row returns an error the rest of
// the result is read and dropped and that error returned. It reports how
// many rows there were.
func (w *wireSessionStmt) QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error) {
	values, err := w.args.bind(args)
	if err != nil {
		return 0, err
	}
	defer w.s.watch(ctx)()
	n, err := w.st.queryRows(values, row)
	return n, ctxErr(ctx, err)
}

// QueryRows is wireSessionStmt.QueryRows through the driver's statement
// (TLS and compressed connections): the driver decodes the rows.
func (d *driverStmt) QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error) {
	values, err := d.args.bind(args)
	if err != nil {
		return 0, err
	}
	defer d.s.watch(ctx)()
	rows, err := d.st.Query(values)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	n, err := d.s.eachRow(rows, row)
	return n, ctxErr(ctx, err)
}

// QueryRows is wireSessionStmt.QueryRows for statements sent as text
// (values come as the text protocol has them: []byte, or nil).
func (t *textStmt) QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error) {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return 0, err
	}
	defer t.s.watch(ctx)()
	rows, err := t.s.conn.(driver.QueryerContext).QueryContext(context.Background(), q, nil)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	n, err := t.s.eachRow(rows, row)
	return n, ctxErr(ctx, err)
}

// eachRow hands a driver result's rows to row, its values made the same
// types as the binary path's (the driver gives FLOAT as float32, dates
// and large unsigned integers as text), then closes it.
func (s *Session) eachRow(rows driver.Rows, row func([]driver.Value) error) (int64, error) {
	cols := len(rows.Columns())
	if cap(s.dest) < cols {
		s.dest = make([]driver.Value, cols)
	}
	dest := s.dest[:cols]
	types := make([]string, cols)
	if named, ok := rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range types {
			types[i] = named.ColumnTypeDatabaseTypeName(i)
		}
	}
	var n int64
	var rowErr, err error
	for {
		if err = rows.Next(dest); err != nil {
			break
		}
		n++
		for i, v := range dest {
			dest[i] = normalize(v, types[i], s.loc)
		}
		if rowErr == nil {
			rowErr = row(dest)
		}
	}
	if err == io.EOF {
		err = nil
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rowErr
	}
	return n, err
}

// normalize makes a value the driver decoded the type the binary path
// gives for its column type (the database type name the driver reports).
func normalize(v driver.Value, typeName string, loc *time.Location) driver.Value {
	switch v := v.(type) {
	case float32:
		return float64(v)
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v)
		}
	case []byte:
		switch typeName {
		case "DATE", "DATETIME", "TIMESTAMP":
			for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02"} {
				if t, err := time.ParseInLocation(layout, string(v), loc); err == nil {
					return t
				}
			}
		case "UNSIGNED BIGINT":
			if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
				if u <= math.MaxInt64 {
					return int64(u)
				}
				return u
			}
		}
	}
	return v
}
