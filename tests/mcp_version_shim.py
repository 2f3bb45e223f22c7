#!/usr/bin/env python3
"""Pins the protocol revision an MCP client asks a stdio server for.

MCP Inspector's CLI negotiates eras (legacy, modern, auto), not revisions:
in the legacy era it always asks for its newest handshake revision. To
check a server in each revision it speaks, this sits between the two and
rewrites `params.protocolVersion` of the client's `initialize`, and logs
the revision each side used -- the server's `initialize` answer and every
request's `_meta` revision -- one line each to the file LOG, so the test
can assert the run really was in that revision.

  mcp_version_shim.py VERSION|- LOG SERVER_COMMAND...
"""
import json
import subprocess
import sys
import threading

META_VERSION = "io.modelcontextprotocol/protocolVersion"


def main():
    version, log_path, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    log = open(log_path, "a", buffering=1)
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    initialize_ids = set()

    def answers():
        for line in server.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg.get("id") in initialize_ids:
                log.write("initialize %s\n" % (msg.get("result") or {}).get("protocolVersion"))
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    forward = threading.Thread(target=answers)
    forward.start()
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and isinstance(msg.get("params"), dict):
            params = msg["params"]
            if msg.get("method") == "initialize":
                initialize_ids.add(msg.get("id"))
                if version != "-":
                    params["protocolVersion"] = version
                    line = (json.dumps(msg) + "\n").encode()
            meta = params.get("_meta")
            if isinstance(meta, dict) and META_VERSION in meta:
                log.write("meta %s\n" % meta[META_VERSION])
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
    forward.join()
    sys.exit(server.wait())


if __name__ == "__main__":
    main()
