package ssh

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyError is returned by Dial when the server's host key cannot be
// verified: the host is not in the known_hosts files (Unknown), its key
// differs from the recorded one (a mismatch), or the key was revoked.
type HostKeyError struct {
	Host       string   // as written in known_hosts: "host" or "[host]:port"
	Files      []string // known_hosts files consulted
	Offered    string   // the server's key: type and SHA256 fingerprint
	Known      []string // recorded keys for the host: "file:line type fingerprint"
	Unknown    bool
	Revoked    bool
	connectErr string
}

func (e *HostKeyError) Error() string { return e.connectErr }

type hostKeyChecker struct {
	callback   xssh.HostKeyCallback
	algorithms []string
	err        *HostKeyError // set when callback rejected the key
}

func newHostKeyChecker(spec Spec, addr string) (*hostKeyChecker, error) {
	hk := &hostKeyChecker{}
	if spec.InsecureIgnoreHostKey {
		hk.callback = xssh.InsecureIgnoreHostKey()
		return hk, nil
	}
	var files []string
	if spec.KnownHosts != "" {
		p, err := expandHome(spec.KnownHosts)
		if err != nil {
			return nil, fmt.Errorf("ssh: known_hosts: %w", err)
		}
		files = []string{p}
	} else {
		p, err := expandHome("~/.ssh/known_hosts")
		if err != nil {
			return nil, fmt.Errorf("ssh: known_hosts: %w", err)
		}
		files = []string{p}
		if _, err := os.Stat("/etc/ssh/ssh_known_hosts"); err == nil {
			files = append(files, "/etc/ssh/ssh_known_hosts")
		}
	}
	host := knownhosts.Normalize(addr)
	hostArg, portArg := hostPortArgs(addr)
	if _, err := os.Stat(files[0]); errors.Is(err, os.ErrNotExist) {
		return nil, &HostKeyError{
			Host: host, Files: files, Unknown: true,
			connectErr: fmt.Sprintf("ssh: cannot verify the host key of %s: the known_hosts file %s does not exist; "+
				"after checking the server's fingerprint, record its key with: ssh-keyscan%s %s >> %s "+
				"(or, for a throwaway host, turn checking off: insecure_ignore_host_key=True in a plan)", host, files[0], portArg, hostArg, files[0]),
		}
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return nil, fmt.Errorf("ssh: read known_hosts %s: %w", strings.Join(files, ", "), err)
	}
	hk.algorithms = knownAlgorithms(cb, addr)

	hk.callback = func(hostname string, remote net.Addr, key xssh.PublicKey) error {
		err := cb(hostname, remote, key)
		if err == nil {
			return nil
		}
		e := &HostKeyError{Host: host, Files: files, Offered: key.Type() + " " + xssh.FingerprintSHA256(key)}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &re):
			e.Revoked = true
			e.connectErr = fmt.Sprintf("ssh: the host key of %s (%s) is marked @revoked in %s:%d; refusing to connect",
				host, e.Offered, re.Revoked.Filename, re.Revoked.Line)
		case errors.As(err, &ke) && len(ke.Want) == 0:
			e.Unknown = true
			e.connectErr = fmt.Sprintf("ssh: cannot verify the host key of %s: it is not in %s (the server offered %s); "+
				"after checking that fingerprint, record the key with: ssh-keyscan%s %s >> %s "+
				"(or, for a throwaway host, turn checking off: insecure_ignore_host_key=True in a plan)",
				host, strings.Join(files, " or "), e.Offered, portArg, hostArg, files[0])
		case errors.As(err, &ke):
			for _, k := range ke.Want {
				e.Known = append(e.Known, fmt.Sprintf("%s:%d %s %s", k.Filename, k.Line, k.Key.Type(), xssh.FingerprintSHA256(k.Key)))
			}
			e.connectErr = fmt.Sprintf("ssh: HOST KEY MISMATCH for %s: the server offered %s but known_hosts has %s. "+
				"Someone may be intercepting the connection, or the host was reinstalled. If you know the new key "+
				"is right, remove the old one with: ssh-keygen -R '%s' -f %s, then record the new one with: ssh-keyscan%s %s >> %s",
				host, e.Offered, strings.Join(e.Known, "; "), host, ke.Want[0].Filename, portArg, hostArg, ke.Want[0].Filename)
		default:
			e.connectErr = fmt.Sprintf("ssh: cannot verify the host key of %s against %s: %v", host, strings.Join(files, ", "), err)
		}
		hk.err = e
		return e
	}
	return hk, nil
}

func hostPortArgs(addr string) (host, portArg string) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, ""
	}
	if p != "22" {
		portArg = " -p " + p
	}
	return h, portArg
}

// knownAlgorithms returns the host key algorithms recorded for addr, so
// that the handshake asks the server for a key type we can verify (a
// server offering ed25519 while known_hosts has its RSA key would
// otherwise look like a mismatch). Nil means no preference.
func knownAlgorithms(cb xssh.HostKeyCallback, addr string) []string {
	// Asking with a throwaway key yields a KeyError listing the known keys.
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil
	}
	probe, err := xssh.NewSignerFromKey(priv)
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(cb(addr, &net.TCPAddr{IP: net.IPv4zero}, probe.PublicKey()), &ke) || len(ke.Want) == 0 {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	add := func(a ...string) {
		for _, s := range a {
			if !seen[s] {
				seen[s] = true
				algos = append(algos, s)
			}
		}
	}
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case xssh.KeyAlgoRSA:
			add(xssh.KeyAlgoRSASHA512, xssh.KeyAlgoRSASHA256, xssh.KeyAlgoRSA)
		case xssh.CertAlgoRSAv01:
			add(xssh.CertAlgoRSASHA512v01, xssh.CertAlgoRSASHA256v01, xssh.CertAlgoRSAv01)
		default:
			add(t)
		}
	}
	return algos
}
