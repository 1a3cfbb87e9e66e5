// Package exportertest starts real Prometheus exporters from Debian's
// packages (prometheus-node-exporter, prometheus-mysqld-exporter) as
// private processes on loopback for a test, stopped at its cleanup. When
// an exporter is missing, the test fails under CI=true and is skipped
// elsewhere with the package to install.
package exportertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// Exporter is a running exporter.
type Exporter struct {
	URL string // its /metrics
	cmd *exec.Cmd
}

// NodeExporter starts Debian's prometheus-node-exporter.
func NodeExporter(t *testing.T) *Exporter {
	return start(t, "prometheus-node-exporter", nil)
}

// MySQLdExporter starts Debian's prometheus-mysqld-exporter reading the
// server of dsn (a go-sql-driver DSN; the exporter's own format).
func MySQLdExporter(t *testing.T, dsn string) *Exporter {
	return start(t, "prometheus-mysqld-exporter", []string{"DATA_SOURCE_NAME=" + dsn})
}

func start(t *testing.T, program string, env []string) *Exporter {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		if path, err = exec.LookPath(filepath.Join("/usr/bin", program)); err != nil {
			msg := fmt.Sprintf("%s is not installed (apt-get install %s, or bash scripts/test-deps.sh)", program, program)
			if sandboxtest.InCI() {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--web.listen-address="+addr)
	cmd.Env = append(os.Environ(), env...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	e := &Exporter{URL: "http://" + addr + "/metrics", cmd: cmd}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e
			}
		}
		select {
		case <-done:
			t.Fatalf("%s exited: %s", program, log.String())
		case <-ctx.Done():
			t.Fatalf("%s did not answer on %s within 20s: %s", program, e.URL, log.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
