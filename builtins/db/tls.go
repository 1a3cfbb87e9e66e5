package db

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/readfile"
)

// TLSMode is how a client asks for TLS, named as MySQL's client programs
// name their --ssl-mode values.
type TLSMode string

// The TLS modes. Only VerifyIdentity checks the server certificate's
// name; VerifyCA checks its chain only; Required encrypts and checks
// nothing, as libmysqlclient's REQUIRED does.
const (
	TLSDisabled       TLSMode = "DISABLED"
	TLSPreferred      TLSMode = "PREFERRED" // TLS when the server offers it, else plain
	TLSRequired       TLSMode = "REQUIRED"
	TLSVerifyCA       TLSMode = "VERIFY_CA"
	TLSVerifyIdentity TLSMode = "VERIFY_IDENTITY"
)

// TLSModes lists the modes in order of strictness.
var TLSModes = []TLSMode{TLSDisabled, TLSPreferred, TLSRequired, TLSVerifyCA, TLSVerifyIdentity}

// ParseTLSMode reads a mode name in any case.
func ParseTLSMode(s string) (TLSMode, error) {
	for _, m := range TLSModes {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	names := make([]string, len(TLSModes))
	for i, m := range TLSModes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown TLS mode %q (want one of %s)", s, strings.Join(names, ", "))
}

// TLSOptions are a client's TLS settings as MySQL's clients take them:
// file names of PEM files and an OpenSSL cipher list.
type TLSOptions struct {
	Mode TLSMode
	CA   string // CA certificates for VERIFY_CA and VERIFY_IDENTITY; "" means the system's
	Cert string // client certificate, with Key
	Key  string
	// Ciphers are OpenSSL cipher names (ECDHE-RSA-AES128-GCM-SHA256, ...)
	// separated by ':' (or ','); "" leaves the choice to the handshake.
	Ciphers string
}

// TLSSetup is what TLSOptions make of a connection, ready for Apply.
type TLSSetup struct {
	mode   TLSMode
	config *tls.Config // nil when disabled
}

// NewTLSSetup reads the files the options name and checks the cipher
// list. The zero options (or DISABLED) give a setup that changes nothing.
func NewTLSSetup(o TLSOptions) (*TLSSetup, error) {
	if o.Mode == "" || o.Mode == TLSDisabled {
		return &TLSSetup{mode: TLSDisabled}, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.Ciphers != "" {
		if err := chooseCiphers(c, o.Ciphers); err != nil {
			return nil, err
		}
	}
	if (o.Cert == "") != (o.Key == "") {
		return nil, errors.New("a client certificate needs both its certificate and its key file")
	}
	if o.Cert != "" {
		cert, err := readPEM(o.Cert)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		key, err := readPEM(o.Key)
		if err != nil {
			return nil, fmt.Errorf("client key: %w", err)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("client certificate %s and key %s: %w", o.Cert, o.Key, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	if o.CA != "" {
		pem, err := readPEM(o.CA)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", o.CA)
		}
	}
	switch o.Mode {
	case TLSPreferred, TLSRequired:
		c.InsecureSkipVerify = true
	case TLSVerifyCA:
		// The chain is checked, the name is not: Go's own check does
		// both, so it is turned off and the chain checked here.
		c.InsecureSkipVerify = true
		roots := c.RootCAs
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	case TLSVerifyIdentity:
	default:
		return nil, fmt.Errorf("unknown TLS mode %q", o.Mode)
	}
	return &TLSSetup{mode: o.Mode, config: c}, nil
}

// readPEM reads a PEM file of at most 4 MiB: certificates and keys are a
// few KB, a CA bundle a few hundred.
func readPEM(path string) ([]byte, error) { return readfile.Bounded(path, 4<<20, "a PEM file") }

// Mode is the setup's mode.
func (s *TLSSetup) Mode() TLSMode { return s.mode }

// Apply sets cfg up for the mode: TLS (with the server's name for
// VERIFY_IDENTITY, "localhost" over a Unix socket) and, for PREFERRED,
// plain text when the server offers no TLS.
func (s *TLSSetup) Apply(cfg *mysql.Config) {
	if s.config == nil {
		return
	}
	c := s.config.Clone()
	if s.mode == TLSVerifyIdentity {
		c.ServerName = "localhost"
		if cfg.Net != "unix" {
			if host, _, err := net.SplitHostPort(cfg.Addr); err == nil {
				c.ServerName = host
			}
		}
	}
	cfg.TLS = c
	cfg.AllowFallbackToPlaintext = s.mode == TLSPreferred
}

// tls13Suites are the TLS 1.3 suites, which Go always offers together.
var tls13Suites = map[string]bool{"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true, "TLS_CHACHA20_POLY1305_SHA256": true}

// openSSLNames maps OpenSSL's names of the TLS 1.2 suites Go implements
// to the standard (IANA) names Go uses.
var openSSLNames = map[string]string{
	"AES128-SHA":                    "TLS_RSA_WITH_AES_128_CBC_SHA",
	"AES256-SHA":                    "TLS_RSA_WITH_AES_256_CBC_SHA",
	"AES128-SHA256":                 "TLS_RSA_WITH_AES_128_CBC_SHA256",
	"AES128-GCM-SHA256":             "TLS_RSA_WITH_AES_128_GCM_SHA256",
	"AES256-GCM-SHA384":             "TLS_RSA_WITH_AES_256_GCM_SHA384",
	"DES-CBC3-SHA":                  "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
	"RC4-SHA":                       "TLS_RSA_WITH_RC4_128_SHA",
	"ECDHE-RSA-AES128-SHA":          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"ECDHE-RSA-AES256-SHA":          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"ECDHE-RSA-AES128-SHA256":       "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-DES-CBC3-SHA":        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
	"ECDHE-RSA-RC4-SHA":             "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
	"ECDHE-ECDSA-AES128-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
	"ECDHE-ECDSA-AES256-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"ECDHE-ECDSA-AES128-SHA256":     "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-RC4-SHA":           "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
}

// OpenSSLCipherName is OpenSSL's name of a suite Go names id ("" when
// there is none), for messages that show the negotiated cipher as MySQL
// servers show it (Ssl_cipher).
func OpenSSLCipherName(id uint16) string {
	name := tls.CipherSuiteName(id)
	if tls13Suites[name] {
		return name
	}
	for o, n := range openSSLNames {
		if n == name {
			return o
		}
	}
	return ""
}

// chooseCiphers limits c to the listed suites. TLS 1.2 suites are kept to
// TLS 1.2 (Go cannot choose among TLS 1.3's, as OpenSSL's cipher list
// does not either); TLS 1.3 suites may be named only all together.
func chooseCiphers(c *tls.Config, list string) error {
	ids := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		ids[s.Name] = s.ID
	}
	var tls12 []uint16
	tls13 := map[string]bool{}
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		std := name
		if o, ok := openSSLNames[strings.ToUpper(name)]; ok {
			std = o
		}
		switch {
		case tls13Suites[std]:
			tls13[std] = true
		case ids[std] != 0 && !strings.HasPrefix(name, "TLS_"):
			tls12 = append(tls12, ids[std])
		default:
			known := make([]string, 0, len(openSSLNames)+len(tls13Suites))
			for o := range openSSLNames {
				known = append(known, o)
			}
			for n := range tls13Suites {
				known = append(known, n)
			}
			sort.Strings(known)
			return fmt.Errorf("cipher %q is not one starbench can use (OpenSSL names of single suites, not cipher-list keywords: %s)", name, strings.Join(known, ", "))
		}
	}
	switch {
	case len(tls12) == 0 && len(tls13) == 0:
		return fmt.Errorf("cipher list %q names no cipher", list)
	case len(tls13) > 0 && len(tls13) < len(tls13Suites):
		return fmt.Errorf("cipher list %q names some TLS 1.3 suites: Go's TLS offers TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256 together, so name all three or none", list)
	case len(tls13) == 0:
		c.MaxVersion = tls.VersionTLS12
	case len(tls12) == 0:
		c.MinVersion = tls.VersionTLS13
	}
	c.CipherSuites = tls12
	return nil
}
