package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// proxyOf starts the egress proxy of pol as Wrap does (unix socket, log
// file) and returns a client that reaches it through the socket.
func proxyOf(t *testing.T, pol *Policy) (*Sandbox, *http.Client) {
	t.Helper()
	s := &Sandbox{}
	if err := s.startProxy(pol); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sock := s.ln.Addr().String()
	tr := &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.invalid"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		DisableKeepAlives: true,
	}
	return s, &http.Client{Transport: tr}
}

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	return resp
}

// Issue 11 item 3: egress.jsonl is capped like the other logs (whole
// lines, one truncation line, every request still counted) and masked (a
// secret in a host name never lands raw).
func TestEgressLogCappedAndMasked(t *testing.T) {
	o, dns := newOrigin(t), newFakeDNS()
	const secret = "hunter2-very-secret"
	pol := testPolicy(o, dns)
	pol.EgressLog = filepath.Join(t.TempDir(), "egress.jsonl")
	pol.EgressLogCap = 2000
	pol.Mask = []string{secret}
	s, client := proxyOf(t, pol)
	get(t, client, "http://"+secret+".denied.test/") // the secret as a host name
	if _, err := client.Get("https://" + secret + ".denied.test/"); err == nil {
		t.Fatal("CONNECT to a denied host succeeded")
	}
	const flood = 100
	for range flood {
		get(t, client, "http://denied.test/")
	}
	get(t, client, "http://api.example.test/")
	s.Close()

	data, err := os.ReadFile(pol.EgressLog)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret)) {
		t.Errorf("item 3: the egress log holds the secret:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"method":"CONNECT","host":"***.denied.test"`)) {
		t.Errorf("item 3: the masked host is not logged:\n%s", data)
	}
	if int64(len(data)) > pol.EgressLogCap+300 {
		t.Errorf("item 3: egress log is %d bytes; cap %d", len(data), pol.EgressLogCap)
	}
	markers := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Errorf("item 3: a line of egress.jsonl is not JSON (%v): %q", err, sc.Text())
		}
		if v["truncated"] == true {
			markers++
		}
	}
	if markers != 1 {
		t.Errorf("item 3: %d truncation lines; want 1:\n%s", markers, data)
	}
	e, ok := s.Egress()
	if !ok || e.Allowed != 1 || e.Refused != flood+2 || !e.Truncated || e.Total <= e.Bytes || e.Log != pol.EgressLog {
		t.Errorf("item 3: Egress() = %+v, %v; want 1 allowed, %d refused, truncated, every line counted", e, ok, flood+2)
	}
}

// Issue 16 item 8: a refused request (403) and an allowed one whose name
// does not resolve (502) are told apart, in the answer and in the log,
// and counted apart.
func TestEgressRefusedVersusDNSFailure(t *testing.T) {
	o, dns := newOrigin(t), newFakeDNS()
	pol := testPolicy(o, dns)
	pol.EgressLog = filepath.Join(t.TempDir(), "egress.jsonl")
	s, client := proxyOf(t, pol)
	for _, tc := range []struct {
		name, url, reason string
		status            int
		log               string
	}{
		{"item 8: not on the allowlist", "http://denied.test/", DenyNotAllowed, 403, `"host":"denied.test","port":"80","allowed":false,"reason":"not_allowed"`},
		{"item 8: forbidden address", "http://private.example.test/", DenyPrivate, 403, `"allowed":false,"reason":"private","addr":"10.1.2.3"`},
		{"item 8: allowed, DNS fails", "http://nxdomain.example.test/", DenyDNS, 502, `"host":"nxdomain.example.test","port":"80","allowed":true,"error":"dns_error: no such host"`},
		{"item 8: allowed and reached", "http://api.example.test/", "", 200, `"host":"api.example.test","port":"80","allowed":true,"addr":"203.0.113.7"`},
	} {
		resp := get(t, client, tc.url)
		if got := resp.Header.Get("X-Kusaw-Egress"); resp.StatusCode != tc.status || got != tc.reason {
			t.Errorf("%s: GET %s = %d %q; want %d %q", tc.name, tc.url, resp.StatusCode, got, tc.status, tc.reason)
		}
		s.proxy.mu.Lock()
		log, _ := os.ReadFile(pol.EgressLog)
		s.proxy.mu.Unlock()
		if !strings.Contains(string(log), tc.log) {
			t.Errorf("%s: egress log lacks %s:\n%s", tc.name, tc.log, log)
		}
	}
	s.Close()
	if e, _ := s.Egress(); e.Allowed != 2 || e.Refused != 2 {
		t.Errorf("item 8: Egress() = %+v; want 2 allowed (one failed on DNS), 2 refused", e)
	}
}
