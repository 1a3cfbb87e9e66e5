// Package certtest makes the TLS certificates a test needs: a CA of its
// own, a server certificate it signs for chosen names, and a client
// certificate, written as PEM files into the test's temp folder.
package certtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files are the PEM files of one set of certificates.
type Files struct {
	Dir                   string
	CA                    string // the CA's certificate
	ServerCert, ServerKey string
	ClientCert, ClientKey string
}

// Make writes a CA and server and client certificates it signed into a
// new temp folder. The server certificate is for hosts (IP addresses or
// DNS names). Keys are RSA, so that TLS 1.2's RSA suites can be chosen.
func Make(t testing.TB, hosts ...string) Files {
	t.Helper()
	dir := t.TempDir()
	f := Files{Dir: dir}
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "starbench test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	f.CA = write(t, dir, "ca.pem", "CERTIFICATE", caDER)

	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, hosts []string) (cert, key string) {
		k := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, dir, name+"-cert.pem", "CERTIFICATE", der),
			write(t, dir, name+"-key.pem", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k))
	}
	f.ServerCert, f.ServerKey = leaf(2, "server", x509.ExtKeyUsageServerAuth, hosts)
	f.ClientCert, f.ClientKey = leaf(3, "client", x509.ExtKeyUsageClientAuth, nil)
	return f
}

func newKey(t testing.TB) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func write(t testing.TB, dir, name, kind string, der []byte) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ServerArgs are the mariadbd options that serve TLS with these files;
// with requireTLS, plain TCP logins are refused
// (require_secure_transport).
func (f Files) ServerArgs(requireTLS bool) []string {
	args := []string{"--ssl-ca=" + f.CA, "--ssl-cert=" + f.ServerCert, "--ssl-key=" + f.ServerKey}
	if requireTLS {
		args = append(args, "--require-secure-transport=ON")
	}
	return args
}
