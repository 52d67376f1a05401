package main

import (
	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
	"kusaw.dev/step/slipway"
)

// withSlipwayPaths makes the files the slipway kind's config names (its
// slipway binary, agent program and source file: the operator's, not the
// step's) readable inside the sandbox, where a private /tmp would hide
// them. A config the step will refuse adds nothing: the step says why.
func withSlipwayPaths(opts *sandbox.Options, command []string, req []byte) {
	if opts == nil || !isSlipwayKind(command) {
		return
	}
	var r protocol.Request
	if json.Unmarshal(req, &r, json.RejectUnknownMembers(false)) != nil {
		return
	}
	cfg, err := slipway.ParseConfig(r.Config)
	if err != nil {
		return
	}
	opts.Flags.Readable = append(opts.Flags.Readable, cfg.OperatorPaths()...)
}
