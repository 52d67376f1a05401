#!/usr/bin/env node
// An interactive step with the Node kit: it asks a name on its terminal;
// the kit reads KUSAW_REQUEST and writes KUSAW_EVENTS and KUSAW_RESULT.
import readline from "node:readline/promises";
import { main, ok } from "../node/kusaw-step.mjs";

await main({ name: "ask-node", version: "1.0.0", interactive: true }, async (step) => {
  step.progress("asking a name");
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const name = (await rl.question("Whom shall I greet? ")).trim();
  rl.close();
  return ok("greeted", `hello, ${name}`, { name });
});
