package sandbox

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
)

// Inject is a header the proxy sets on requests to Host, so that a secret
// serves the step without ever entering its environment. The proxy can
// only set it on plain-HTTP requests (absolute-URI, "http://..."): a
// CONNECT tunnel carries TLS the proxy cannot read, so an HTTPS request
// to Host goes through without the header (the log says so).
type Inject struct {
	Name   string // the entry's name, as in sandbox.egress.injected; logged
	Host   string // exact host name, case-insensitive
	Header string // e.g. Authorization
	Value  string // the secret; never logged
}

// Proxy is the egress proxy: HTTP CONNECT and absolute-URI HTTP to the
// hosts of Allow only, each name resolved once and every address checked
// ([CheckAddr]) before the checked one is dialled. Set the fields before
// Serve; do not change them after.
type Proxy struct {
	// Allow are the exact host names and "*.suffix" patterns ([Allowed]).
	Allow []string
	// Inject are headers set on plain-HTTP requests to their host only.
	Inject []Inject
	// Resolver looks a name up; nil means net.DefaultResolver. A seam for
	// tests, which count its calls.
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked address; nil means a net.Dialer. A seam
	// for tests, which send a public test address to a local server.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log receives one JSON line per request ([LogEntry]); nil discards.
	// The proxy writes it one whole line at a time, under its lock.
	Log io.Writer

	allowed, refused atomic.Int64 // requests the policy let through, or not

	mu      sync.Mutex // guards Log, srv, tunnels and closed
	srv     *http.Server
	tunnels map[net.Conn]bool
	closed  bool           // Wait has begun: no new tunnel
	wg      sync.WaitGroup // one per open tunnel
}

// LogEntry is one line of the egress log. A refused request has Allowed
// false and a Reason; an allowed one that failed (the name did not
// resolve, the address did not answer) has Allowed true and an Error.
type LogEntry struct {
	Time    string `json:"time"`
	Method  string `json:"method"`
	Host    string `json:"host"`
	Port    string `json:"port"`
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitzero"` // a Deny* code when not allowed
	Error   string `json:"error,omitzero"`  // why an allowed request failed: "dns_error: ..."
	Addr    string `json:"addr,omitzero"`   // the address dialled, or refused
	Inject  string `json:"inject,omitzero"` // the inject entry applied, or "skipped (tls)"
}

// Counts returns how many requests the policy allowed (whether or not
// they then reached their host) and how many it refused.
func (p *Proxy) Counts() (allowed, refused int64) {
	return p.allowed.Load(), p.refused.Load()
}

// Serve answers proxy requests on ln until ln is closed or Close is
// called; it then returns nil.
func (p *Proxy) Serve(ln net.Listener) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Wait closes every connection still open, tunnels included, and waits
// for their goroutines. Call it after Serve has returned.
func (p *Proxy) Wait() {
	p.mu.Lock()
	p.closed = true
	if p.srv != nil {
		p.srv.Close()
	}
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// ServeHTTP implements [http.Handler].
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, port, ok := target(r)
	e := LogEntry{Method: r.Method, Host: host, Port: port}
	if !ok {
		p.deny(w, e, DenyBadRequest)
		return
	}
	addr, reason, err := p.check(r.Context(), host)
	if addr.IsValid() {
		e.Addr = addr.String()
	}
	if reason == DenyDNS {
		p.fail(w, e, reason, err)
		return
	}
	if reason != "" {
		p.deny(w, e, reason)
		return
	}
	n, _ := strconv.ParseUint(port, 10, 16)
	dst := netip.AddrPortFrom(addr, uint16(n))
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, e, dst)
	} else {
		p.forward(w, r, e, dst)
	}
}

