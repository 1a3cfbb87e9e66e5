package main

import (
	"bytes"
	"database/sql"
	byteorder "encoding/binary"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/certtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// sysbench's TLS and compression options against a MariaDB that refuses
// plain TCP logins (require_secure_transport), with certificates the test
// made: the server's names localhost and 127.0.0.2, not 127.0.0.1.
//   - --mysql-ssl=off is refused by the server: what passes went over TLS;
//   - --mysql-ssl=on is sysbench 1.0.20's (its three files in the current
//     directory): Debian's sysbench prepares with it, and starbench runs
//     on its tables the same way;
//   - VERIFY_CA fails against another CA; VERIFY_IDENTITY fails by
//     127.0.0.1 and passes by 127.0.0.2 (a tap there);
//   - REQUIRED with a cipher and compression: the handshake asks for TLS
//     and compression, no statement text crosses the wire, and the
//     session the options make has that cipher, TLS 1.2 and compression on.
func TestSysbenchTLSAndCompression(t *testing.T) {
	certs := certtest.Make(t, "localhost", "127.0.0.2")
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{ExtraArgs: certs.ServerArgs(true)})
	cfg := m.Config()
	_, port, _ := net.SplitHostPort(cfg.Addr)
	login := []string{"--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=sbtest", "--tables=1", "--table-size=100"}
	args := func(host, port string, extra ...string) []string {
		a := append([]string{"sysbench", "oltp_read_only", "--mysql-host=" + host, "--mysql-port=" + port}, login...)
		return append(a, extra...)
	}
	// MariaDB answers a plain login with "access denied" (1045); the same
	// password passes over TLS below.
	expect(t, starbench(t, nil, args("127.0.0.1", port, "--mysql-ssl=off", "prepare")...), 1, "Error 1045")

	// sysbench 1.0.20's --mysql-ssl=on, in a folder with its files.
	dir := t.TempDir()
	for name, from := range map[string]string{"cacert.pem": certs.CA, "client-cert.pem": certs.ClientCert, "client-key.pem": certs.ClientKey} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	peer := exec.Command(sysbenchBinary(t), args("127.0.0.1", port, "--mysql-ssl=on", "prepare")[1:]...)
	peer.Dir = dir
	if out, err := peer.CombinedOutput(); err != nil {
		t.Fatalf("sysbench --mysql-ssl=on prepare: %v\n%s", err, out)
	}
	expect(t, starbenchIn(t, dir, nil, args("127.0.0.1", port, "--mysql-ssl=on", "--time=1", "--out", outDir(t), "run")...), 0,
		"note: --mysql-ssl=on: TLS with the server's certificate checked against cacert.pem", "(completed)")
	expect(t, starbench(t, nil, args("127.0.0.1", port, "--mysql-ssl=on", "--time=1", "run")...), 2,
		"this one has no cacert.pem, client-cert.pem, client-key.pem")

	other := certtest.Make(t, "localhost")
	expect(t, starbench(t, nil, args("127.0.0.1", port, "--mysql-ssl=VERIFY_CA", "--mysql-ssl-ca="+other.CA, "--time=1", "run")...), 1,
		"certificate signed by unknown authority")
	expect(t, starbench(t, nil, args("127.0.0.1", port, "--mysql-ssl=VERIFY_IDENTITY", "--mysql-ssl-ca="+certs.CA, "--time=1", "run")...), 1,
		"not 127.0.0.1")
	byName, _ := sandboxtest.Tap(t, "127.0.0.2", cfg.Addr)
	host2, port2, _ := net.SplitHostPort(byName)
	expect(t, starbench(t, nil, args(host2, port2, "--mysql-ssl=VERIFY_IDENTITY", "--mysql-ssl-ca="+certs.CA, "--time=1", "--out", outDir(t), "run")...), 0,
		"(completed)")

	// Through a tap: what the client sends.
	tapped, sent := sandboxtest.Tap(t, "127.0.0.1", cfg.Addr)
	tapHost, tapPort, _ := net.SplitHostPort(tapped)
	opts := []string{"--mysql-ssl=REQUIRED", "--mysql-ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256", "--mysql-compression=on"}
	out := outDir(t)
	expect(t, starbench(t, nil, args(tapHost, tapPort, append(opts, "--time=2", "--out", out, "run")...)...), 0, "(completed)")
	sum, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Events == 0 || sum.Errors != 0 {
		t.Errorf("run over TLS and compression: %d events, %d errors", sum.Events, sum.Errors)
	}
	b := sent()
	if len(b) < 8 {
		t.Fatalf("the tap saw %d bytes", len(b))
	}
	const capCompress, capSSL = 1 << 5, 1 << 11
	if caps := byteorder.LittleEndian.Uint32(b[4:8]); caps&capSSL == 0 || caps&capCompress == 0 {
		t.Errorf("the client's first packet has capabilities %#x: want TLS (%#x) and compression (%#x)", caps, capSSL, capCompress)
	}
	if bytes.Contains(b, []byte("sbtest1")) {
		t.Errorf("statement text crossed the wire in plain text")
	}

	cl, err := sysbench.ParseCommandLine(args("127.0.0.1", port, append(opts, "run")...)[1:])
	if err != nil {
		t.Fatal(err)
	}
	connector, err := mysql.NewConnector(cl.MySQL.Configs()[0])
	if err != nil {
		t.Fatal(err)
	}
	conn := sql.OpenDB(connector)
	defer conn.Close()
	status := map[string]string{}
	rows, err := conn.Query("SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_cipher', 'Ssl_version', 'Compression')")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		status[k] = v
	}
	if status["Ssl_cipher"] != "ECDHE-RSA-AES128-GCM-SHA256" || status["Ssl_version"] != "TLSv1.2" || status["Compression"] != "ON" {
		t.Errorf("the session's status: %v", status)
	}
}
