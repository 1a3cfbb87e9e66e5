package runner

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// redactor replaces known secrets (passwords from --target, the environment
// or a sandbox) with "***" in everything the run prints or stores.
type redactor struct {
	mu      sync.RWMutex
	secrets []string
}

const redactedMark = "***"

func (r *redactor) add(secret string) {
	if secret == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	forms := []string{secret}
	if quoted, err := json.Marshal(secret); err == nil {
		if inner := string(quoted[1 : len(quoted)-1]); inner != secret {
			forms = append(forms, inner)
		}
	}
	for _, f := range forms {
		if !contains(r.secrets, f) {
			r.secrets = append(r.secrets, f)
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

func (r *redactor) redact(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, redactedMark)
	}
	return s
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