// target returns the host and port a proxy request is for; false when it
// is not a CONNECT or an absolute http:// request.
func target(r *http.Request) (host, port string, ok bool) {
	hostport, def := r.Host, ""
	if r.Method != http.MethodConnect {
		if r.URL.Scheme != "http" || r.URL.Host == "" {
			return r.URL.Hostname(), r.URL.Port(), false
		}
		hostport, def = r.URL.Host, "80"
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil && def != "" {
		host, port, err = hostport, def, nil
	}
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil {
		return hostport, port, false
	}
	return host, port, true
}

// deny answers 403 with the reason and logs the refusal: the policy
// does not let this request through.
func (p *Proxy) deny(w http.ResponseWriter, e LogEntry, reason string) {
	p.refused.Add(1)
	e.Reason = reason
	p.log(e)
	w.Header().Set("X-Kusaw-Egress", reason)
	http.Error(w, "kusaw egress proxy: "+e.Host+": refused: "+reason+" (see egress.jsonl)", http.StatusForbidden)
}

// fail answers 502 for a request the policy allowed that could not reach
// its host (code DenyDNS or DenyDial), and logs it as allowed, with the
// error.
func (p *Proxy) fail(w http.ResponseWriter, e LogEntry, code string, err error) {
	p.allowed.Add(1)
	e.Allowed = true
	e.Error = code
	if err != nil {
		e.Error += ": " + err.Error()
	}
	p.log(e)
	w.Header().Set("X-Kusaw-Egress", code)
	http.Error(w, "kusaw egress proxy: "+e.Host+": allowed, but "+e.Error, http.StatusBadGateway)
}

// log writes e as one JSON line.
func (p *Proxy) log(e LogEntry) {
	if p.Log == nil {
		return
	}
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.Log.Write(append(b, '\n'))
}

// inject returns the entry for host, if any.
func (p *Proxy) inject(host string) (Inject, bool) {
	for _, in := range p.Inject {
		if normHost(in.Host) == normHost(host) {
			return in, true
		}
	}
	return Inject{}, false
}

// tunnel answers CONNECT: dial the checked address, then copy both ways.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, e LogEntry, dst netip.AddrPort) {
	up, err := p.dial(r.Context(), dst)
	if err != nil {
		p.fail(w, e, DenyDial, err)
		return
	}
	down, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, ok := p.inject(e.Host); ok {
		e.Inject = "skipped (tls)"
	}
	p.allowed.Add(1)
	e.Allowed = true
	p.log(e)
	if !p.track(up, down) {
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go p.pipe(up, io.MultiReader(buf.Reader, down), up, down)
	go p.pipe(down, up, up, down)
}

// track registers a tunnel's two connections so Wait can close them;
// false (and both closed) when the proxy is already shutting down.
func (p *Proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		a.Close()
		b.Close()
		return false
	}
	if p.tunnels == nil {
		p.tunnels = make(map[net.Conn]bool)
	}
	p.tunnels[a], p.tunnels[b] = true, true
	p.wg.Add(2)
	return true
}

// pipe copies src to dst, then closes both ends of the tunnel.
func (p *Proxy) pipe(dst io.Writer, src io.Reader, a, b net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	a.Close()
	b.Close()
	p.mu.Lock()
	delete(p.tunnels, a)
	delete(p.tunnels, b)
	p.mu.Unlock()
}

// hop are the headers that concern the hop to the proxy only.
var hop = []string{"Connection", "Proxy-Connection", "Proxy-Authorization", "Keep-Alive", "Te", "Trailer", "Upgrade"}

// forward sends an absolute-URI request to the checked address, with the
// host's injected header, and copies the answer back.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, e LogEntry, dst netip.AddrPort) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hop {
		out.Header.Del(h)
	}
	if in, ok := p.inject(e.Host); ok {
		out.Header.Set(in.Header, in.Value)
		e.Inject = in.Name
	}
	tr := &http.Transport{
		DialContext:       func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx, dst) },
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(out)
	if err != nil {
		p.fail(w, e, DenyDial, err)
		return
	}
	defer resp.Body.Close()
	p.allowed.Add(1)
	e.Allowed = true
	p.log(e)
	for k, vs := range resp.Header {
		if !strings.EqualFold(k, "Connection") {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
