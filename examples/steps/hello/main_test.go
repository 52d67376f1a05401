package main

import (
	"testing"

	"kusaw.dev/step/steptest"
)

func TestHandshake(t *testing.T) {
	h := steptest.Handshake(t, hello)
	if h.Name != "hello" || len(h.OutputsSchema) == 0 {
		t.Errorf("handshake %+v; want hello with an outputs_schema", h)
	}
}

func TestGreet(t *testing.T) {
	req, _ := steptest.NewRequest(t, steptest.Options{Config: `{"name":"Ada"}`})
	rec := steptest.Serve(t, hello, req)
	res, err := rec.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "ok" || string(res.Outputs) != `{"greeting":"hello, Ada"}` {
		t.Errorf("result %s %s; want ok {\"greeting\":\"hello, Ada\"}", res.Status, res.Outputs)
	}
	var types []string
	for _, ev := range rec.Events() {
		types = append(types, ev.EventType())
	}
	if len(types) != 6 || types[3] != "artifact" || types[4] != "usage" {
		t.Errorf("events %v; want 3 progress, artifact, usage, progress", types)
	}
}

func TestBadConfig(t *testing.T) {
	req, _ := steptest.NewRequest(t, steptest.Options{Config: `{"name":3}`})
	res, err := steptest.Serve(t, hello, req).Result()
	if err != nil || res.Status != "fail" || res.ReasonCode != "bad_config" {
		t.Errorf("result %+v, %v; want fail/bad_config", res, err)
	}
}
