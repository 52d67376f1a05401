package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// publicAddr is where the fake DNS sends allowed names: a documentation
// address the proxy accepts, which the Dial seam sends to the origin.
var publicAddr = netip.MustParseAddr("203.0.113.7")

// origin is a local HTTP server that records the headers it got.
type origin struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newOrigin(t *testing.T) *origin {
	o := &origin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.headers = append(o.headers, r.Header.Clone())
		o.mu.Unlock()
		io.WriteString(w, "hello from origin\n")
	}))
	t.Cleanup(o.Close)
	return o
}

// lastHeader returns the header name of the last request the origin got.
func (o *origin) lastHeader(name string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.headers) == 0 {
		return ""
	}
	return o.headers[len(o.headers)-1].Get(name)
}

// fakeDNS answers from a table and records every name it was asked.
type fakeDNS struct {
	mu    sync.Mutex
	table map[string]string
	asked []string
}

func newFakeDNS() *fakeDNS {
	return &fakeDNS{table: map[string]string{
		"api.example.test":     publicAddr.String(),
		"private.example.test": "10.1.2.3",
		"loop.example.test":    "127.0.0.1",
		"meta.example.test":    "169.254.169.254",
		"mapped.example.test":  "::ffff:127.0.0.1",
		"mapped-public.test":   "::ffff:" + publicAddr.String(),
		"mapped-private.test":  "::ffff:10.1.2.3",
		"nat64.example.test":   "64:ff9b::a01:203",
		"denied.test":          publicAddr.String(),
	}}
}

func (d *fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, host)
	a, ok := d.table[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func (d *fakeDNS) wasAsked(host string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range d.asked {
		if h == host {
			return true
		}
	}
	return false
}

// dialTo returns a Dial seam that sends publicAddr to the origin and
// refuses anything else.
func dialTo(o *origin) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || ap.Addr() != publicAddr {
			return nil, errors.New("test dial: unexpected address " + addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, o.Listener.Addr().String())
	}
}

// testPolicy is an allowlist policy whose proxy reaches o.
func testPolicy(o *origin, dns *fakeDNS) *Policy {
	return &Policy{
		Backend:  BackendBwrap,
		Network:  NetworkAllowlist,
		Allow:    []string{"*.example.test"},
		Inject:   []Inject{{Name: "api-token", Host: "api.example.test", Header: "Authorization", Value: "Bearer s3cr3t-token-value"}},
		Resolver: dns.resolve,
		Dial:     dialTo(o),
	}
}

// startProxy serves a Proxy on a loopback port and returns a client
// using it.
func startProxy(t *testing.T, p *Proxy) *http.Client {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); p.Serve(ln) }()
	t.Cleanup(func() { ln.Close(); <-done; p.Wait() })
	u := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}}
}

