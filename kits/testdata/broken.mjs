#!/usr/bin/env node
// A step whose run() throws and logs to stdout: the Node kit keeps stdout
// for the protocol and turns the exception into a fail result.
import { main } from "../node/kusaw-step.mjs";

await main({ name: "broken-node", version: "1.0.0" }, async () => {
  console.log("a stray console.log");
  throw new RangeError("the disk is full");
});
