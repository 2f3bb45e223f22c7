// Runs many MCP Inspector CLI invocations in one Node process, for
// tests/mcp_inspector_test.sh: each line of PLAN is one invocation,
// {"argv": [...], "out": FILE, "err": FILE}, exactly the arguments
// `inspector --cli` takes. Each goes through the CLI's own entry (runCli,
// what the `inspector` launcher imports) and its own error sink
// (handleError, which maps a failure to the CLI's exit code), and spawns
// its own server as the CLI does; what it writes to stdout and stderr goes
// to OUT and ERR, and its exit code to OUT.rc. Why: starting Node and
// loading the Inspector cost about half a second of CPU per invocation,
// and the test makes 54 of them.
//   node tests/mcp_inspector_runs.mjs INSPECTOR_CLI_ENTRY PLAN
import { readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [entry, plan] = process.argv.slice(2);
const { runCli, handleError } = await import(pathToFileURL(entry).href);

// Sends a stream's writes to a file while `run` runs (callbacks still fire:
// the CLI awaits them before it goes on).
function redirect(stream, file) {
  const write = stream.write;
  stream.write = (chunk, encoding, callback) => {
    appendFileSync(file, chunk);
    const done = typeof encoding === "function" ? encoding : callback;
    if (done) process.nextTick(done);
    return true;
  };
  return () => { stream.write = write; };
}

async function invoke({ argv, out, err }) {
  writeFileSync(out, "");
  writeFileSync(err, "");
  const restore = [redirect(process.stdout, out), redirect(process.stderr, err)];
  const exit = process.exit;
  let rc = 0;
  process.exit = (code) => { rc = code ?? 0; };  // handleError's exit: the code, not the end of the others
  try {
    await runCli(["node", "inspector-cli", ...argv]);
  } catch (error) {
    await handleError(error);
    if (rc === 0) rc = 1;
  } finally {
    process.exit = exit;
    restore.forEach((r) => r());
  }
  writeFileSync(out + ".rc", `${rc}\n`);
}

for (const line of readFileSync(plan, "utf8").split("\n")) {
  if (line.trim()) await invoke(JSON.parse(line));
}
process.exit(0);