func TestProxyDecisions(t *testing.T) {
	o, dns := newOrigin(t), newFakeDNS()
	log := &logWriter{b: new(bytes.Buffer)}
	p := &Proxy{Allow: []string{"*.example.test"}, Resolver: dns.resolve, Dial: dialTo(o), Log: log}
	client := startProxy(t, p)
	for _, tc := range []struct{ url, want string }{
		{"http://api.example.test/", ""},
		{"http://API.Example.Test./x", ""},
		{"http://denied.test/", DenyNotAllowed},
		{"http://example.test/", DenyNotAllowed},
		{"http://8.8.8.8/", DenyIPLiteral},
		{"http://[2001:db8::1]/", DenyIPLiteral},
		{"http://private.example.test/", DenyPrivate},
		{"http://loop.example.test/", DenyLoopback},
		{"http://meta.example.test/", DenyMetadata},
		{"http://mapped.example.test/", DenyLoopback},
		{"http://nat64.example.test/", DenyIPv4Embedded},
		{"http://nxdomain.example.test/", DenyDNS},
	} {
		resp, err := client.Get(tc.url)
		if err != nil {
			t.Fatalf("GET %s: %v", tc.url, err)
		}
		resp.Body.Close()
		got := resp.Header.Get("X-Kusaw-Egress")
		if got != tc.want || (tc.want == "") != (resp.StatusCode == 200) {
			t.Errorf("GET %s = %d %q; want reason %q", tc.url, resp.StatusCode, got, tc.want)
		}
	}
	if dns.wasAsked("denied.test") {
		t.Error("the proxy looked up a name the allowlist refuses")
	}
	if n := strings.Count(log.String(), "\n"); n != 12 {
		t.Errorf("log has %d lines; want 12:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), `"host":"denied.test","port":"80","allowed":false,"reason":"not_allowed"`) {
		t.Errorf("log lacks the refusal of denied.test:\n%s", log.String())
	}
}

// Issue 11 item 10: an IPv4-mapped answer (what /etc/hosts gives) is
// checked and dialled as the IPv4 address it is; a private one is still
// refused, for its own reason.
func TestProxyIPv4Mapped(t *testing.T) {
	o, dns := newOrigin(t), newFakeDNS()
	p := &Proxy{Allow: []string{"mapped-public.test", "mapped-private.test"}, Resolver: dns.resolve, Dial: dialTo(o)}
	client := startProxy(t, p)
	for _, tc := range []struct {
		name, url, want string
		status          int
	}{
		{"item 10: mapped public address is dialled unmapped", "http://mapped-public.test/", "", 200},
		{"item 10: mapped private address is still refused as private", "http://mapped-private.test/", DenyPrivate, 403},
	} {
		resp, err := client.Get(tc.url)
		if err != nil {
			t.Fatalf("%s: GET %s: %v", tc.name, tc.url, err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Kusaw-Egress"); got != tc.want || resp.StatusCode != tc.status {
			t.Errorf("%s: GET %s = %d %q; want %d %q", tc.name, tc.url, resp.StatusCode, got, tc.status, tc.want)
		}
	}
	// The real resolver: localhost comes back from /etc/hosts as
	// ::ffff:127.0.0.1 here, and is refused as loopback.
	p2 := &Proxy{Allow: []string{"localhost"}}
	resp, err := startProxy(t, p2).Get("http://localhost/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Kusaw-Egress"); got != DenyLoopback {
		t.Errorf("item 10: GET http://localhost/ through the real resolver: %d %q; want %q", resp.StatusCode, got, DenyLoopback)
	}
}

func TestProxyConnect(t *testing.T) {
	o, dns := newOrigin(t), newFakeDNS()
	p := &Proxy{Allow: []string{"api.example.test"}, Resolver: dns.resolve, Dial: dialTo(o)}
	client := startProxy(t, p)
	// A CONNECT tunnel to an allowed host carries TLS: the client's own
	// handshake to our plain origin fails, but only after the tunnel opened.
	_, err := client.Get("https://api.example.test/")
	if err == nil || strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("https through an allowed tunnel: %v; want a TLS error", err)
	}
	_, err = client.Get("https://denied.test/")
	if err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("CONNECT to a denied host: %v; want Forbidden", err)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"93.184.216.34": "", "2606:2800:220:1:248:1893:25c8:1946": "",
		"127.0.0.1": DenyLoopback, "::1": DenyLoopback,
		"10.0.0.1": DenyPrivate, "172.31.255.1": DenyPrivate, "192.168.1.1": DenyPrivate, "fd12::1": DenyPrivate,
		"169.254.1.1": DenyLinkLocal, "fe80::1": DenyLinkLocal, "100.64.0.1": DenyCGNAT, "100.127.255.255": DenyCGNAT,
		"169.254.169.254": DenyMetadata, "fd00:ec2::254": DenyMetadata,
		"::ffff:10.0.0.1": DenyPrivate, "::ffff:93.184.216.34": "", "64:ff9b::a00:1": DenyIPv4Embedded, "2002:a00:1::": DenyIPv4Embedded,
		"0.0.0.0": DenyUnspecified, "::": DenyUnspecified, "224.0.0.1": DenyMulticast, "ff02::1": DenyMulticast,
		"255.255.255.255": DenyReserved,
	} {
		if got := CheckAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("CheckAddr(%s) = %q; want %q", addr, got, want)
		}
	}
}

func TestAllowed(t *testing.T) {
	allow := []string{"api.github.com", "*.example.com"}
	for host, want := range map[string]bool{
		"api.github.com": true, "API.GITHUB.COM.": true, "github.com": false, "x.api.github.com": false,
		"a.example.com": true, "a.b.example.com": true, "example.com": false, "badexample.com": false,
	} {
		if got := Allowed(host, allow); got != want {
			t.Errorf("Allowed(%q) = %v; want %v", host, got, want)
		}
	}
}

// logWriter is a bytes.Buffer safe for the proxy's goroutines and the test.
type logWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
