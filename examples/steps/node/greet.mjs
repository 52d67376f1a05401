#!/usr/bin/env node
// greet: a step written with the Node kit, kits/node/kusaw-step.mjs (copy
// that one file next to your step and import it from there).
import { log, main, ok } from "../../../kits/node/kusaw-step.mjs";

await main({ name: "greet-node", version: "1.0.0", description: "Greets someone, with the Node kit." }, async (step) => {
  const name = step.config.name ?? "world";
  log(`greet: mode ${step.mode}`);
  step.progress(`greeting ${name}`, 50);
  step.usage({ tokens_input: 12, tokens_output: 3, cost_usd: 0.0001 });
  step.writeArtifact("greeting.txt", `hello, ${name}\n`, "log");
  return ok("greeted", `hello, ${name}`, { greeting: `hello, ${name}` });
});
