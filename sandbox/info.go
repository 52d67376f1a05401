package sandbox

// ProxyURL returns the egress proxy's URL as the sandboxed process reaches
// it (what HTTP_PROXY says inside), or "" when the network is open. The
// request's sandbox.egress.proxy names it.
func (s *Sandbox) ProxyURL() string { return s.proxyURL }
