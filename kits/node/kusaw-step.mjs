// kusaw-step.mjs: write a step of the Kusaw step protocol v2 in Node.
//
// One file, no dependencies, Node 18 or later. Copy it next to your step
// and:
//
//   #!/usr/bin/env node
//   import { main, ok } from "./kusaw-step.mjs";
//
//   await main({ name: "greet", version: "1.0.0" }, async (step) => {
//     const name = step.config.name ?? "world";
//     step.progress(`greeting ${name}`, 50);
//     return ok("greeted", `hello, ${name}`, { greeting: `hello, ${name}` });
//   });
//
// main() answers the handshake when KUSAW_HANDSHAKE=1; otherwise it reads
// the request (stdin, or the file KUSAW_REQUEST for an interactive step),
// awaits run(step) and writes the result it returns (the last stdout line,
// or the file KUSAW_RESULT), then exits. Events are written synchronously,
// one JSON line each, so the runner sees them as they happen. While run()
// runs, console.log goes to stderr: stdout carries only protocol lines. An
// exception from run() becomes a result with status fail and reason_code
// step_error.

import fs from "node:fs";
import path from "node:path";

export const PROTOCOL_VERSION = 2;

/** Writes all of text to the file descriptor fd, synchronously. */
function writeAll(fd, text) {
  let buf = Buffer.from(text, "utf8");
  while (buf.length > 0) {
    let n;
    try {
      n = fs.writeSync(fd, buf);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a full non-blocking pipe: wait for the reader
      continue;
    }
    buf = buf.subarray(n);
  }
}

/** One JSON line. */
function line(obj) {
  return JSON.stringify(obj) + "\n";
}

/** Logs to stderr, the step's log (stdout carries only protocol lines). */
export function log(...args) {
  writeAll(2, args.map(String).join(" ") + "\n");
}

/** A result: status is ok, fail, retry or reject; fields are the result's
 * other members (outputs, artifacts, feedback, recovery, cost, ...). */
export function result(status, reasonCode, message, fields = {}) {
  const res = { type: "result", protocol_version: PROTOCOL_VERSION, status, reason_code: reasonCode, message };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) res[k] = v;
  return res;
}

/** A result with status ok and, when given, outputs. */
export function ok(reasonCode, message, outputs, fields = {}) {
  return result("ok", reasonCode, message, { ...fields, outputs });
}

/** A result with status fail. */
export function fail(reasonCode, message, fields = {}) {
  return result("fail", reasonCode, message, fields);
}

function defined(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null));
}

/** One attempt as the step sees it: the request, and where events go. */
export class Step {
  #fd;
  constructor(request, fd) {
    this.request = request;
    this.#fd = fd;
  }
  /** The step's config (request.config), an object. */
  get config() {
    return this.request.config ?? {};
  }
  get mode() {
    return this.request.mode;
  }
  /** KUSAW_ARTIFACTS_DIR: where artifacts are written. */
  get artifactsDir() {
    return process.env.KUSAW_ARTIFACTS_DIR || this.request.artifacts_dir;
  }
  /** Writes one event (an object with its "type") at once. */
  emit(event) {
    writeAll(this.#fd, line(event));
  }
  /** A progress event; percent is from 0 to 100. */
  progress(message, percent, turn) {
    this.emit(defined({ type: "progress", message, percent, turn }));
  }
  /** A usage event: { tokens_input, tokens_output, tokens_cached, cost_usd, provider, model, ... }. */
  usage(fields) {
    this.emit(defined({ type: "usage", ...fields }));
  }
  /** An agent_action event: what the agent did, in a sentence. */
  agentAction(summary) {
    this.emit({ type: "agent_action", summary });
  }
  /** A tool_call event. */
  toolCall(tool, allowed, argsSummary) {
    this.emit(defined({ type: "tool_call", tool, allowed, args_summary: argsSummary }));
  }
  /** A note_ack event: the step read the steer note id. */
  noteAck(id) {
    this.emit({ type: "note_ack", id });
  }
  /** Publishes a file already under the artifacts dir (path relative to it). */
  artifact(relPath, kind, fields = {}) {
    this.emit(defined({ type: "artifact", path: relPath, kind, ...fields }));
  }
  /** Writes data (string or Buffer) to relPath under the artifacts dir,
   * making its folders, then publishes it. relPath must stay inside. */
  writeArtifact(relPath, data, kind, fields = {}) {
    const root = this.artifactsDir;
    if (!root) throw new Error("the request gives no artifacts_dir");
    const full = path.resolve(root, relPath);
    if (path.isAbsolute(relPath) || !full.startsWith(path.resolve(root) + path.sep)) {
      throw new Error(`artifact path ${JSON.stringify(relPath)}: want a relative path inside the artifacts dir`);
    }
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, data);
    this.artifact(relPath, kind, fields);
  }
}

function readRequest(source) {
  const req = JSON.parse(fs.readFileSync(source, "utf8"));
  if (req === null || typeof req !== "object" || req.protocol_version !== PROTOCOL_VERSION) {
    throw new Error(`the request does not speak protocol ${PROTOCOL_VERSION}`);
  }
  return req;
}

async function attempt(run, request, fd) {
  let res;
  try {
    res = await run(new Step(request, fd));
    if (res === null || typeof res !== "object") res = fail("step_error", `run() returned ${typeof res}, not a result object`);
  } catch (e) {
    log(e && e.stack ? e.stack : String(e));
    res = fail("step_error", `${e && e.name ? e.name : "Error"}: ${e && e.message ? e.message : e}`);
  }
  return { type: "result", protocol_version: PROTOCOL_VERSION, ...res };
}

/** Runs the step: handshake is its declaration (name, version, and
 * optionally description, interactive, features, needs_env, egress,
 * outputs_schema...); run(step) returns, or resolves to, the result. */
export async function main(handshake, run) {
  if (process.env.KUSAW_HANDSHAKE === "1") {
    writeAll(1, line({ type: "handshake", interactive: false, protocol_versions: [PROTOCOL_VERSION], ...handshake }));
    process.exit(0);
  }
  const requestFile = process.env.KUSAW_REQUEST;
  if (requestFile) {
    // Interactive: the terminal is the person's; the protocol goes through files.
    const request = readRequest(requestFile);
    const events = fs.openSync(process.env.KUSAW_EVENTS, "a");
    const res = await attempt(run, request, events);
    fs.closeSync(events);
    fs.writeFileSync(process.env.KUSAW_RESULT, line(res));
    process.exit(0);
  }
  const request = readRequest(0);
  const consoleLog = console.log;
  console.log = console.info = console.debug = console.error; // a stray console.log must not break the protocol
  const res = await attempt(run, request, 1);
  console.log = consoleLog;
  writeAll(1, line(res));
  process.exit(0);
}
