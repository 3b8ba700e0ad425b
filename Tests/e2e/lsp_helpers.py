"""A small LSP client over pipes for the `tk-agent lsp` tests: Content-Length framing, a reader
thread collecting every message, helpers to wait for responses and notifications."""
import json
import queue
import subprocess
import threading
import time

from agent_helpers import BIN


def frame(obj) -> bytes:
    body = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class LSPClient:
    def __init__(self, env, cwd=None):
        self.proc = subprocess.Popen([BIN, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=cwd)
        self.messages = []
        # When each message's last byte was read (before the client parsed it), by index.
        self.arrivals = []
        self.cond = threading.Condition()
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                c = out.read(1)
                if not c:
                    return
                header += c
            length = None
            for line in header.decode().split("\r\n"):
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            assert length is not None, header
            body = out.read(length)
            arrived = time.perf_counter()
            with self.cond:
                self.arrivals.append(arrived)
                self.messages.append(json.loads(body))
                self.cond.notify_all()

    # -- sending --
    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def notify(self, method, params=None):
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        self.write(frame(m))

    def request_async(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.write(frame(m))
        return rid

    def request(self, method, params=None, timeout=10):
        return self.response(self.request_async(method, params), timeout)

    # -- receiving --
    def wait(self, pred, timeout=10, what="message", after=0):
        """The first message (from index `after` on) that satisfies pred."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages[after:]:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}; got {json.dumps(self.messages)[-3000:]}")
                self.cond.wait(left)

    def response(self, rid, timeout=10):
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout, f"response {rid}")

    def diagnostics(self, uri, pred=lambda d: True, timeout=10, after=0):
        """The first publishDiagnostics for uri (after message index `after`) whose list satisfies pred."""
        def ok(m):
            return (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                    and pred(m["params"]["diagnostics"]))
        return self.wait(ok, timeout, f"diagnostics for {uri}", after)["params"]["diagnostics"]

    def mark(self):
        with self.cond:
            return len(self.messages)

    def initialize(self, capabilities=None, options=None, root=None):
        params = {"processId": None, "capabilities": capabilities or {},
                  "rootUri": f"file://{root}" if root else None}
        if options is not None:
            params["initializationOptions"] = options
        r = self.request("initialize", params)
        self.notify("initialized", {})
        return r

    def open(self, path, text, version=1):
        uri = f"file://{path}"
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown",
                                                              "version": version, "text": text}})
        return uri

    def close(self, timeout=10):
        try:
            self.request("shutdown", timeout=timeout)
            self.notify("exit")
        except (BrokenPipeError, AssertionError):
            pass
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
