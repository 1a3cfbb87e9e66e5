// Package benchtest holds an in-process MySQL-protocol responder for
// benchmarks of the workload engine and tests of its transport
// (internal/mysqlconn): it speaks just enough of the protocol (handshake,
// COM_QUERY, prepared statements, one-row results) to answer
// sysbench-style statements at once, so that a benchmark measures the
// client's own cost per query.
package benchtest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
)

// Responder is a listening MySQL-protocol responder on 127.0.0.1.
type Responder struct {
	ln      net.Listener
	release func() // see bench.InProcessServer
	wg      sync.WaitGroup
	mu      sync.Mutex
	conn    []net.Conn
}

// Start listens on a random loopback port.
func Start() (*Responder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Responder{ln: ln, release: bench.InProcessServer()}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is host:port.
func (r *Responder) Addr() string { return r.ln.Addr().String() }

// Config is a driver configuration for the responder (user root, database
// sbtest).
func (r *Responder) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", r.Addr(), "sbtest"
	return cfg
}

// Close stops listening and ends every connection.
func (r *Responder) Close() {
	defer r.release()
	r.ln.Close()
	r.mu.Lock()
	for _, c := range r.conn {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Responder) accept() {
	defer r.wg.Done()
	for id := uint32(1); ; id++ {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.conn = append(r.conn, c)
		r.mu.Unlock()
		r.wg.Add(1)
		go func(id uint32) {
			defer r.wg.Done()
			defer c.Close()
			(&session{rw: bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c)), id: id, stmts: map[uint32]stmt{}}).serve()
		}(id)
	}
}

type stmt struct {
	params  int
	columns int
}

type session struct {
	rw    *bufio.ReadWriter
	id    uint32
	seq   byte
	stmts map[uint32]stmt
	next  uint32
	buf   []byte
	hdr   [4]byte
	in    []byte
}

const (
	capLongPassword  = 1
	capConnectWithDB = 8
	capProtocol41    = 512
	capTransactions  = 8192
	capSecureConn    = 32768
	capPluginAuth    = 1 << 19
	serverCaps       = capLongPassword | capConnectWithDB | capProtocol41 | capTransactions | capSecureConn | capPluginAuth
)

func (s *session) serve() {
	s.handshake()
	if _, err := s.read(); err != nil { // the client's handshake response
		return
	}
	s.ok(0)
	if s.rw.Flush() != nil {
		return
	}
	for {
		s.seq = 0
		pkt, err := s.read()
		if err != nil || len(pkt) == 0 {
			return
		}
		switch pkt[0] {
		case 0x01: // COM_QUIT
			return
		case 0x03, 0x0e, 0x02: // COM_QUERY, COM_PING, COM_INIT_DB
			s.ok(0)
		case 0x16: // COM_STMT_PREPARE
			s.prepare(string(pkt[1:]))
		case 0x17: // COM_STMT_EXECUTE
			st := s.stmts[binary.LittleEndian.Uint32(pkt[1:5])]
			if st.columns > 0 {
				s.row()
			} else {
				s.ok(1)
			}
		case 0x19: // COM_STMT_CLOSE: no answer
			continue
		default:
			s.ok(0)
		}
		if s.rw.Flush() != nil {
			return
		}
	}
}

func (s *session) read() ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(s.rw, head[:]); err != nil {
		return nil, err
	}
	n := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
	s.seq = head[3] + 1
	if cap(s.in) < n {
		s.in = make([]byte, n)
	}
	s.in = s.in[:n]
	_, err := io.ReadFull(s.rw, s.in)
	return s.in, err
}

func (s *session) write(payload []byte) {
	n := len(payload)
	s.hdr = [4]byte{byte(n), byte(n >> 8), byte(n >> 16), s.seq}
	s.rw.Write(s.hdr[:])
	s.rw.Write(payload)
	s.seq++
}

// Fixed packets, shared so that answering allocates nothing.
var (
	eofPacket      = []byte{0xfe, 0, 0, 2, 0}
	okPackets      = [2][]byte{{0x00, 0, 0, 2, 0, 0, 0}, {0x00, 1, 0, 2, 0, 0, 0}}
	oneColumnCount = []byte{1}
)

func (s *session) handshake() {
	b := []byte{10}
	b = append(b, "8.0.0-starbench-responder"...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, s.id)
	b = append(b, "abcdefgh"...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps&0xffff))
	b = append(b, 33)
	b = binary.LittleEndian.AppendUint16(b, 2) // autocommit
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps>>16))
	b = append(b, 21)
	b = append(b, make([]byte, 10)...)
	b = append(b, "ijklmnopqrst"...)
	b = append(b, 0)
	b = append(b, "mysql_native_password"...)
	b = append(b, 0)
	s.write(b)
	s.rw.Flush()
}

// ok answers with an OK packet reporting 0 or 1 affected rows.
func (s *session) ok(affected byte) {
	s.write(okPackets[min(affected, 1)])
}

func (s *session) eof() {
	s.write(eofPacket)
}

func lenenc(b []byte, str string) []byte {
	b = append(b, byte(len(str)))
	return append(b, str...)
}

func (s *session) column(name string) {
	b := s.buf[:0]
	for _, f := range []string{"def", "sbtest", "sbtest1", "sbtest1", name, name} {
		b = lenenc(b, f)
	}
	b = append(b, 0x0c, 33, 0, 120, 0, 0, 0, 0xfe, 0, 0, 0, 0, 0) // charset, length, CHAR, flags, decimals, filler
	s.buf = b
	s.write(b)
}

func (s *session) prepare(query string) {
	s.next++
	st := stmt{params: strings.Count(query, "?")}
	if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "SELECT") {
		st.columns = 1
	}
	s.stmts[s.next] = st
	b := []byte{0x00}
	b = binary.LittleEndian.AppendUint32(b, s.next)
	b = binary.LittleEndian.AppendUint16(b, uint16(st.columns))
	b = binary.LittleEndian.AppendUint16(b, uint16(st.params))
	b = append(b, 0, 0, 0)
	s.write(b)
	if st.params > 0 {
		for i := 0; i < st.params; i++ {
			s.column("?")
		}
		s.eof()
	}
	if st.columns > 0 {
		s.column("c")
		s.eof()
	}
}

// value is the one column of every row: a sysbench c value.
const value = "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441"

func (s *session) row() {
	s.write(oneColumnCount)
	s.column("c")
	s.eof()
	b := append(s.buf[:0], 0x00, 0x00) // binary row header, null bitmap
	b = lenenc(b, value)
	s.buf = b
	s.write(b)
	s.eof()
}
