package tiupstub

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Front stands where a TiDB server of a stand-in cluster would: it relays
// MySQL-protocol connections to a real server (a private MariaDB) and
// answers the TiDB-only tables of information_schema that starbench's
// standard library reads - TIKV_STORE_STATUS, TIKV_REGION_STATUS and
// TIKV_REGION_PEERS - from real tables of TiDB's documented shape (the
// columns of `DESC` in TiDB's documentation) in a schema of its own on
// that server. A statement naming information_schema.<one of them> is
// sent with the name changed to that schema, so the server's own SQL
// (joins, DISTINCT, GROUP BY) runs on the rows; TIKV_STORE_STATUS is
// filled from Stores (e.g. Stub.ClusterStores) before each such
// statement, the region tables are the test's to fill (Schema, DB).
//
// It reads only the client's command packets (COM_QUERY and
// COM_STMT_PREPARE, whose text it may rewrite) and the server's greeting
// (it clears the TLS and compression capabilities, so that the stream
// stays readable); everything else passes through untouched.
type Front struct {
	Addr   string  // host:port to give as the TiDB server's address
	Schema string  // the schema holding the TiDB tables on the real server
	DB     *sql.DB // the real server, to fill the region tables
	Stores func() ([]Store, error)
	// Config answers SHOW CONFIG (e.g. Stub.ClusterConfig); nil: no rows.
	// Version, when set, answers SELECT VERSION() (TiDB's form, e.g.
	// "5.7.25-TiDB-v5.2.0"). Set them before clients connect. See
	// front_tidb.go for the TiDB-only statements a Front answers.
	Config  func() ([]ConfigRow, error)
	Version string

	globals map[string]string // the TiDB variables clients set

	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

// tidbTables are the TiDB-only tables the front answers, with TiDB's
// documented columns.
var tidbTables = map[string]string{
	"tikv_store_status": `STORE_ID BIGINT, ADDRESS VARCHAR(64), STORE_STATE BIGINT, STORE_STATE_NAME VARCHAR(64),
		LABEL JSON, VERSION VARCHAR(64), CAPACITY VARCHAR(64), AVAILABLE VARCHAR(64), LEADER_COUNT BIGINT,
		LEADER_WEIGHT DOUBLE, LEADER_SCORE DOUBLE, LEADER_SIZE BIGINT, REGION_COUNT BIGINT, REGION_WEIGHT DOUBLE,
		REGION_SCORE DOUBLE, REGION_SIZE BIGINT, START_TS DATETIME, LAST_HEARTBEAT_TS DATETIME, UPTIME VARCHAR(64)`,
	"tikv_region_status": `REGION_ID BIGINT, START_KEY TEXT, END_KEY TEXT, TABLE_ID BIGINT, DB_NAME VARCHAR(64),
		TABLE_NAME VARCHAR(64), IS_INDEX TINYINT(1) NOT NULL DEFAULT 0, INDEX_ID BIGINT, INDEX_NAME VARCHAR(64),
		IS_PARTITION TINYINT(1) NOT NULL DEFAULT 0, PARTITION_ID BIGINT, PARTITION_NAME VARCHAR(64), EPOCH_CONF_VER BIGINT,
		EPOCH_VERSION BIGINT, WRITTEN_BYTES BIGINT, READ_BYTES BIGINT, APPROXIMATE_SIZE BIGINT, APPROXIMATE_KEYS BIGINT,
		REPLICATIONSTATUS_STATE VARCHAR(64), REPLICATIONSTATUS_STATEID BIGINT`,
	"tikv_region_peers": `REGION_ID BIGINT, PEER_ID BIGINT, STORE_ID BIGINT, IS_LEARNER TINYINT(1) NOT NULL DEFAULT 0,
		IS_LEADER TINYINT(1) NOT NULL DEFAULT 0, STATUS VARCHAR(10) DEFAULT '0', DOWN_SECONDS BIGINT DEFAULT 0`,
}

var tidbTableName = regexp.MustCompile("(?i)`?information_schema`?\\s*\\.\\s*`?(tikv_store_status|tikv_region_status|tikv_region_peers)\\b`?")

// StartFront listens on a random loopback port and relays to target (a
// driver configuration with a user that may create schemas). It stops,
// and drops its schema, when the test ends.
func StartFront(t testing.TB, target *mysql.Config, stores func() ([]Store, error)) *Front {
	t.Helper()
	return StartFrontAt(t, "127.0.0.1:0", target, stores)
}

// StartFrontAt is StartFront listening on addr, e.g. TiDB's own port 4000
// on a loopback address of the test's choosing.
func StartFrontAt(t testing.TB, addr string, target *mysql.Config, stores func() ([]Store, error)) *Front {
	t.Helper()
	cfg := target.Clone()
	cfg.DBName = ""
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		t.Fatal(err)
	}
	f := &Front{Schema: "tidb_front_" + hex.EncodeToString(suffix), DB: db, Stores: stores, target: cfg.Addr}
	stmts := []string{"CREATE DATABASE " + f.Schema}
	for name, cols := range tidbTables {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.%s (%s)", f.Schema, name, cols))
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			t.Fatalf("front: %s: %v", q, err)
		}
	}
	f.ln, err = net.Listen("tcp", addr)
	if err != nil {
		db.Exec("DROP DATABASE " + f.Schema)
		db.Close()
		t.Fatal(err)
	}
	f.Addr = f.ln.Addr().String()
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(func() {
		f.ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
		if _, err := db.Exec("DROP DATABASE " + f.Schema); err != nil {
			t.Errorf("front: drop %s: %v", f.Schema, err)
		}
		db.Close()
	})
	return f
}

func (f *Front) accept() {
	defer f.wg.Done()
	for {
		client, err := f.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", f.target, 10*time.Second)
		if err != nil {
			client.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, client, server)
		f.mu.Unlock()
		r := &relay{f: f, client: client, server: server}
		f.wg.Add(2)
		go func() { defer f.wg.Done(); r.fromServer() }()
		go func() { defer f.wg.Done(); r.fromClient() }()
	}
}

// relay is one client connection and its server connection.
type relay struct {
	f              *Front
	client, server net.Conn
	mu             sync.Mutex // writes to the client, and db
	db             string     // the client's current database
	answered       bool       // the client's handshake response went by
}

func (r *relay) close() {
	r.client.Close()
	r.server.Close()
}

func (r *relay) toClient(b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.client.Write(b)
	return err
}

const (
	capCompress = 0x00000020
	capSSL      = 0x00000800
	comInitDB   = 0x02
	comQuery    = 0x03
	comPrepare  = 0x16
	maxPacket   = 1<<24 - 1
)

func readPacket(r io.Reader) (seq byte, payload []byte, err error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	payload = make([]byte, n)
	_, err = io.ReadFull(r, payload)
	return h[3], payload, err
}

func packet(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// fromServer passes the server's bytes on, with TLS and compression
// taken out of the greeting's capabilities.
func (r *relay) fromServer() {
	defer r.close()
	seq, greeting, err := readPacket(r.server)
	if err != nil {
		return
	}
	if len(greeting) > 0 && greeting[0] == 10 {
		if end := strings.IndexByte(string(greeting[1:]), 0); end >= 0 {
			at := 1 + end + 1 + 4 + 8 + 1 // version, NUL, connection id, auth data, filler
			if at+2 <= len(greeting) {
				caps := binary.LittleEndian.Uint16(greeting[at:])
				binary.LittleEndian.PutUint16(greeting[at:], caps&^uint16(capSSL|capCompress))
			}
		}
	}
	if r.toClient(packet(seq, greeting)) != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.server.Read(buf)
		if n > 0 && r.toClient(buf[:n]) != nil {
			return
		}
		if err != nil {
			return
		}
	}
}

// fromClient passes the client's packets on, rewriting the statements
// that name TiDB's tables.
func (r *relay) fromClient() {
	defer r.close()
	for {
		seq, payload, err := readPacket(r.client)
		if err != nil {
			return
		}
		if len(payload) == maxPacket { // a statement split over packets: passed on as it is
			if _, err := r.server.Write(packet(seq, payload)); err != nil {
				return
			}
			continue
		}
		if !r.answered { // the handshake response: the database it names
			r.answered = true
			r.setDB(handshakeDB(payload))
		}
		if seq == 0 && len(payload) > 1 && payload[0] == comInitDB {
			r.setDB(string(payload[1:]))
		}
		if seq == 0 && len(payload) > 1 && (payload[0] == comQuery || payload[0] == comPrepare) {
			text := string(payload[1:])
			rewritten, err := r.rewriteTiDB(text)
			if err != nil {
				if r.toClient(errPacket(1, 1105, "HY000", "tiupstub front: "+err.Error())) != nil {
					return
				}
				continue
			}
			if rewritten != text {
				text = rewritten
				payload = append([]byte{payload[0]}, text...)
			}
			if tidbTableName.MatchString(text) {
				if err := r.f.prepare(text); err != nil {
					if r.toClient(errPacket(1, 1105, "HY000", "tiupstub front: "+err.Error())) != nil {
						return
					}
					continue
				}
				text = tidbTableName.ReplaceAllStringFunc(text, func(m string) string {
					name := strings.ToLower(tidbTableName.FindStringSubmatch(m)[1])
					return "`" + r.f.Schema + "`.`" + name + "`"
				})
				payload = append([]byte{payload[0]}, text...)
			}
		}
		if _, err := r.server.Write(packet(seq, payload)); err != nil {
			return
		}
	}
}

// errPacket is a MySQL ERR packet.
func errPacket(seq byte, code uint16, sqlState, msg string) []byte {
	p := []byte{0xff, byte(code), byte(code >> 8), '#'}
	p = append(p, sqlState...)
	p = append(p, msg...)
	return packet(seq, p)
}

// prepare fills TIKV_STORE_STATUS from Stores before a statement that
// reads it.
func (f *Front) prepare(text string) error {
	if !strings.Contains(strings.ToLower(text), "tikv_store_status") || f.Stores == nil {
		return nil
	}
	stores, err := f.Stores()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := f.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+f.Schema+".tikv_store_status"); err != nil {
		return err
	}
	for _, s := range stores {
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+f.Schema+".tikv_store_status (STORE_ID, ADDRESS, STORE_STATE, STORE_STATE_NAME, LABEL, VERSION, "+
			"CAPACITY, AVAILABLE, LEADER_COUNT, LEADER_WEIGHT, LEADER_SCORE, LEADER_SIZE, REGION_COUNT, REGION_WEIGHT, REGION_SCORE, REGION_SIZE, "+
			"START_TS, LAST_HEARTBEAT_TS, UPTIME) VALUES (?, ?, ?, ?, ?, ?, '100GiB', '90GiB', 0, 1, 0, 0, 0, 1, 0, 0, NOW(), NOW(), '1h0m0s')",
			s.ID, s.Address, storeStateID(s.State), s.State, s.Label, s.Version); err != nil {
			return err
		}
	}
	return tx.Commit()
}
